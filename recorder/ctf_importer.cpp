// ctf_importer.cpp — packets and events of mirage-profile's CTF out of a
// byte window, each event turned into one Record; see ctf_importer.hpp for
// the layout and the mapping.
#include "recorder/ctf_importer.hpp"

#include "recorder/lwt_switch.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <vector>

namespace skein {
namespace {

constexpr std::uint32_t kPacketMagic = 0xc1fc1fc1;
constexpr std::size_t kPacketHeaderBytes = 30;  // header (20) and context (10)
constexpr std::size_t kEventHeaderBytes = 9;    // timestamp, id
constexpr std::size_t kThreadBytes = 8;         // the context: the thread
constexpr std::size_t kGcId = 8;
constexpr std::size_t kMaxCounters = 4096;
// MProf.Trace.should_resolve labels the thread with this text ("Hack!", its
// source says); mirage-trace-viewer reads it as the same hint.
constexpr std::string_view kShouldResolveLabel = "__should_resolve";
// The window starts small (traces in tests and fuzzing are tiny) and doubles
// while reads fill it, up to a chunk of kWindowBytes; it also grows to hold
// one event with the longest string (fixed fields + kMaxStringBytes + NUL).
constexpr std::size_t kFirstWindowBytes = 16 * 1024;
constexpr std::size_t kWindowBytes = 256 * 1024;

struct EventLayout {
  std::string_view name;
  std::size_t fixed_bytes;  // header, thread and fixed fields
  bool has_string;          // a NUL-terminated string follows the fixed part
};

constexpr std::array<EventLayout, kCtfEventIds> kEvents = {{
    {"creates", 9 + 8 + 9, false},
    {"read", 9 + 8 + 8, false},
    {"fulfills", 9 + 8 + 8, false},
    {"fails", 9 + 8 + 8, true},
    {"becomes", 9 + 8 + 8, false},
    {"label", 9 + 8, true},
    {"increase", 9 + 8 + 8, true},
    {"switch", 9 + 8, false},
    {"gc", 9 + 8, false},
    {"signal", 9 + 8 + 8, false},
    {"try_read", 9 + 8 + 8, false},
    {"counter", 9 + 8 + 8, true},
    {"read_no_switch", 9 + 8 + 8, false},
    {"signal_no_switch", 9 + 8 + 8, false},
}};

constexpr std::array<std::string_view, 15> kThreadTypes = {
    "wait", "task", "bind", "try", "choose", "pick", "join", "map", "condition",
    "on_success", "on_failure", "on_termination", "on_any", "ignore_result", "async"};

std::uint64_t load_u64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
std::uint32_t load_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

std::string hex32(std::uint32_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xF];
  return out;
}

std::string uuid_text(const char* p) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto b = static_cast<unsigned char>(p[i]);
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

// A window on the stream: bytes [pos_, filled_) of buffer_ are the stream's
// bytes from offset() on. Only ensure() and skip() read, and they may move
// the bytes: hold offsets across them, never pointers.
class ByteWindow {
 public:
  enum class Have : std::uint8_t { ok, short_input, error };

  explicit ByteWindow(std::unique_ptr<ByteSource> source) : source_(std::move(source)) {}

  // At least n bytes from offset() (n is at most one event: well under
  // kWindowBytes); short_input when the input ends first.
  Have ensure(std::size_t n) {
    if (filled_ - pos_ >= n) return Have::ok;
    if (pos_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + pos_, filled_ - pos_);
      base_ += pos_;
      filled_ -= pos_;
      pos_ = 0;
    }
    if (buffer_.size() < n || (last_read_filled_ && buffer_.size() < kWindowBytes))
      buffer_.resize(std::max({n, kFirstWindowBytes, std::min(2 * buffer_.size(), kWindowBytes)}));
    while (filled_ < n) {
      if (eof_) return Have::short_input;
      const std::size_t room = buffer_.size() - filled_;
      auto got = source_->read(std::span<char>(buffer_.data() + filled_, room));
      if (!got) {
        error_ = got.error();
        return Have::error;
      }
      if (got.value() == 0) eof_ = true;
      last_read_filled_ = got.value() == room;
      filled_ += got.value();
    }
    return Have::ok;
  }

  // Drops n bytes.
  Have skip(std::uint64_t n) {
    for (;;) {
      const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(n, available()));
      pos_ += take;
      n -= take;
      if (n == 0) return Have::ok;
      const Have h = ensure(1);
      if (h != Have::ok) return h;
    }
  }

  [[nodiscard]] const char* data() const { return buffer_.data() + pos_; }
  [[nodiscard]] std::size_t available() const { return filled_ - pos_; }
  void consume(std::size_t n) { pos_ += n; }
  [[nodiscard]] std::uint64_t offset() const { return base_ + pos_; }
  [[nodiscard]] const Diagnostic& read_error() const { return error_; }
  [[nodiscard]] const ByteSource& source() const { return *source_; }

 private:
  std::unique_ptr<ByteSource> source_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t filled_ = 0;
  std::uint64_t base_ = 0;
  bool eof_ = false;
  bool last_read_filled_ = false;
  Diagnostic error_;
};

}  // namespace

