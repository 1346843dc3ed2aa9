// ctf_importer.cpp — the events of mirage-profile's CTF packets, read packet
// by packet in counter order through a window on the packet index's spool
// (ctf_packet_index.hpp), each event turned into one Record; see
// ctf_importer.hpp for the layout, the order and the mapping.
#include "recorder/import/ctf/ctf_importer.hpp"

#include "recorder/import/ctf/ctf_packet_index.hpp"
#include "recorder/import/mirage_sexp/lwt_switch.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace skein {
namespace {

constexpr std::size_t kEventHeaderBytes = 9;  // timestamp, id
constexpr std::size_t kThreadBytes = 8;       // the context: the thread
constexpr std::size_t kGcId = 8;
constexpr std::size_t kMaxCounters = 4096;
// MProf.Trace.should_resolve labels the thread with this text ("Hack!", its
// source says); mirage-trace-viewer reads it as the same hint.
constexpr std::string_view kShouldResolveLabel = "__should_resolve";
// The window over a packet's events reads a chunk of kWindowBytes at a time
// (less for a smaller packet); it grows to hold one event with the longest
// string (fixed fields + kMaxStringBytes + NUL) if need be.
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
// A window on one packet's events, read back from the index's spool: bytes
// [pos_, filled_) of buffer_ are the stream's bytes from offset() on. Only
// ensure() reads, and it may move the bytes: hold offsets across it, never
// pointers. short_input means the packet's stored bytes are exhausted,
// which happens only in the packet the input ended inside.
class PacketWindow {
 public:
  enum class Have : std::uint8_t { ok, short_input, error };

  explicit PacketWindow(const CtfPacketIndex& index) : index_(index) {}

  void open(const CtfPacket& packet) {
    packet_ = &packet;
    base_ = packet.events_offset();
    pos_ = 0;
    filled_ = 0;
    read_ = 0;
  }

  // At least n bytes from offset() (n is at most one event: well under
  // kWindowBytes).
  Have ensure(std::size_t n) {
    if (filled_ - pos_ >= n) return Have::ok;
    if (pos_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + pos_, filled_ - pos_);
      base_ += pos_;
      filled_ -= pos_;
      pos_ = 0;
    }
    const std::size_t left = packet_->stored_bytes - read_;
    if (filled_ + left < n) return Have::short_input;
    // A window as large as the packet's events, up to a chunk, or one event.
    const std::size_t size = std::max(n, std::min(filled_ + left, kWindowBytes));
    if (buffer_.size() < size) buffer_.resize(size);
    while (filled_ < n) {
      const std::size_t room =
          std::min<std::size_t>(buffer_.size() - filled_, packet_->stored_bytes - read_);
      auto got =
          index_.read_events(*packet_, read_, std::span<char>(buffer_.data() + filled_, room));
      if (!got) {
        error_ = got.error();
        return Have::error;
      }
      filled_ += got.value();
      read_ += static_cast<std::uint32_t>(got.value());
    }
    return Have::ok;
  }

  [[nodiscard]] const char* data() const { return buffer_.data() + pos_; }
  [[nodiscard]] std::size_t available() const { return filled_ - pos_; }
  void consume(std::size_t n) { pos_ += n; }
  [[nodiscard]] std::uint64_t offset() const { return base_ + pos_; }
  [[nodiscard]] const Diagnostic& read_error() const { return error_; }

 private:
  const CtfPacketIndex& index_;
  const CtfPacket* packet_ = nullptr;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t filled_ = 0;
  std::uint32_t read_ = 0;  // the packet's event bytes read into buffer_ so far
  std::uint64_t base_ = 0;
  Diagnostic error_;
};

}  // namespace

struct CtfImporter::State {
  State(std::unique_ptr<ByteSource> input, const std::string& name)
      : source(std::move(input)), index(name), in(index) {}

  // index: the first pass is still to run; next_packet: between packets;
  // events: inside packet `order[next_in_order - 1]`.
  enum class Phase : std::uint8_t { index, next_packet, events, done };

  std::unique_ptr<ByteSource> source;
  CtfPacketIndex index;
  PacketWindow in;
  Phase phase = Phase::index;
  std::vector<std::size_t> order;  // indices into index.packets(), by counter
  std::size_t next_in_order = 0;
  std::size_t packet_at = 0;          // the packet being read, as an index into index.packets()
  const CtfPacket* packet = nullptr;  // index.packets()[packet_at]
  std::uint64_t record_at = 0;        // where the event last returned starts

  bool have_origin = false;
  std::uint64_t origin = 0;

  std::array<std::uint64_t, kCtfEventIds> counts{};
  std::map<std::string, std::int64_t, std::less<>> counters;  // running totals
  std::array<char, 32> kind{};                                  // thread-type-N
  LwtSwitchClassifier switches;
};

CtfImporter::CtfImporter(std::unique_ptr<ByteSource> source, std::string name)
    : TraceSource("mirage-ctf", std::move(name)),
      s_(std::make_unique<State>(std::move(source), this->name())) {
  header_.set("source-format", "mirage-ctf");
  // Lwt's main loop runs as thread 0 (lwt_switch.hpp).
  header_.set("scheduler-thread", "0");
}
CtfImporter::~CtfImporter() = default;

