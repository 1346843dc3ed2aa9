// transfer_table.hpp — why control changed hands, for every change in a
// trace: the causality replay's verdicts (causality_replay.hpp), kept in
// the trace database's `transfer_blocks` table (recorder/store/SCHEMA.md)
// by the lint that computed them, so that "why?" is a few lookups by key
// instead of a replay of the whole trace.
//
// A verdict's key is the merge group of the thread it is about (`grp`: the
// group's smallest thread id, from each thread's latest merge in
// `threads`, as the why-engine groups them; -1 for the scheduler), then
// the record it is about and its kind, so that "the latest change of
// control to this thread's group before record r" is one descent of the
// key:
//   kind 0  a transfer: control went to `thread` at `event`;
//   kind 1  a read, at `event`, of a thread no record resolved (from ==
//           thread: no control changed hands for it);
//   kind 2  a hand-off after polling: the record at `event`, a resolve or
//           notify by `thread`, owes a cause.
// `cause` is the ControlCause code (0: unexplained), `cause_event` the
// record that explains it (0 when none), `suspect` who most likely owes
// the missing record when unexplained.
//
// The verdicts are packed in key order, a run of consecutive keys a row
// (transfer_block_codec.hpp): a lookup descends the table's key to the one
// block that holds its key, decodes it, and walks to a neighbouring block
// only when the group's verdicts go on there.
//
// Like the findings, it is not part of the imported schema (its definition
// is recorder/store/derived_tables.hpp's): `skein why` and skein-view
// write it when they first need it, replacing the whole table.
//
// Invariants: blocks are written in key order, and never split the
// verdicts of one (group, record); `grp` is the same function of a thread
// for the writer and the readers (merge_group_roots); reading checks the
// table's columns first and treats a table of other columns as absent; a
// damaged block is an error naming its row and byte, never a wrong
// verdict; every statement is prepared.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/causality_replay.hpp"
#include "viewer/analysis/merge_groups.hpp"
#include "viewer/analysis/transfer_block_codec.hpp"

namespace skein {

[[nodiscard]] TransferKind transfer_kind(const ControlTransfer& t);

// The verdict as the table keeps it, keyed by `groups` (merge_group_roots);
// nullopt for one the table does not keep (no record, or no thread).
[[nodiscard]] std::optional<StoredTransfer> keyed_transfer(const ControlTransfer& t, MergeGroups& groups);

// Replaces the table's rows with `transfers` (inside the caller's
// transaction). `transfers` need not be sorted. `schema` names the
// schema to write into ("" the main one): a database that cannot be
// written keeps its causes in its connection's "temp" schema.
[[nodiscard]] Status write_transfers(SqliteDatabase& db, std::vector<ControlTransfer> transfers,
                                     const std::string& schema = "");
// The same for verdicts keyed already (keyed_transfer(), with this
// database's merge groups), in any order.
[[nodiscard]] Status write_transfers(SqliteDatabase& db, std::vector<StoredTransfer> transfers,
                                     const std::string& schema = "");

// The merge groups of a database's threads, as `grp` keys them: each
// thread joined with its latest merge's INTO (threads.merged_into).
[[nodiscard]] Result<MergeGroups> merge_group_roots(SqliteDatabase& db);

// Lookups over a database's `transfer_blocks` table (prepared once).
class TransferLookup {
 public:
  // Absent (nullopt) when the database has no such table, or one with
  // other columns.
  [[nodiscard]] static Result<std::optional<TransferLookup>> open(SqliteDatabase& db);

  // The verdict of `kind` at `event` about a thread of group `grp`.
  [[nodiscard]] Result<std::optional<StoredTransfer>> at(ThreadId grp, std::int64_t event, TransferKind kind);
  // The latest transfer (kind 0) to a thread of group `grp` at or before
  // `event`.
  [[nodiscard]] Result<std::optional<StoredTransfer>> latest_to(ThreadId grp, std::int64_t event);
  // The first transfer (kind 0) to a thread of group `grp` after `event`.
  [[nodiscard]] Result<std::optional<StoredTransfer>> next_to(ThreadId grp, std::int64_t event);

 private:
  struct Block {
    ThreadId grp = 0;
    std::int64_t first_event = 0;
    std::vector<StoredTransfer> verdicts;
  };
  TransferLookup(std::string database, SqliteStatement containing, SqliteStatement before, SqliteStatement after)
      : database_(std::move(database)),
        containing_(std::move(containing)),
        before_(std::move(before)),
        after_(std::move(after)) {}
  // The block `q` finds for the key (grp, event), decoded into `into`;
  // false when there is none.
  Result<bool> find(SqliteStatement& q, ThreadId grp, std::int64_t event, Block& into);
  // The block that holds the key (grp, event): the last one decoded when
  // the key lies between its first and last verdicts (blocks hold disjoint
  // runs of keys, so no other can), else the one the table's key finds.
  Result<bool> containing(ThreadId grp, std::int64_t event, Block& into);
  // The block after or before `b`, which must hold keys beyond b's.
  Result<bool> neighbour(bool later, const Block& b, Block& into);

  std::string database_;
  SqliteStatement containing_;
  SqliteStatement before_;
  SqliteStatement after_;
  std::optional<Block> last_;
};

}  // namespace skein
