// anomaly_table.hpp — the lints' results in the trace database, for the
// viewer and `skein why`: the `anomalies` table (recorder/store/SCHEMA.md
// describes it) and, beside it, the replay's verdicts in `transfers`
// (transfer_table.hpp).
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
// Invariants: a table named `anomalies` or `transfers` with other columns
// (a user's own) is left alone and storing fails with a message saying so;
// rows are written through prepared statements only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/lint_run.hpp"

namespace skein {

inline constexpr const char* kAnomaliesTableSql =
    "CREATE TABLE anomalies(id INTEGER PRIMARY KEY, rule TEXT NOT NULL, severity TEXT NOT NULL, "
    "time INTEGER NOT NULL, thread INTEGER NOT NULL, from_thread INTEGER, suspect INTEGER, event INTEGER, "
    "grouping TEXT, message TEXT NOT NULL)";

// How much the write waits for the disk: a user's database is written
// durably (SQLite's default); a cache database, which is rebuilt from its
// trace at need, skips the fsyncs as its import does.
enum class AnomalyDurability : std::uint8_t { durable, rebuildable };

// Opens `database_path` for writing and replaces its findings with
// `report`'s (numbered in order from 1) and, when the report kept them,
// its transfers (verdicts depend on the records only, so causes stored
// before stay true of the same database). Fails (and changes nothing) on
// a read-only database.
[[nodiscard]] Status store_lint_report(const std::string& database_path, const LintReport& report,
                                       AnomalyDurability durability = AnomalyDurability::durable);

// Replaces only the `transfers` table's rows: the causes of a database
// whose findings were stored without them (`skein lint` stores findings
// only; `skein why` and the viewer add the causes when they need them).
[[nodiscard]] Status store_transfers(const std::string& database_path, std::vector<ControlTransfer> transfers,
                                     AnomalyDurability durability = AnomalyDurability::durable);

// What a database holds of a lint's results, each table with Skein's
// columns: its findings, and the replay's verdicts.
struct LintResultsPresent {
  bool findings = false;
  bool causes = false;
};
[[nodiscard]] Result<LintResultsPresent> lint_results_present(SqliteDatabase& db);

}  // namespace skein
