// transfer_table.hpp — why control changed hands, for every change in a
// trace: the causality replay's verdicts (causality_replay.hpp), kept in
// the trace database's `transfers` table (recorder/store/SCHEMA.md) by the lint
// that computed them, so that "why?" is a few lookups by key instead of a
// replay of the whole trace.
//
// One row per verdict, keyed by the merge group of the thread it is about
// (`grp`: the group's smallest thread id, from each thread's latest merge
// in `threads`, as the why-engine groups them; -1 for the scheduler), then
// the record it is about and its kind, so that "the latest change of
// control to this thread's group before record r" is one descent of the
// key:
//   kind 0  a transfer: control went to `thread` at `event`;
//   kind 1  a read, at `event`, of a thread no record resolved (from ==
//           thread: no control changed hands for it);
//   kind 2  a hand-off after polling: the record at `event`, a resolve or
//           notify by `thread`, owes a cause.
// `cause` is the ControlCause code (0: unexplained), `cause_event` the
// record that explains it (NULL when none), `suspect` who most likely owes
// the missing record when unexplained.
//
// Like `anomalies`, it is not part of the imported schema (its definition
// is recorder/store/derived_tables.hpp's): `skein lint`
// (and skein-view, when it lints a trace on opening) writes it beside the
// findings, in the same transaction, replacing the whole table.
//
// Invariants: rows are written in key order (a WITHOUT ROWID table appended
// at its right edge); `grp` is the same function of a thread for the
// writer and the readers (merge_group_roots); reading checks the table's
// columns first and treats a table of other columns as absent; every
// statement is prepared.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/causality_replay.hpp"
#include "viewer/analysis/merge_groups.hpp"

namespace skein {

enum class TransferKind : std::uint8_t { transfer = 0, unresolved_read = 1, hand_off = 2 };

[[nodiscard]] TransferKind transfer_kind(const ControlTransfer& t);

// Replaces the table's rows with `transfers` (inside the caller's
// transaction). `transfers` need not be sorted. `schema` names the
// schema to write into ("" the main one): a database that cannot be
// written keeps its causes in its connection's "temp" schema.
[[nodiscard]] Status write_transfers(SqliteDatabase& db, std::vector<ControlTransfer> transfers,
                                     const std::string& schema = "");

// The merge groups of a database's threads, as `grp` keys them: each
// thread joined with its latest merge's INTO (threads.merged_into).
[[nodiscard]] Result<MergeGroups> merge_group_roots(SqliteDatabase& db);

// A verdict as read back.
struct StoredTransfer {
  std::int64_t event = 0;
  TransferKind kind = TransferKind::transfer;
  ThreadId thread = kNoThread;
  ThreadId from = kNoThread;
  ThreadId input = kNoThread;
  ControlCause cause = ControlCause::unexplained;
  std::int64_t cause_event = 0;  // 0: none
  ThreadId suspect = kNoThread;
};

// Lookups over a database's `transfers` table (prepared once).
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
  TransferLookup(SqliteStatement at, SqliteStatement back, SqliteStatement next)
      : at_(std::move(at)), back_(std::move(back)), next_(std::move(next)) {}
  static StoredTransfer read_row(const SqliteStatement& q);
  Result<std::optional<StoredTransfer>> first_row(SqliteStatement& q, ThreadId grp, std::int64_t event);

  SqliteStatement at_;
  SqliteStatement back_;
  SqliteStatement next_;
};

}  // namespace skein
