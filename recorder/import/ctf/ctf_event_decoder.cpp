// ctf_event_decoder.cpp — one mirage-profile CTF event, gathered whole into
// the packet window and turned into one Record by its id; see
// ctf_importer.hpp for the layout and the mapping, ctf_event_decoder.hpp for
// the invariants.
#include "recorder/import/ctf/ctf_event_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <utility>

namespace skein {
namespace {

constexpr std::size_t kEventHeaderBytes = 9;  // timestamp, id
constexpr std::size_t kThreadBytes = 8;       // the context: the thread
constexpr std::size_t kGcId = 8;
constexpr std::size_t kMaxCounters = 4096;
// MProf.Trace.should_resolve labels the thread with this text ("Hack!", its
// source says); mirage-trace-viewer reads it as the same hint.
constexpr std::string_view kShouldResolveLabel = "__should_resolve";

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

}  // namespace

std::string_view ctf_event_name(std::size_t id) {
  return id < kEvents.size() ? kEvents[id].name : std::string_view("unknown");
}

CtfEventDecoder::CtfEventDecoder(TraceHeader& header, CtfWarn warn)
    : header_(header), warn_(std::move(warn)) {}

CtfEventDecoder::Decoded CtfEventDecoder::malformed(std::uint64_t offset, std::string message) {
  error_ = CtfEventError{offset, std::move(message)};
  return Decoded::malformed;
}

CtfEventDecoder::Decoded CtfEventDecoder::decode(CtfPacketWindow& in, std::uint64_t content_end,
                                                 Record& record) {
  EventBytes event;
  if (const Decoded gathered = gather(in, content_end, event); gathered != Decoded::record)
    return gathered;
  // Every byte of the event is in the window now: decode it.
  if (const Decoded decoded = to_record(in.data(), event, record); decoded != Decoded::record)
    return decoded;
  ++counts_[event.id];
  record_at_ = event.at;
  in.consume(event.size);
  return Decoded::record;
}

// One event, wholly inside the packet's content.
CtfEventDecoder::Decoded CtfEventDecoder::gather(CtfPacketWindow& in, std::uint64_t content_end,
                                                 EventBytes& event) {
  const std::uint64_t at = in.offset();
  if (at == content_end) return Decoded::packet_end;
  const std::uint64_t room = content_end - at;
  if (room < kEventHeaderBytes)
    return malformed(at, "an event header (9 bytes) runs past the end of the packet's content (byte " +
                             std::to_string(content_end) + ")");
  CtfPacketWindow::Have h = in.ensure(kEventHeaderBytes);
  if (h == CtfPacketWindow::Have::error) return Decoded::read_failed;
  if (h == CtfPacketWindow::Have::short_input) return Decoded::packet_end;
  const auto id = static_cast<unsigned char>(in.data()[8]);
  if (id >= kCtfEventIds)
    return malformed(at + 8, "unknown event id " + std::to_string(id) +
                                 " (mirage-profile's events are 0 to 13)");
  const EventLayout& layout = kEvents[id];
  if (room < layout.fixed_bytes)
    return malformed(at, "event '" + std::string(layout.name) + "' (" +
                             std::to_string(layout.fixed_bytes) +
                             " bytes) runs past the end of the packet's content (byte " +
                             std::to_string(content_end) + ")");
  h = in.ensure(layout.fixed_bytes);
  if (h == CtfPacketWindow::Have::error) return Decoded::read_failed;
  if (h == CtfPacketWindow::Have::short_input) return Decoded::packet_end;

  // The string, if any: up to its NUL, within the content and the size cap.
  std::size_t size = layout.fixed_bytes;
  std::size_t string_bytes = 0;
  if (layout.has_string) {
    const std::size_t limit = static_cast<std::size_t>(
        std::min<std::uint64_t>(room - layout.fixed_bytes, kMaxStringBytes + 1));
    std::size_t scanned = 0;
    for (;;) {
      const std::size_t look = std::min(in.available() - layout.fixed_bytes, limit);
      const void* nul = std::memchr(in.data() + layout.fixed_bytes + scanned, '\0', look - scanned);
      if (nul != nullptr) {
        string_bytes = static_cast<std::size_t>(static_cast<const char*>(nul) -
                                                (in.data() + layout.fixed_bytes));
        break;
      }
      scanned = look;
      if (look == limit) {
        if (limit == kMaxStringBytes + 1)
          return malformed(at + layout.fixed_bytes, "string longer than 65536 bytes");
        return malformed(at + layout.fixed_bytes,
                         "string not terminated before the end of the packet's content (byte " +
                             std::to_string(content_end) + ")");
      }
      h = in.ensure(layout.fixed_bytes + look + 1);
      if (h == CtfPacketWindow::Have::error) return Decoded::read_failed;
      // The input ended inside the string: the event is cut.
      if (h == CtfPacketWindow::Have::short_input) return Decoded::packet_end;
    }
    size += string_bytes + 1;
  }
  event = EventBytes{at, id, size, string_bytes};
  return Decoded::record;
}

CtfEventDecoder::Decoded CtfEventDecoder::to_record(const char* e, const EventBytes& event,
                                                    Record& record) {
  const std::uint64_t at = event.at;
  const std::size_t id = event.id;
  const EventLayout& layout = kEvents[id];
  const std::uint64_t timestamp = load_u64(e);
  const auto thread = static_cast<ThreadId>(load_u64(e + kEventHeaderBytes));
  const char* fields = e + kEventHeaderBytes + kThreadBytes;
  const std::string_view text(e + layout.fixed_bytes, event.string_bytes);

  if (!have_origin_) {
    have_origin_ = true;
    origin_ = timestamp;
    header_.set("source-origin-ns", std::to_string(timestamp));
  }
  TimeNs time = 0;
  if (timestamp < origin_) {
    warn_("byte " + std::to_string(at) + ": time goes back " + std::to_string(origin_ - timestamp) +
          " ns before the first event's: imported as time 0");
  } else if (timestamp - origin_ > static_cast<std::uint64_t>(kMaxTime)) {
    return malformed(at, "timestamp " + std::to_string(timestamp) +
                             " is too far from the first event's (more than " +
                             std::to_string(kMaxTime) + " ns after it)");
  } else {
    time = static_cast<TimeNs>(timestamp - origin_);
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
        std::memcpy(kind_.data(), kPrefix.data(), kPrefix.size());
        const std::string digits = std::to_string(type);
        std::memcpy(kind_.data() + kPrefix.size(), digits.data(), digits.size());
        kind = std::string_view(kind_.data(), kPrefix.size() + digits.size());
      }
      record = SpawnRecord{time, child, thread, kind, std::nullopt};
      break;
    }
    case 1:   // read
    case 12:  // read, no switch
      record = ReadRecord{time, thread, static_cast<ThreadId>(load_u64(fields))};
      break;
    case 10:  // try_read: THREAD found SOURCE still pending and waits on it
      record = WaitRecord{time, thread, static_cast<ThreadId>(load_u64(fields))};
      break;
    case 2:  // fulfills
      record = ResolveRecord{time, static_cast<ThreadId>(load_u64(fields)), thread, Outcome::ok,
                             std::nullopt};
      break;
    case 3:  // fails
      record = ResolveRecord{time, static_cast<ThreadId>(load_u64(fields)), thread, Outcome::fail,
                             text};
      break;
    case 4:  // becomes
      record = MergeRecord{time, thread, static_cast<ThreadId>(load_u64(fields))};
      break;
    case 5:  // label; mirage-profile's should_resolve is a label with a reserved text
      if (text == kShouldResolveLabel) record = ShouldResolveRecord{time, thread};
      else record = LabelRecord{time, thread, text};
      break;
    case 6:     // increase
    case 11: {  // counter
      const auto amount = static_cast<std::int64_t>(load_u64(fields));
      auto it = counters_.find(text);
      if (it == counters_.end()) {
        if (counters_.size() == kMaxCounters)
          return malformed(at + layout.fixed_bytes, "more than 4096 distinct counter names");
        it = counters_.emplace(std::string(text), 0).first;
      }
      if (id == 11) {
        it->second = amount;
      } else if (__builtin_add_overflow(it->second, amount, &it->second)) {
        return malformed(at + kEventHeaderBytes + kThreadBytes,
                         "counter '" + it->first + "' overflows a signed 64-bit total");
      }
      record = CounterRecord{time, it->first, it->second};
      break;
    }
    case 7:  // switch: the scheduler's, or a return inside a wakeup (lwt_switch.hpp)
      if (switches_.scheduler_switch(thread)) record = SwitchRecord{time, thread};
      else record = ReturnRecord{time, thread};
      break;
    case kGcId: {  // gc: no thread; the duration sits where the thread would
      const std::uint64_t duration = load_u64(e + kEventHeaderBytes);
      if (duration > static_cast<std::uint64_t>(kMaxTime))
        return malformed(at + kEventHeaderBytes,
                         "gc duration " + std::to_string(duration) + " ns is out of range");
      record = GcRecord{time, static_cast<std::int64_t>(duration)};
      break;
    }
    case 9:   // signal
    case 13:  // signal, no switch
      record = NotifyRecord{time, static_cast<ThreadId>(load_u64(fields)), thread, std::nullopt};
      break;
    default:
      break;  // unreachable: id < kCtfEventIds
  }
  // FORMAT.md, "Limits": no thread has the id that reads as -2^63.
  bool reserved = false;
  for_each_thread(record, [&](ThreadId t) { reserved |= !is_valid_thread_id(t); });
  if (reserved)
    return malformed(
        is_valid_thread_id(thread) ? at + kEventHeaderBytes + kThreadBytes : at + kEventHeaderBytes,
        "thread id 0x8000000000000000 is reserved (read as signed it is -9223372036854775808, "
        "which no thread may have)");
  return Decoded::record;
}

}  // namespace skein
