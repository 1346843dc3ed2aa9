// activation_block_codec.hpp — the activations of one block, packed into
// the `activations` blob of its activation_blocks row (SCHEMA.md,
// "activation_blocks").
//
// An activation is a stretch during which one thread runs (SCHEMA.md). A
// trace has about one for every two records, and one SQLite row each cost
// about 27 bytes: the largest table of the store. Consecutive activations
// differ little (the next record, a time a little later, a short run), so
// one blob per block of kActivationBlockSize, each field a difference from
// the one before, costs about a quarter of that, and the writer a row per
// block. Readers go through blocks anyway: a window's activations are an id
// range (the event blocks' first_activation..last_activation), and so are
// a thread's.
//
// The encoding of one activation, in order, each a zigzag varint
// (varint.hpp):
//   1. its event (the record that made its thread the running one), as
//      the difference from the previous activation's in the block (from 0
//      for the first);
//   2. its thread;
//   3. its start, as the difference from the previous activation's start
//      in the block (from 0 for the first);
//   4. its end, as the difference from its own start.
//
// A blob is untrusted input (a database made elsewhere). The decoder reads
// nothing past the blob's end and refuses, with the block and the byte: a
// varint past ten bytes or past the end; an event below 1; a thread equal
// to kReservedThreadId, the id no record may name; a start or an end
// outside 0..kMaxTime (record.hpp), or a difference that would leave it; a
// block with more or fewer activations than its first..last range; bytes
// left over after the last one. An end before its start is not refused:
// the store does not promise the order (activations_table.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"

namespace skein {

// Activations per activation_blocks row: block N holds activations
// (N-1)*kActivationBlockSize+1 onwards, every block full but the last.
inline constexpr std::int64_t kActivationBlockSize = 1024;
// The activation_blocks row that holds activation `id` (ids from 1).
[[nodiscard]] constexpr std::int64_t activation_block_of(std::int64_t id) {
  return (id - 1) / kActivationBlockSize + 1;
}

// One activation as the store keeps it.
struct StoredActivation {
  std::int64_t id = 0;
  std::int64_t event = 0;
  ThreadId thread = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

// Packs activations one at a time into the blob of one block.
class ActivationBlockEncoder {
 public:
  void add(std::int64_t event, ThreadId thread, TimeNs start, TimeNs end);
  [[nodiscard]] std::int64_t activations() const { return activations_; }
  // The blob so far, and a fresh start for the next block.
  [[nodiscard]] std::string take();

 private:
  std::string bytes_;
  std::int64_t previous_event_ = 0;
  TimeNs previous_start_ = 0;
  std::int64_t activations_ = 0;
};

// Where a blob came from, for messages: "damaged Skein database:
// activation_blocks row ID: byte N: WHY".
struct ActivationBlockPlace {
  std::string_view database;  // the file's name
  std::int64_t block = 0;     // activation_blocks.id
  std::int64_t first = 0;     // its first_activation
  std::int64_t last = 0;      // its last_activation
};

// Decodes the blob of `place` into `out` (cleared first), ids from
// place.first. Fails on any of the faults above.
[[nodiscard]] Status decode_activation_block(std::string_view blob, const ActivationBlockPlace& place,
                                             std::vector<StoredActivation>& out);

}  // namespace skein
