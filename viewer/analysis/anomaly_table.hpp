// anomaly_table.hpp — the lints' results in the trace database, for the
// viewer and `skein why`: the findings, one row each in `findings` with
// their texts interned in `finding_texts` and their sentences split by
// finding_message_template.hpp, read in SQL through the `anomalies` view
// (recorder/store/SCHEMA.md describes all three); and, beside them, the
// replay's verdicts in `transfer_blocks` (transfer_table.hpp).
//
// Neither is part of the imported schema: `skein lint` (or skein-view,
// linting a trace it opens) adds them to an existing database, which the
// schema check allows (tables a user adds), so databases without them stay
// valid. Storing replaces both tables' rows with one lint's report, in one
// transaction: a finding's id is its number, as `skein lint` prints it
// (#1 is the first finding of the full report, most severe group first).
// A cache database is rebuilt from scratch when its trace changes, so its
// findings never outlive the trace they were found in.
//
// Reading is here too (read_stored_findings), of these tables or of the one
// `anomalies` table older Skeins wrote, with the spellings older databases
// used; the definitions are recorder/store/derived_tables.hpp's.
//
// Invariants: a table named `findings`, `finding_texts`, `anomalies` or
// `transfer_blocks` with other columns (a user's own) is left alone and storing
// fails with a message saying so;
// reading such a table yields no findings, never an error; rows are written
// and read through prepared statements only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "recorder/store/trace_database.hpp"
#include "viewer/analysis/finding_text.hpp"
#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/lint_run.hpp"

namespace skein {

// Replaces `database`'s findings with `report`'s (numbered in order from
// 1) and, when the report kept them, its transfers (verdicts depend on the
// records only, so causes stored before stay true of the same database),
// through the owner's writer (trace_database.hpp). Fails (and changes
// nothing) on a read-only database, and when another file has replaced the
// one the owner opened (and the lint read) at its path since.
[[nodiscard]] Status store_lint_report(TraceDatabase& database, const LintReport& report,
                                       WriteDurability durability = WriteDurability::durable);

// Replaces only the causes (`transfer_blocks`): those of a database
// whose findings were stored without them (`skein lint` stores findings
// only; `skein why` and the viewer add the causes when they need them).
[[nodiscard]] Status store_transfers(TraceDatabase& database, std::vector<ControlTransfer> transfers,
                                     WriteDurability durability = WriteDurability::durable);
// The same for verdicts keyed already (LintOptions::keyed_transfers).
[[nodiscard]] Status store_transfers(TraceDatabase& database, std::vector<StoredTransfer> transfers,
                                     WriteDurability durability = WriteDurability::durable);

// What a database holds of a lint's results, each table with Skein's
// columns: its findings, and the replay's verdicts.
struct LintResultsPresent {
  bool findings = false;
  bool causes = false;
};
[[nodiscard]] Result<LintResultsPresent> lint_results_present(SqliteDatabase& db);

// One row of `anomalies` as stored: thread ids as the trace has them, the
// texts shared with the findings worded alike (finding_text.hpp).
struct StoredFinding : FindingText {
  TimeNs time = 0;
  std::optional<std::int64_t> thread;
  std::optional<std::int64_t> from;
  std::optional<std::int64_t> suspect;
  std::int64_t event = -1;  // event id of the record it names; -1: none
  std::int64_t number = 0;  // the finding's #N; 0 when the table has no id
};

// The stored findings, by time (their numbers give the report's order). Read defensively: the tables belong to the
// lints and may be absent, or a user's own tables of those names; their columns
// are checked first, and anything unexpected means no findings. Older
// spellings of two columns (time_ns, "from") are accepted. A row whose time
// is past the format's limits, or whose texts are missing or not a template
// Skein writes, is skipped.
[[nodiscard]] std::vector<StoredFinding> read_stored_findings(SqliteDatabase& db);
// Those with a time in [from, to], the same way: through the block index
// of their ids (finding_blocks) when the database has one, else by a scan.
[[nodiscard]] std::vector<StoredFinding> read_stored_findings(SqliteDatabase& db, TimeNs from, TimeNs to);

}  // namespace skein
