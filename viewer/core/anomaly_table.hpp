// anomaly_table.hpp — the lints' findings in the trace database, for the
// viewer: the `anomalies` table (recorder/SCHEMA.md describes it).
//
// It is not part of the imported schema: `skein lint` adds it to an
// existing database, which the schema check allows (tables a user adds),
// so the schema version does not change and databases without it stay
// valid. Storing replaces the rows of the rules that ran, in one
// transaction, and keeps the others': `--rules a` refreshes rule a only.
// A cache database is rebuilt from scratch when its trace changes, so its
// findings never outlive the trace they were found in.
//
// Invariants: a table named `anomalies` with other columns (a user's own)
// is left alone and storing fails with a message saying so; findings are
// written through prepared statements only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recorder/diagnostic.hpp"
#include "viewer/core/lint_finding.hpp"

namespace skein {

inline constexpr const char* kAnomaliesTableSql =
    "CREATE TABLE anomalies(id INTEGER PRIMARY KEY, rule TEXT NOT NULL, severity TEXT NOT NULL, "
    "time INTEGER NOT NULL, thread INTEGER NOT NULL, from_thread INTEGER, suspect INTEGER, event INTEGER, "
    "grouping TEXT, message TEXT NOT NULL)";

// How much the write waits for the disk: a user's database is written
// durably (SQLite's default); a cache database, which is rebuilt from its
// trace at need, skips the fsyncs as its import does.
enum class AnomalyDurability : std::uint8_t { durable, rebuildable };

// Opens `database_path` for writing and replaces the findings of `rules`
// with `findings`. Fails (and changes nothing) on a read-only database.
[[nodiscard]] Status store_anomalies(const std::string& database_path, const std::vector<LintRuleId>& rules,
                                     const std::vector<LintFinding>& findings,
                                     AnomalyDurability durability = AnomalyDurability::durable);

}  // namespace skein
