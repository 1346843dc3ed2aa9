// ctf_event_decoder.hpp — turns mirage-profile's CTF events into Skein
// Records, one event at a time, by event id (the table and the mapping are
// in ctf_importer.hpp). CtfImporter frames the packets: it opens each one in
// counter order in a CtfPacketWindow (ctf_packet_window.hpp) and calls
// decode() until the packet's end; the decoder reads the event's header and
// payload through the window and keeps what spans events: the time origin,
// the counters' running totals, the switch classifier, the counts by id.
//
// Invariants:
//   1. decode() consumes an event's bytes only when it gives its record;
//      anything else leaves the window where the event starts.
//   2. An event is decoded only once every byte of it (up to its string's
//      NUL) lies in the window and within the packet's content.
//   3. The record's strings point into the window or into the decoder (a
//      counter's name, thread-type-N): valid until the next decode().
//   4. A record costs no allocation but a counter name's first appearance;
//      only warnings and errors build messages.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "recorder/format/record.hpp"
#include "recorder/import/ctf/ctf_importer.hpp"
#include "recorder/import/ctf/ctf_packet_index.hpp"
#include "recorder/import/ctf/ctf_packet_window.hpp"
#include "recorder/import/mirage_sexp/lwt_switch.hpp"

namespace skein {

// The names babeltrace2 prints for event ids 0 to 13; "unknown" beyond.
[[nodiscard]] std::string_view ctf_event_name(std::size_t id);

// What is wrong with an event: the byte of the stream it names, and why.
struct CtfEventError {
  std::uint64_t offset = 0;
  std::string message;
};

class CtfEventDecoder {
 public:
  enum class Decoded : std::uint8_t {
    record,       // the record is set and the event consumed
    packet_end,   // no event left: the content's end, or the input's inside it
    malformed,    // error() says where and why
    read_failed,  // the window's read_error() says why
  };

  // Sets `source-origin-ns` in `header` at the first event; `warn` takes a
  // warning's message, `byte N: ...`.
  CtfEventDecoder(TraceHeader& header, CtfWarn warn);

  // The next event of the packet open in `in`, whose content ends at byte
  // content_end of the stream.
  [[nodiscard]] Decoded decode(CtfPacketWindow& in, std::uint64_t content_end, Record& record);

  [[nodiscard]] const CtfEventError& error() const { return error_; }
  // Where the event whose record decode() gave last starts.
  [[nodiscard]] std::uint64_t record_offset() const { return record_at_; }
  [[nodiscard]] const std::array<std::uint64_t, kCtfEventIds>& counts() const { return counts_; }

 private:
  // An event whose bytes are all in the window, from its data() on.
  struct EventBytes {
    std::uint64_t at = 0;  // its offset in the stream
    std::size_t id = 0;
    std::size_t size = 0;          // every byte, the string's NUL included
    std::size_t string_bytes = 0;  // the string's, without its NUL
  };

  // Brings the next event wholly into the window: Decoded::record when it is.
  [[nodiscard]] Decoded gather(CtfPacketWindow& in, std::uint64_t content_end, EventBytes& event);
  // The record of a gathered event starting at `e`.
  [[nodiscard]] Decoded to_record(const char* e, const EventBytes& event, Record& record);
  [[nodiscard]] Decoded malformed(std::uint64_t offset, std::string message);

  TraceHeader& header_;
  CtfWarn warn_;
  CtfEventError error_;
  std::uint64_t record_at_ = 0;

  bool have_origin_ = false;
  std::uint64_t origin_ = 0;

  std::array<std::uint64_t, kCtfEventIds> counts_{};
  std::map<std::string, std::int64_t, std::less<>> counters_;  // running totals
  std::array<char, 32> kind_{};                                 // thread-type-N
  LwtSwitchClassifier switches_;
};

}  // namespace skein
