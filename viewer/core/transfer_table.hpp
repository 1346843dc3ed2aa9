// transfer_table.hpp — why control changed hands, for every change in a
// trace: the causality replay's verdicts (causality_replay.hpp), kept in
// the trace database's `transfers` table (recorder/SCHEMA.md) by the lint
// that computed them, so that "why?" is a few lookups by key instead of a
// replay of the whole trace.
//
// One row per verdict, keyed by the record it is about and its kind:
//   kind 0  a transfer: control went to `thread` at `event`;
//   kind 1  a read, at `event`, of a thread no record resolved (from ==
//           thread: no control changed hands for it);
//   kind 2  a hand-off after polling: the record at `event`, a resolve or
//           notify by `thread`, owes a cause.
// `cause` is the ControlCause code (0: unexplained), `cause_event` the
// record that explains it (NULL when none), `suspect` who most likely owes
// the missing record when unexplained.
//
// Like `anomalies`, it is not part of the imported schema: `skein lint`
// (and skein-view, when it lints a trace on opening) writes it beside the
// findings, in the same transaction, replacing the whole table.
//
// Invariants: rows are written in key order (a WITHOUT ROWID table appended
// at its right edge); reading checks the table's columns first and
// treats a table of other columns as absent; every statement is prepared.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "recorder/diagnostic.hpp"
#include "recorder/sqlite_database.hpp"
#include "viewer/core/causality_replay.hpp"

namespace skein {

inline constexpr const char* kTransfersTableSql =
    "CREATE TABLE transfers(event INTEGER NOT NULL, kind INTEGER NOT NULL, thread INTEGER NOT NULL, "
    "from_thread INTEGER, input INTEGER, cause INTEGER NOT NULL, cause_event INTEGER, suspect INTEGER, "
    "PRIMARY KEY(event, kind)) WITHOUT ROWID";

enum class TransferKind : std::uint8_t { transfer = 0, unresolved_read = 1, hand_off = 2 };

[[nodiscard]] TransferKind transfer_kind(const ControlTransfer& t);

// Replaces the table's rows with `transfers` (inside the caller's
// transaction). `transfers` need not be sorted. `schema` names an
// attached database to write into ("" the main one): a database that
// cannot be written keeps its causes in an attached one in memory.
[[nodiscard]] Status write_transfers(SqliteDatabase& db, std::vector<ControlTransfer> transfers,
                                     const std::string& schema = "");

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

  // The verdict of `kind` at `event`, if any.
  [[nodiscard]] Result<std::optional<StoredTransfer>> at(std::int64_t event, TransferKind kind);
  // The latest transfer (kind 0) at or before `event` whose thread
  // satisfies `accept`, looking back at most `limit` rows.
  template <class Accept>
  [[nodiscard]] Result<std::optional<StoredTransfer>> latest_to(std::int64_t event, Accept&& accept,
                                                                std::size_t limit = 10'000'000) {
    back_.bind(1, event);
    std::size_t seen = 0;
    for (;;) {
      auto row = back_.step();
      if (!row) {
        back_.reset();
        return row.error();
      }
      if (!row.value() || ++seen > limit) break;
      StoredTransfer t = read_row(back_);
      if (accept(t.thread)) {
        back_.reset();
        return std::optional<StoredTransfer>(t);
      }
    }
    back_.reset();
    return std::optional<StoredTransfer>();
  }

 private:
  TransferLookup(SqliteStatement at, SqliteStatement back) : at_(std::move(at)), back_(std::move(back)) {}
  static StoredTransfer read_row(const SqliteStatement& q);

  SqliteStatement at_;
  SqliteStatement back_;
};

}  // namespace skein