struct CtfImporter::State {
  explicit State(std::unique_ptr<ByteSource> source) : in(std::move(source)) {}

  enum class Phase : std::uint8_t { packet_header, events, padding, done };

  ByteWindow in;
  Phase phase = Phase::packet_header;
  // The packet being read, as stream offsets.
  std::uint64_t packet_start = 0;
  std::uint64_t packet_bytes = 0;
  std::uint64_t content_end = 0;
  std::uint64_t packet_end = 0;
  std::uint64_t packets = 0;
  std::uint64_t record_at = 0;  // where the event last returned starts

  bool have_uuid = false;
  std::array<char, 16> uuid{};
  bool have_origin = false;
  std::uint64_t origin = 0;

  std::array<std::uint64_t, kCtfEventIds> counts{};
  std::map<std::string, std::int64_t, std::less<>> counters;  // running totals
  std::array<char, 32> kind{};                                  // thread-type-N
  LwtSwitchClassifier switches;
};

CtfImporter::CtfImporter(std::unique_ptr<ByteSource> source, std::string name)
    : TraceSource("mirage-ctf", std::move(name)), s_(std::make_unique<State>(std::move(source))) {
  header_.set("source-format", "mirage-ctf");
  // Lwt's main loop runs as thread 0 (lwt_switch.hpp).
  header_.set("scheduler-thread", "0");
}
CtfImporter::~CtfImporter() = default;

std::uint64_t CtfImporter::bytes_consumed() const { return s_->in.source().raw_offset(); }
const std::array<std::uint64_t, kCtfEventIds>& CtfImporter::event_counts() const {
  return s_->counts;
}
std::string_view CtfImporter::event_name(std::size_t id) {
  return id < kEvents.size() ? kEvents[id].name : std::string_view("unknown");
}
std::uint64_t CtfImporter::packet_count() const { return s_->packets; }
Diagnostic CtfImporter::record_location() const {
  return Diagnostic{Severity::warning, name(), 0, 0, "byte " + std::to_string(s_->record_at) + ": "};
}

