// captured_record_writer.cpp — formats captured records as text lines.
// Common heads go straight into the writer's line buffer with fixed-size
// memcpys (padded symbols, cached time digits, a direct-mapped id digit
// cache whose entries are always valid); the rest, and a spawn whose site is
// not yet written, build a Record for TraceWriter, emitting the (site ...)
// record first. The symbol tables are built at static initialisation, so
// neither the hot loop nor the crash path runs an initialiser or allocates.
#include "recorder/capture/captured_record_writer.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "runtime/trace_sink.hpp"

namespace skein::capture {


void CapturedRecordWriter::reset_sites() noexcept { std::memset(site_written_.get(), 0, site_capacity_); }

namespace {

// Two decimal digits at a time, the usual table.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// The number of decimal digits of u.
unsigned digit_count(std::uint64_t u) noexcept {
  unsigned n = 1;
  while (u >= 10000) {
    u /= 10000;
    n += 4;
  }
  if (u >= 100) n += u >= 1000 ? 3 : 2;
  else if (u >= 10) n += 1;
  return n;
}

// Writes ' ' and the decimal form of v at p; returns one past its end. The
// digits go straight to their place, two at a time, from the last: no
// temporary and no variable-length copy (a library call per field).
char* put_integer(char* p, std::int64_t v) noexcept {
  *p++ = ' ';
  std::uint64_t u = static_cast<std::uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    u = ~u + 1;
  }
  char* const end = p + digit_count(u);
  char* d = end;
  while (u > 0xffffffffu) {  // 64-bit division only for the high digits
    const auto pair = static_cast<std::size_t>(u % 100) * 2;
    u /= 100;
    *--d = kDigitPairs[pair + 1];
    *--d = kDigitPairs[pair];
  }
  auto w = static_cast<std::uint32_t>(u);  // ids and most times: 32-bit arithmetic
  while (w >= 100) {
    const auto pair = static_cast<std::size_t>(w % 100) * 2;
    w /= 100;
    *--d = kDigitPairs[pair + 1];
    *--d = kDigitPairs[pair];
  }
  if (w >= 10) {
    *--d = kDigitPairs[w * 2 + 1];
    *--d = kDigitPairs[w * 2];
  } else {
    *--d = static_cast<char>('0' + w);
  }
  return end;
}

template <std::size_t N>
char* put_literal(char* p, const char (&text)[N]) noexcept {
  std::memcpy(p, text, N - 1);
  return p + N - 1;
}

// A symbol of the fixed tables with its leading space, padded to a fixed
// size so that it is copied with one move whatever its length.
struct PaddedSymbol {
  char text[16] = {};
  std::uint8_t size = 0;
};

template <std::size_t N, class Name>
std::array<PaddedSymbol, N> padded_symbols(Name name) {
  std::array<PaddedSymbol, N> table{};
  for (std::size_t i = 0; i < N; ++i) {
    const std::string_view s = name(i);
    table[i].text[0] = ' ';
    const std::size_t n = std::min(s.size(), sizeof table[i].text - 1);
    std::memcpy(table[i].text + 1, s.data(), n);
    table[i].size = static_cast<std::uint8_t>(n + 1);
  }
  return table;
}

// Codes are a byte; every byte has an entry ("unknown" past the names).
// Built at static initialisation, before main, so neither the writer's hot
// loop (no guard to test) nor a crash handler (no initialisation to run)
// builds them.
const std::array<PaddedSymbol, 256> kKindSymbols =
    padded_symbols<256>([](std::size_t i) { return trace::kind_name(static_cast<trace::Kind>(i)); });
const std::array<PaddedSymbol, 256> kReasonSymbols =
    padded_symbols<256>([](std::size_t i) { return trace::reason_name(static_cast<trace::Reason>(i)); });
const std::array<PaddedSymbol, 3> kOutcomeSymbols =
    padded_symbols<3>([](std::size_t i) { return outcome_name(static_cast<Outcome>(i)); });

char* put_symbol(char* p, const PaddedSymbol& symbol) noexcept {
  std::memcpy(p, symbol.text, sizeof symbol.text);
  return p + symbol.size;
}

// The longest fast line: "(no-waiter", three integers of up to 21
// characters with their spaces, a symbol from the fixed tables (written as
// 16 bytes), ")".
constexpr std::size_t kFastLineBytes = 128;
static_assert(sizeof("(no-waiter") - 1 + 3 * 21 + sizeof(PaddedSymbol::text) + 1 <= kFastLineBytes);

}  // namespace

