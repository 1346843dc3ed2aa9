// transfer_block_codec.hpp — the replay's verdicts (transfer_table.hpp),
// packed a run at a time into the `verdicts` blob of a transfer_blocks row
// (recorder/store/SCHEMA.md, "transfer_blocks").
//
// One SQLite row per verdict cost 33 bytes, pages included, and a lint of the
// generated benchmark trace keeps about 0.4 verdicts a record. Packed in
// key order (group, record, kind), most fields are small differences from
// the verdict before or from the thread, and a verdict takes about 11 bytes
// of the table, pages included.
//
// A block holds the verdicts of consecutive keys, at most
// kTransferBlockVerdicts and never splitting the verdicts of one (group,
// record) pair between two blocks; its row's key (grp, first_event) is
// its first verdict's. The encoding of one verdict, in order:
//   1. a byte: the kind (0-2) in bits 0-1; bit 2 set when it has a
//      from_thread, bit 3 an input, bit 4 a cause_event, bit 5 a suspect;
//      bit 6 set when its group differs from the verdict before (for the
//      first of a block: from the row's grp); bit 7 is 0;
//   2. a byte: the cause (ControlCause, 0-15);
//   3. with bit 6: the group's difference from the group before (varint, at
//      least 1), then the record's event id (varint); without: the event
//      id's difference from the verdict before's (varint; for the first of
//      a block, from the row's first_event, so 0);
//   4. the thread, as zigzag varint of thread - group;
//   5. each present, in order: from_thread - thread, input - thread,
//      event - cause_event, suspect - thread, each a zigzag varint.
// Varints and zigzag are recorder/store/varint.hpp's. Differences are
// taken in two's complement, wrapping, so any 64-bit value round-trips.
//
// A blob is untrusted input (a database made elsewhere). The decoder reads
// nothing past its end and refuses, naming the row and the byte: a varint
// past ten bytes or past the end; bit 7 set, or a kind of 3; a cause past
// 15; a first verdict whose key is not the row's; keys not strictly
// increasing; an event id below 1; a thread, or a present field, equal to
// the reserved id no record may name; bytes left over after the last
// verdict; an empty blob.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "viewer/analysis/causality_replay.hpp"

namespace skein {

inline constexpr std::size_t kTransferBlockVerdicts = 64;

enum class TransferKind : std::uint8_t { transfer = 0, unresolved_read = 1, hand_off = 2 };

// A verdict as stored: its key (grp, event, kind) and what it says. The
// two one-byte fields go last, so that a lint that keeps millions of them
// (LintOptions::keyed_transfers) holds 64 bytes each.
struct StoredTransfer {
  ThreadId grp = kNoThread;
  std::int64_t event = 0;
  ThreadId thread = kNoThread;
  ThreadId from = kNoThread;
  ThreadId input = kNoThread;
  std::int64_t cause_event = 0;  // 0: none
  ThreadId suspect = kNoThread;
  TransferKind kind = TransferKind::transfer;
  ControlCause cause = ControlCause::unexplained;

  friend bool operator==(const StoredTransfer&, const StoredTransfer&) = default;
};

// Whether `a`'s key comes before `b`'s: by group, record, then kind.
[[nodiscard]] bool transfer_key_less(const StoredTransfer& a, const StoredTransfer& b);

// Packs verdicts, given in strictly increasing key order, into one blob.
class TransferBlockEncoder {
 public:
  void add(const StoredTransfer& t);
  [[nodiscard]] std::size_t verdicts() const { return verdicts_; }
  [[nodiscard]] const StoredTransfer& first() const { return first_; }
  [[nodiscard]] const StoredTransfer& last() const { return previous_; }
  // The blob so far, and a fresh start for the next block.
  [[nodiscard]] std::string take();

 private:
  std::string bytes_;
  StoredTransfer first_;
  StoredTransfer previous_;
  std::size_t verdicts_ = 0;
};

// Where a blob came from, for messages: "damaged Skein database:
// transfer_blocks row (grp G, first_event E): byte N: WHY".
struct TransferBlockPlace {
  std::string_view database;  // the file's name
  ThreadId grp = 0;
  std::int64_t first_event = 0;
};

// Decodes the blob of `place` into `out` (cleared first). Fails on any of
// the faults above.
[[nodiscard]] Status decode_transfer_block(std::string_view blob, const TransferBlockPlace& place,
                                           std::vector<StoredTransfer>& out);

}  // namespace skein
