// event_block_codec.hpp — the records of one event block, packed into the
// `records` blob of its event_blocks row (SCHEMA.md, "event_blocks").
//
// Every record of a trace is kept, in order, as a TraceEvent
// (events_table.hpp: the head and the columns it fills). One SQLite row per
// record cost about 26 bytes and half a microsecond to write; one blob per
// block of kEventBlockSize records costs about a third of the bytes, and
// the import's writer thread a row per thousand records. The block is also
// the unit every window read already goes through (the block index), so a
// window decodes only its own blocks.
//
// The encoding of one record, in order:
//   1. a byte: the head (0-19) in bits 0-4; bit 5 set when it has a time,
//      bit 6 an actor, bit 7 a target;
//   2. a byte: bit 0 set when it has a value, bit 1 a text; the other bits
//      are 0;
//   3. the time, when it has one, as the difference from the previous timed
//      record of the block (from 0 for the first), zigzag varint;
//   4. the actor, the target and the value, each when present, zigzag
//      varint;
//   5. the text, when present: its length in bytes (varint), then the bytes.
// A varint is LEB128: seven bits a byte, least significant first, the high
// bit set on every byte but the last; at most ten bytes. Zigzag maps a
// signed n to (n << 1) ^ (n >> 63), so small magnitudes of either sign take
// one byte (the scheduler, -1, included).
//
// A blob is untrusted input (a database made elsewhere). The decoder reads
// nothing past the blob's end and refuses, with the block and the byte:
// a varint past ten bytes or past the end; a head past 19 or a flag bit set
// that the encoding never sets; a time outside 0..kMaxTime (record.hpp) or
// a time difference that would leave it; an actor or target equal to
// kNoThread, the id no record may name; a gc duration outside 0..kMaxTime;
// a text longer than what is left; a block with more or fewer records than
// its first_event..last_event range; bytes left over after the last record.
// So every event a reader sees obeys the ranges of its fields, checked
// where it is read; opening a database reads no record.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

// Packs records one at a time into the blob of one block.
class EventBlockEncoder {
 public:
  void add(const TraceEvent& e);
  [[nodiscard]] std::int64_t records() const { return records_; }
  // The blob so far, and a fresh start for the next block.
  [[nodiscard]] std::string take();

 private:
  std::string bytes_;
  TimeNs previous_time_ = 0;
  std::int64_t records_ = 0;
};

// Where a blob came from, for messages: "damaged Skein database:
// event_blocks row ID: byte N: WHY".
struct EventBlockPlace {
  std::string_view database;  // the file's name
  std::int64_t block = 0;     // event_blocks.id
  std::int64_t first_event = 0;
  std::int64_t last_event = 0;
};

// Decodes the blob of `place` into `out` (cleared first), ids from
// place.first_event. Texts view `blob`, which must outlive their use. Fails
// on any of the faults above.
[[nodiscard]] Status decode_event_block(std::string_view blob, const EventBlockPlace& place,
                                        std::vector<TraceEvent>& out);

}  // namespace skein