TraceSource::Step CtfImporter::next() {
  State& s = *s_;
  // Errors are final, and name a byte of the stream.
  const auto fail_at = [&](std::uint64_t offset, const std::string& message) {
    s.phase = State::Phase::done;
    return fail(0, 0, "byte " + std::to_string(offset) + ": " + message);
  };
  const auto read_failed = [&] {
    s.phase = State::Phase::done;
    error_ = s.in.read_error();
    return Step::error;
  };
  // The input ended inside the current packet (after its header).
  const auto ended_in_packet = [&] {
    if (s.in.source().cut_short()) {
      s.phase = State::Phase::done;
      truncated_ = true;
      warn(0, 0, "the compressed stream ends early, inside the packet at byte " +
                     std::to_string(s.packet_start) + ": the trace was cut short");
      return Step::end;
    }
    return fail_at(s.packet_start + 20, "packet size " + std::to_string(s.packet_bytes) +
                                            " bytes goes past the end of the input (at byte " +
                                            std::to_string(s.in.offset() + s.in.available()) + ")");
  };

  for (;;) {
    switch (s.phase) {
      case State::Phase::done:
        return Step::end;

      case State::Phase::padding: {
        const ByteWindow::Have h = s.in.skip(s.packet_end - s.in.offset());
        if (h == ByteWindow::Have::error) return read_failed();
        if (h == ByteWindow::Have::short_input) return ended_in_packet();
        s.phase = State::Phase::packet_header;
        continue;
      }

      case State::Phase::packet_header: {
        const std::uint64_t at = s.in.offset();
        const ByteWindow::Have h = s.in.ensure(kPacketHeaderBytes);
        if (h == ByteWindow::Have::error) return read_failed();
        if (h == ByteWindow::Have::short_input) {
          const std::size_t got = s.in.available();
          if (s.in.source().cut_short()) {
            s.phase = State::Phase::done;
            truncated_ = true;
            warn(0, 0, "the compressed stream ends early: the trace was cut short");
            return Step::end;
          }
          if (got == 0) {
            s.phase = State::Phase::done;
            return Step::end;
          }
          return fail_at(at, "the input ends inside a packet header (after " + std::to_string(got) +
                                 " of its " + std::to_string(kPacketHeaderBytes) + " bytes)");
        }
        const char* p = s.in.data();
        const std::uint32_t magic = load_u32(p);
        if (magic != kPacketMagic)
          return fail_at(at, "bad packet magic " + hex32(magic) +
                                 ": a mirage-profile CTF packet starts with c1 1f fc c1");
        if (!s.have_uuid) {
          s.have_uuid = true;
          std::memcpy(s.uuid.data(), p + 4, s.uuid.size());
          header_.set("source-uuid", uuid_text(p + 4));
        } else if (std::memcmp(s.uuid.data(), p + 4, s.uuid.size()) != 0) {
          warn(0, 0, "byte " + std::to_string(at + 4) + ": the packet's uuid " + uuid_text(p + 4) +
                         " differs from the first packet's");
        }
        const std::uint32_t packet_bits = load_u32(p + 20);
        const std::uint32_t content_bits = load_u32(p + 26);
        if (packet_bits % 8 != 0)
          return fail_at(at + 20, "packet size " + std::to_string(packet_bits) +
                                      " bits is not a whole number of bytes");
        if (content_bits % 8 != 0)
          return fail_at(at + 26, "content size " + std::to_string(content_bits) +
                                      " bits is not a whole number of bytes");
        if (content_bits / 8 < kPacketHeaderBytes)
          return fail_at(at + 26, "content size " + std::to_string(content_bits / 8) +
                                      " bytes is smaller than the packet header and context (30 bytes)");
        if (content_bits > packet_bits)
          return fail_at(at + 26, "content size " + std::to_string(content_bits / 8) +
                                      " bytes exceeds the packet size (" +
                                      std::to_string(packet_bits / 8) + " bytes)");
        s.packet_start = at;
        s.packet_bytes = packet_bits / 8;
        s.content_end = at + content_bits / 8;
        s.packet_end = at + packet_bits / 8;
        ++s.packets;
        s.in.consume(kPacketHeaderBytes);
        s.phase = State::Phase::events;
        continue;
      }

      case State::Phase::events:
        break;
    }

    // One event, wholly inside the packet's content.
    const std::uint64_t at = s.in.offset();
    if (at == s.content_end) {
      s.phase = State::Phase::padding;
      continue;
    }
    const std::uint64_t room = s.content_end - at;
    if (room < kEventHeaderBytes)
      return fail_at(at, "an event header (9 bytes) runs past the end of the packet's content (byte " +
                             std::to_string(s.content_end) + ")");
    ByteWindow::Have h = s.in.ensure(kEventHeaderBytes);
    if (h == ByteWindow::Have::error) return read_failed();
    if (h == ByteWindow::Have::short_input) return ended_in_packet();
    const auto id = static_cast<unsigned char>(s.in.data()[8]);
    if (id >= kCtfEventIds)
      return fail_at(at + 8, "unknown event id " + std::to_string(id) +
                                 " (mirage-profile's events are 0 to 13)");
    const EventLayout& layout = kEvents[id];
    if (room < layout.fixed_bytes)
      return fail_at(at, "event '" + std::string(layout.name) + "' (" +
                             std::to_string(layout.fixed_bytes) +
                             " bytes) runs past the end of the packet's content (byte " +
                             std::to_string(s.content_end) + ")");
    h = s.in.ensure(layout.fixed_bytes);
    if (h == ByteWindow::Have::error) return read_failed();
    if (h == ByteWindow::Have::short_input) return ended_in_packet();

    // The string, if any: up to its NUL, within the content and the size cap.
    std::size_t size = layout.fixed_bytes;
    std::size_t string_bytes = 0;
    if (layout.has_string) {
      const std::size_t limit = static_cast<std::size_t>(
          std::min<std::uint64_t>(room - layout.fixed_bytes, kMaxStringBytes + 1));
      std::size_t scanned = 0;
      for (;;) {
        const std::size_t look = std::min(s.in.available() - layout.fixed_bytes, limit);
        const void* nul =
            std::memchr(s.in.data() + layout.fixed_bytes + scanned, '\0', look - scanned);
        if (nul != nullptr) {
          string_bytes = static_cast<std::size_t>(static_cast<const char*>(nul) -
                                                  (s.in.data() + layout.fixed_bytes));
          break;
        }
        scanned = look;
        if (look == limit) {
          if (limit == kMaxStringBytes + 1)
            return fail_at(at + layout.fixed_bytes, "string longer than 65536 bytes");
          return fail_at(at + layout.fixed_bytes,
                         "string not terminated before the end of the packet's content (byte " +
                             std::to_string(s.content_end) + ")");
        }
        h = s.in.ensure(layout.fixed_bytes + look + 1);
        if (h == ByteWindow::Have::error) return read_failed();
        if (h == ByteWindow::Have::short_input) return ended_in_packet();
      }
      size += string_bytes + 1;
    }

    // Every byte of the event is in the window now: decode it.
    const char* e = s.in.data();
    const std::uint64_t timestamp = load_u64(e);
    const auto thread = static_cast<ThreadId>(load_u64(e + kEventHeaderBytes));
    const char* fields = e + kEventHeaderBytes + kThreadBytes;
    const std::string_view text(e + layout.fixed_bytes, string_bytes);

    if (!s.have_origin) {
      s.have_origin = true;
      s.origin = timestamp;
      header_.set("source-origin-ns", std::to_string(timestamp));
    }
    TimeNs time = 0;
    if (timestamp < s.origin) {
      warn(0, 0, "byte " + std::to_string(at) + ": time goes back " +
                     std::to_string(s.origin - timestamp) +
                     " ns before the first event's: imported as time 0");
    } else if (timestamp - s.origin > static_cast<std::uint64_t>(std::numeric_limits<TimeNs>::max())) {
      return fail_at(at, "timestamp " + std::to_string(timestamp) + " is too far from the first event's");
    } else {
      time = static_cast<TimeNs>(timestamp - s.origin);
    }

    switch (id) {
      case 0: {  // creates
        const auto child = static_cast<ThreadId>(load_u64(fields));
        const auto type = static_cast<unsigned char>(fields[8]);
        std::string_view kind;
        if (type < kThreadTypes.size()) {
          kind = kThreadTypes[type];
        } else {
          static constexpr std::string_view kPrefix = "thread-type-";
          std::memcpy(s.kind.data(), kPrefix.data(), kPrefix.size());
          const std::string digits = std::to_string(type);
          std::memcpy(s.kind.data() + kPrefix.size(), digits.data(), digits.size());
          kind = std::string_view(s.kind.data(), kPrefix.size() + digits.size());
        }
        record_ = SpawnRecord{time, child, thread, kind, std::nullopt};
        break;
      }
      case 1:   // read
      case 12:  // read, no switch
        record_ = ReadRecord{time, thread, static_cast<ThreadId>(load_u64(fields))};
        break;
      case 10:  // try_read: THREAD found SOURCE still pending and waits on it
        record_ = WaitRecord{time, thread, static_cast<ThreadId>(load_u64(fields))};
        break;
      case 2:  // fulfills
        record_ = ResolveRecord{time, static_cast<ThreadId>(load_u64(fields)), thread, Outcome::ok,
                                std::nullopt};
        break;
      case 3:  // fails
        record_ = ResolveRecord{time, static_cast<ThreadId>(load_u64(fields)), thread,
                                Outcome::fail, text};
        break;
      case 4:  // becomes
        record_ = MergeRecord{time, thread, static_cast<ThreadId>(load_u64(fields))};
        break;
      case 5:  // label; mirage-profile's should_resolve is a label with a reserved text
        if (text == kShouldResolveLabel) record_ = ShouldResolveRecord{time, thread};
        else record_ = LabelRecord{time, thread, text};
        break;
      case 6:    // increase
      case 11: {  // counter
        const auto amount = static_cast<std::int64_t>(load_u64(fields));
        auto it = s.counters.find(text);
        if (it == s.counters.end()) {
          if (s.counters.size() == kMaxCounters)
            return fail_at(at + layout.fixed_bytes, "more than 4096 distinct counter names");
          it = s.counters.emplace(std::string(text), 0).first;
        }
        if (id == 11) {
          it->second = amount;
        } else if (__builtin_add_overflow(it->second, amount, &it->second)) {
          return fail_at(at + kEventHeaderBytes + kThreadBytes,
                         "counter '" + it->first + "' overflows a signed 64-bit total");
        }
        record_ = CounterRecord{time, it->first, it->second};
        break;
      }
      case 7:  // switch: the scheduler's, or a return inside a wakeup (lwt_switch.hpp)
        if (s.switches.scheduler_switch(thread)) record_ = SwitchRecord{time, thread};
        else record_ = ReturnRecord{time, thread};
        break;
      case kGcId: {  // gc: no thread; the duration sits where the thread would
        const std::uint64_t duration = load_u64(e + kEventHeaderBytes);
        if (duration > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          return fail_at(at + kEventHeaderBytes, "gc duration " + std::to_string(duration) +
                                                     " ns is out of range");
        record_ = GcRecord{time, static_cast<std::int64_t>(duration)};
        break;
      }
      case 9:   // signal
      case 13:  // signal, no switch
        record_ = NotifyRecord{time, static_cast<ThreadId>(load_u64(fields)), thread, std::nullopt};
        break;
      default:
        break;  // unreachable: id < kCtfEventIds
    }
    ++s.counts[id];
    s.record_at = at;
    s.in.consume(size);
    return Step::record;
  }
}

}  // namespace skein