std::uint64_t CtfImporter::bytes_consumed() const { return s_->source->raw_offset(); }
const std::array<std::uint64_t, kCtfEventIds>& CtfImporter::event_counts() const {
  return s_->counts;
}
std::string_view CtfImporter::event_name(std::size_t id) {
  return id < kEvents.size() ? kEvents[id].name : std::string_view("unknown");
}
std::uint64_t CtfImporter::packet_count() const { return s_->index.packets().size(); }
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
  const auto fail_with = [&](const Diagnostic& error) {
    s.phase = State::Phase::done;
    error_ = error;
    return Step::error;
  };
  // The packet's events are all read (or, in the packet the input ended
  // inside, all that were complete): the error that stopped the scan there
  // comes now; else the next packet.
  const auto end_of_packet = [&]() -> std::optional<Step> {
    if (s.index.partial_packet() == s.packet_at && s.index.stop_error())
      return fail_with(*s.index.stop_error());
    s.phase = State::Phase::next_packet;
    return std::nullopt;
  };

  for (;;) {
    switch (s.phase) {
      case State::Phase::done:
        return Step::end;

      case State::Phase::index: {
        const CtfWarn warn_of_scan = [this](std::string message) {
          warn(0, 0, std::move(message));
        };
        const Status scanned = s.index.scan(*s.source, warn_of_scan);
        if (!scanned) return fail_with(scanned.error());
        truncated_ = s.index.cut_short();
        if (!s.index.first_uuid().empty()) header_.set("source-uuid", s.index.first_uuid());
        s.order = ctf_counter_order(s.index.packets(), warn_of_scan);
        s.phase = State::Phase::next_packet;
        continue;
      }

      case State::Phase::next_packet: {
        if (s.next_in_order == s.order.size()) {
          // An error between packets (a malformed header, the input ending
          // inside one, a read error there) stopped the scan after the last
          // packet in file order: it comes after every packet.
          if (s.index.stop_error() && !s.index.partial_packet())
            return fail_with(*s.index.stop_error());
          s.phase = State::Phase::done;
          return Step::end;
        }
        s.packet_at = s.order[s.next_in_order++];
        s.packet = &s.index.packets()[s.packet_at];
        s.in.open(*s.packet);
        s.phase = State::Phase::events;
        continue;
      }

      case State::Phase::events:
        break;
    }

    // One event, wholly inside the packet's content.
    const std::uint64_t content_end = s.packet->content_end();
    const std::uint64_t at = s.in.offset();
    if (at == content_end) {
      if (auto step = end_of_packet()) return *step;
      continue;
    }
    const std::uint64_t room = content_end - at;
    if (room < kEventHeaderBytes)
      return fail_at(at, "an event header (9 bytes) runs past the end of the packet's content (byte " +
                             std::to_string(content_end) + ")");
    PacketWindow::Have h = s.in.ensure(kEventHeaderBytes);
    if (h == PacketWindow::Have::error) return fail_with(s.in.read_error());
    if (h == PacketWindow::Have::short_input) {
      if (auto step = end_of_packet()) return *step;
      continue;
    }
    const auto id = static_cast<unsigned char>(s.in.data()[8]);
    if (id >= kCtfEventIds)
      return fail_at(at + 8, "unknown event id " + std::to_string(id) +
                                 " (mirage-profile's events are 0 to 13)");
    const EventLayout& layout = kEvents[id];
    if (room < layout.fixed_bytes)
      return fail_at(at, "event '" + std::string(layout.name) + "' (" +
                             std::to_string(layout.fixed_bytes) +
                             " bytes) runs past the end of the packet's content (byte " +
                             std::to_string(content_end) + ")");
    h = s.in.ensure(layout.fixed_bytes);
    if (h == PacketWindow::Have::error) return fail_with(s.in.read_error());
    if (h == PacketWindow::Have::short_input) {
      if (auto step = end_of_packet()) return *step;
      continue;
    }

    // The string, if any: up to its NUL, within the content and the size cap.
    std::size_t size = layout.fixed_bytes;
    std::size_t string_bytes = 0;
    bool cut_in_string = false;
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
                             std::to_string(content_end) + ")");
        }
        h = s.in.ensure(layout.fixed_bytes + look + 1);
        if (h == PacketWindow::Have::error) return fail_with(s.in.read_error());
        if (h == PacketWindow::Have::short_input) {
          cut_in_string = true;
          break;
        }
      }
      size += string_bytes + 1;
    }
    if (cut_in_string) {
      if (auto step = end_of_packet()) return *step;
      continue;
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
    } else if (timestamp - s.origin > static_cast<std::uint64_t>(kMaxTime)) {
      return fail_at(at, "timestamp " + std::to_string(timestamp) + " is too far from the first event's (more than " +
                             std::to_string(kMaxTime) + " ns after it)");
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
        if (duration > static_cast<std::uint64_t>(kMaxTime))
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
    // FORMAT.md, "Limits": no thread has the id that reads as -2^63.
    bool reserved = false;
    for_each_thread(record_, [&](ThreadId t) { reserved |= !is_valid_thread_id(t); });
    if (reserved)
      return fail_at(is_valid_thread_id(thread) ? at + kEventHeaderBytes + kThreadBytes : at + kEventHeaderBytes,
                     "thread id 0x8000000000000000 is reserved (read as signed it is -9223372036854775808, "
                     "which no thread may have)");
    ++s.counts[id];
    s.record_at = at;
    s.in.consume(size);
    return Step::record;
  }
}

}  // namespace skein
