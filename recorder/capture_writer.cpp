// capture_writer.cpp — see capture_writer.hpp.
#include "recorder/capture_writer.hpp"

#include <cstring>

#include "runtime/trace_sink.hpp"

namespace skein::capture {

CapturedRecordWriter::CapturedRecordWriter(const StringArena& strings, const SiteTable& sites,
                                           std::size_t site_capacity)
    : strings_(strings), sites_(sites), site_written_(new std::uint8_t[site_capacity]()),
      site_capacity_(site_capacity) {}

void CapturedRecordWriter::reset_sites() noexcept { std::memset(site_written_.get(), 0, site_capacity_); }

namespace {

// Two decimal digits at a time, the usual table.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes ' ' and the decimal form of v at p; returns one past its end.
char* put_integer(char* p, std::int64_t v) noexcept {
  *p++ = ' ';
  std::uint64_t u = static_cast<std::uint64_t>(v);
  if (v < 0) {
    *p++ = '-';
    u = ~u + 1;
  }
  char digits[20];
  char* d = digits + sizeof digits;
  while (u >= 100) {
    const auto pair = static_cast<std::size_t>(u % 100) * 2;
    u /= 100;
    *--d = kDigitPairs[pair + 1];
    *--d = kDigitPairs[pair];
  }
  if (u >= 10) {
    *--d = kDigitPairs[u * 2 + 1];
    *--d = kDigitPairs[u * 2];
  } else {
    *--d = static_cast<char>('0' + u);
  }
  const auto n = static_cast<std::size_t>(digits + sizeof digits - d);
  std::memcpy(p, d, n);
  return p + n;
}

template <std::size_t N>
char* put_literal(char* p, const char (&text)[N]) noexcept {
  std::memcpy(p, text, N - 1);
  return p + N - 1;
}

char* put_symbol(char* p, std::string_view symbol) noexcept {
  *p++ = ' ';
  std::memcpy(p, symbol.data(), symbol.size());
  return p + symbol.size();
}

// The longest fast line: "(notify" or "(resolve", three integers of up to 21
// characters with their spaces, a symbol from the fixed tables, ")".
constexpr std::size_t kFastLineBytes = 128;

}  // namespace

char* CapturedRecordWriter::put_time(char* p, std::uint64_t ticks) noexcept {
  if (ticks != cached_ticks_) {
    cached_ticks_ = ticks;
    cached_time_size_ = static_cast<std::uint8_t>(put_integer(cached_time_, calibration_.to_ns(ticks)) - cached_time_);
  }
  std::memcpy(p, cached_time_, sizeof cached_time_);  // fixed size: one move; the excess is overwritten
  return p + cached_time_size_;
}

bool CapturedRecordWriter::write_fast(TraceWriter& out, const CapturedRecord& c) noexcept {
  char* const line = out.begin_line(kFastLineBytes);
  char* p = line;
  switch (static_cast<RecordHead>(c.head)) {
    case RecordHead::spawn:
      if (!(c.ref < site_capacity_ && c.ref < sites_.size() && site_written_[c.ref] != 0)) return false;
      p = put_time(put_literal(p, "(spawn"), c.ticks);
      p = put_integer(put_integer(p, c.a), c.b);
      p = put_integer(put_symbol(p, trace::kind_name(static_cast<trace::Kind>(c.code))), c.ref);
      break;
    case RecordHead::wait:
      p = put_integer(put_integer(put_time(put_literal(p, "(wait"), c.ticks), c.a), c.b);
      break;
    case RecordHead::read:
      p = put_integer(put_integer(put_time(put_literal(p, "(read"), c.ticks), c.a), c.b);
      break;
    case RecordHead::notify:
      p = put_integer(put_integer(put_time(put_literal(p, "(notify"), c.ticks), c.a), c.b);
      p = put_symbol(p, trace::reason_name(static_cast<trace::Reason>(c.code)));
      break;
    case RecordHead::resolve: {
      const auto outcome = static_cast<Outcome>(c.code);
      if (outcome == Outcome::fail) return false;  // a message to quote
      p = put_integer(put_integer(put_time(put_literal(p, "(resolve"), c.ticks), c.a), c.b);
      p = put_symbol(p, outcome_name(outcome));
      break;
    }
    case RecordHead::merge:
      p = put_integer(put_integer(put_time(put_literal(p, "(merge"), c.ticks), c.a), c.b);
      break;
    case RecordHead::switch_: p = put_integer(put_time(put_literal(p, "(switch"), c.ticks), c.a); break;
    case RecordHead::idle: p = put_time(put_literal(p, "(idle"), c.ticks); break;
    case RecordHead::lost: p = put_integer(put_time(put_literal(p, "(lost"), c.ticks), c.a); break;
    default: return false;
  }
  *p++ = ')';
  out.end_line(p);
  return true;
}

void CapturedRecordWriter::write(TraceWriter& out, const CapturedRecord& c) noexcept {
  if (write_fast(out, c)) return;
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
    case RecordHead::site: return;  // sites travel in the site table, not as records
  }
}

}  // namespace skein::capture