CapturedRecordWriter::CapturedRecordWriter(const StringArena& strings, const SiteTable& sites,
                                           std::size_t site_capacity)
    : id_cache_(new CachedId[kIdCacheSize]), strings_(strings), sites_(sites),
      site_written_(new std::uint8_t[site_capacity]()), site_capacity_(site_capacity) {
  for (std::size_t i = 0; i < kIdCacheSize; ++i) {
    CachedId& e = id_cache_[i];
    e = CachedId{};
    e.id = static_cast<std::int64_t>(i);
    e.size = static_cast<std::uint8_t>(put_integer(e.text, e.id) - e.text);
  }
}

inline char* CapturedRecordWriter::put_time(char* p, std::uint64_t ticks) noexcept {
  if (ticks != cached_ticks_) {
    cached_ticks_ = ticks;
    cached_time_size_ = static_cast<std::uint8_t>(put_integer(cached_time_, calibration_.to_ns(ticks)) - cached_time_);
  }
  std::memcpy(p, cached_time_, sizeof cached_time_);  // fixed size: one move; the excess is overwritten
  return p + cached_time_size_;
}

void CapturedRecordWriter::fill_id(std::int64_t id) noexcept {
  CachedId& e = id_cache_[static_cast<std::uint64_t>(id) & (kIdCacheSize - 1)];
  const CachedId& before = id_cache_[(static_cast<std::uint64_t>(id) - 1) & (kIdCacheSize - 1)];
  if (id > 0 && before.id == id - 1 && before.text[before.size - 1] != '9') {
    // A new thread is usually the one after the last: the digits of id - 1
    // with the last one counted up (no carry).
    std::memcpy(e.text, before.text, sizeof e.text);
    e.size = before.size;
    ++e.text[e.size - 1];
  } else {
    e.size = static_cast<std::uint8_t>(put_integer(e.text, id) - e.text);
  }
  e.id = id;
}

inline char* CapturedRecordWriter::put_id(char* p, std::int64_t id) noexcept {
  const CachedId& e = id_cache_[static_cast<std::uint64_t>(id) & (kIdCacheSize - 1)];
  if (e.id != id) [[unlikely]] fill_id(id);
  static_assert(sizeof e.text + sizeof e.size == 24);
  std::memcpy(p, e.text, 24);  // fixed size: one move; the excess is overwritten
  return p + e.size;
}

inline bool CapturedRecordWriter::write_fast(TraceWriter& out, const CapturedRecord& c) noexcept {
  char* const line = out.begin_line(kFastLineBytes);
  char* p = line;
  switch (static_cast<RecordHead>(c.head)) {
    case RecordHead::spawn:
      if (!(c.ref < site_capacity_ && c.ref < sites_.size() && site_written_[c.ref] != 0)) return false;
      p = put_time(put_literal(p, "(spawn"), c.ticks);
      p = put_id(put_id(p, c.a), c.b);
      p = put_id(put_symbol(p, kKindSymbols[c.code]), c.ref);  // small: always cached
      break;
    case RecordHead::wait:
      p = put_id(put_id(put_time(put_literal(p, "(wait"), c.ticks), c.a), c.b);
      break;
    case RecordHead::read:
      p = put_id(put_id(put_time(put_literal(p, "(read"), c.ticks), c.a), c.b);
      break;
    case RecordHead::notify:
      p = put_id(put_id(put_time(put_literal(p, "(notify"), c.ticks), c.a), c.b);
      p = put_symbol(p, kReasonSymbols[c.code]);
      break;
    case RecordHead::resolve: {
      const auto outcome = static_cast<Outcome>(c.code);
      if (outcome == Outcome::fail || c.code > 2) return false;  // a message to quote
      p = put_id(put_id(put_time(put_literal(p, "(resolve"), c.ticks), c.a), c.b);
      p = put_symbol(p, kOutcomeSymbols[c.code]);
      break;
    }
    case RecordHead::merge:
      p = put_id(put_id(put_time(put_literal(p, "(merge"), c.ticks), c.a), c.b);
      break;
    case RecordHead::switch_: p = put_id(put_time(put_literal(p, "(switch"), c.ticks), c.a); break;
    case RecordHead::idle: p = put_time(put_literal(p, "(idle"), c.ticks); break;
    case RecordHead::lost: p = put_integer(put_time(put_literal(p, "(lost"), c.ticks), c.a); break;
    case RecordHead::drop:
      p = put_id(put_id(put_time(put_literal(p, "(drop"), c.ticks), c.a), c.b);
      break;
    case RecordHead::no_waiter:  // an object is not a thread: its number bypasses the id cache
      p = put_integer(put_id(put_time(put_literal(p, "(no-waiter"), c.ticks), c.a), c.b);
      p = put_symbol(p, kReasonSymbols[c.code]);
      break;
    case RecordHead::queued:
      p = put_integer(put_id(put_time(put_literal(p, "(queued"), c.ticks), c.a), c.b);
      break;
    default: return false;
  }
  *p++ = ')';
  out.end_line(p);
  return true;
}

