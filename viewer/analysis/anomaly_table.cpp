// anomaly_table.cpp — writes a lint's findings and transfers into an existing
// trace database, in one write of its owner (trace_database.hpp: BEGIN
// IMMEDIATE on the file the lint read, rolled back unless committed), so a
// store changes all or nothing. The `anomalies` table is made empty
// (derived_tables.hpp: created when absent, refused when a table of that
// name has other columns), then rewritten through one prepared INSERT,
// numbering findings from 1 in report order.
#include "viewer/analysis/anomaly_table.hpp"

#include <algorithm>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {
namespace {

Status write_findings(SqliteDatabase& db, const std::vector<LintFinding>& findings) {
  if (Status s = replace_derived_rows(db, kAnomaliesTable); !s.ok()) return s;
  auto insert = db.prepare(
      "INSERT INTO anomalies(id, rule, severity, time, thread, from_thread, suspect, event, grouping, message) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)");
  if (!insert) return insert.error();
  SqliteStatement& q = insert.value();
  std::int64_t number = 0;
  for (const LintFinding& f : findings) {
    q.bind(1, ++number);
    q.bind(2, lint_rule_name(f.rule));
    q.bind(3, lint_severity_name(f.severity));
    q.bind(4, static_cast<std::int64_t>(f.time));
    q.bind(5, static_cast<std::int64_t>(f.thread));
    q.bind(6, f.from);
    q.bind(7, f.suspect);
    q.bind(8, f.event);
    if (f.group.empty()) q.bind_null(9);
    else q.bind(9, std::string_view(f.group));
    q.bind(10, std::string_view(f.message));
    if (Status s = q.run(); !s.ok()) return s;
  }
  return {};
}

}  // namespace

Status store_lint_report(TraceDatabase& database, const LintReport& report, WriteDurability durability) {
  auto write = database.begin_write(durability);
  if (!write) return write.error();
  SqliteDatabase& db = write.value().database();
  if (Status s = write_findings(db, report.findings); !s.ok()) return s;
  if (!report.transfers.empty())
    if (Status s = write_transfers(db, report.transfers); !s.ok()) return s;
  return write.value().commit();
}

Status store_transfers(TraceDatabase& database, std::vector<ControlTransfer> transfers, WriteDurability durability) {
  auto write = database.begin_write(durability);
  if (!write) return write.error();
  if (Status s = write_transfers(write.value().database(), std::move(transfers)); !s.ok()) return s;
  return write.value().commit();
}

Result<LintResultsPresent> lint_results_present(SqliteDatabase& db) {
  LintResultsPresent present;
  auto findings = has_derived_columns(db, kAnomaliesTable);
  if (!findings) return findings.error();
  present.findings = findings.value();
  auto causes = has_derived_columns(db, kTransfersTable);
  if (!causes) return causes.error();
  present.causes = causes.value();
  return present;
}

std::vector<StoredFinding> read_stored_findings(SqliteDatabase& db) {
  if (!db.has_table("anomalies")) return {};
  auto listed = db.column_names("anomalies");
  if (!listed) return {};
  std::vector<std::string> columns;
  for (std::size_t begin = 0; begin < listed.value().size();) {
    const std::size_t comma = std::min(listed.value().find(',', begin), listed.value().size());
    columns.push_back(listed.value().substr(begin, comma - begin));
    begin = comma + 1;
  }
  const auto has = [&](std::string_view c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); };
  const char* time = has("time") ? "time" : has("time_ns") ? "time_ns" : nullptr;
  const char* from = has("from_thread") ? "from_thread" : has("from") ? "\"from\"" : "NULL";
  if (!time || !has("thread") || !has("rule") || !has("message")) return {};
  const char* suspect = has("suspect") ? "suspect" : "NULL";
  const char* severity = has("severity") ? "severity" : "NULL";
  const char* event = has("event") ? "event" : "NULL";
  const char* number = has("id") ? "id" : "NULL";
  const char* grouping = has("grouping") ? "grouping" : "NULL";
  const std::string sql = std::string("SELECT ") + time + ", thread, " + from + ", rule, message, " + suspect + ", " +
                          severity + ", " + event + ", " + number + ", " + grouping + " FROM anomalies ORDER BY " +
                          time;
  std::vector<StoredFinding> found;
  const Status s = db.for_each_row(sql, [&](SqliteStatement& q) {
    // The table is not part of the store's checked schema: a time past the
    // format's limits is skipped here, where it is read.
    if (q.is_null(0) || !is_valid_time(q.int64(0))) return;
    StoredFinding f;
    f.time = q.int64(0);
    f.thread = q.optional_int64(1);
    f.from = q.optional_int64(2);
    f.rule = q.optional_text(3).value_or("");
    f.message = q.optional_text(4).value_or("");
    f.suspect = q.optional_int64(5);
    f.severity = q.optional_text(6).value_or("");
    f.event = q.optional_int64(7).value_or(-1);
    f.number = q.optional_int64(8).value_or(0);
    f.group = q.optional_text(9).value_or("");
    found.push_back(std::move(f));
  });
  if (!s.ok()) return {};
  return found;
}

}  // namespace skein