void CapturedRecordWriter::write(TraceWriter& out, const CapturedRecord& c) noexcept {
  if (!write_fast(out, c)) [[unlikely]] write_slow(out, c);
}

void CapturedRecordWriter::write_slow(TraceWriter& out, const CapturedRecord& c) noexcept {
  const TimeNs t = time_of(c);
  switch (static_cast<RecordHead>(c.head)) {
    case RecordHead::spawn: {
      std::optional<SiteId> site;
      if (c.ref < site_capacity_ && c.ref < sites_.size()) {
        if (site_written_[c.ref] == 0) {
          const SiteEntry& e = sites_.entry(c.ref);
          out.write(SiteRecord{c.ref, strings_.get(e.file), e.line, strings_.get(e.function)});
          site_written_[c.ref] = 1;
        }
        site = c.ref;
      }
      out.write(SpawnRecord{t, c.a, c.b, trace::kind_name(static_cast<trace::Kind>(c.code)), site});
      return;
    }
    case RecordHead::label: out.write(LabelRecord{t, c.a, strings_.get(c.ref)}); return;
    case RecordHead::switch_: out.write(SwitchRecord{t, c.a}); return;
    case RecordHead::wait: out.write(WaitRecord{t, c.a, c.b}); return;
    case RecordHead::read: out.write(ReadRecord{t, c.a, c.b}); return;
    case RecordHead::notify:
      out.write(NotifyRecord{t, c.a, c.b, trace::reason_name(static_cast<trace::Reason>(c.code))});
      return;
    case RecordHead::resolve: {
      const auto outcome = static_cast<Outcome>(c.code);
      std::optional<std::string_view> message;
      if (outcome == Outcome::fail) message = strings_.get(c.ref);
      out.write(ResolveRecord{t, c.a, c.b, outcome, message});
      return;
    }
    case RecordHead::merge: out.write(MergeRecord{t, c.a, c.b}); return;
    case RecordHead::counter: out.write(CounterRecord{t, strings_.get(c.ref), c.b}); return;
    case RecordHead::idle: out.write(IdleRecord{t}); return;
    case RecordHead::lost: out.write(LostRecord{t, c.a}); return;
    case RecordHead::gc: out.write(GcRecord{t, c.a}); return;
    case RecordHead::end: out.write(EndRecord{t}); return;
    case RecordHead::should_resolve: out.write(ShouldResolveRecord{t, c.a}); return;
    case RecordHead::drop: out.write(DropRecord{t, c.a, c.b}); return;
    case RecordHead::no_waiter:
      out.write(NoWaiterRecord{t, c.a, c.b, trace::reason_name(static_cast<trace::Reason>(c.code))});
      return;
    case RecordHead::queued: out.write(QueuedRecord{t, c.a, c.b}); return;
    case RecordHead::return_:
    case RecordHead::snapshot: return;  // the runtime records neither (FORMAT.md)
    case RecordHead::site: return;  // sites travel in the site table, not as records
  }
}

}  // namespace skein::capture
