// anomaly_table.cpp — writes a lint's findings and transfers into an existing
// trace database. Each store opens the database for update, starts BEGIN
// IMMEDIATE, writes, and rolls back on any failure, so a store changes all
// or nothing. The `anomalies` table is created when absent; when present,
// its column list (pragma_table_info, in cid order) must match Skein's
// exactly or the store fails, and its rows are then cleared and rewritten
// through one prepared INSERT, numbering findings from 1 in report order.
// A rebuildable (cache) database is written with synchronous = OFF.
#include "viewer/analysis/anomaly_table.hpp"

#include <algorithm>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {
namespace {

constexpr std::string_view kColumns = "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message";

Status write(SqliteDatabase& db, const std::vector<LintFinding>& findings) {
  if (!db.has_table("anomalies")) {
    if (Status s = db.exec(kAnomaliesTableSql); !s.ok()) return s;
  } else {
    auto found = db.column_names("anomalies");
    if (!found) return found.error();
    if (found.value() != kColumns)
      return file_error(db.name(), "cannot store the findings: its table 'anomalies' has columns (" + found.value() +
                                       "), not Skein's (" + std::string(kColumns) + ")");
    // No WHERE: SQLite turns it into a truncation.
    if (Status s = db.exec("DELETE FROM anomalies"); !s.ok()) return s;
  }
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

// The database opened for update and in a write transaction (BEGIN
// IMMEDIATE, so no other writer comes between), after checking that it is
// still the file `expected` names: results read from one file never go into
// another that replaced it at the same path meanwhile.
Result<SqliteDatabase> begin_results_write(const std::string& database_path, AnomalyDurability durability,
                                           const std::optional<DatabaseFileIdentity>& expected) {
  auto db = SqliteDatabase::open_for_update(database_path);
  if (!db) return db.error();
  if (durability == AnomalyDurability::rebuildable) {
    // A cache is rebuilt from its trace at need (opened_store.hpp): like its
    // import, it need not wait for the disk.
    if (Status s = db.value().exec("PRAGMA synchronous = OFF"); !s.ok()) return s.error();
  }
  if (Status s = db.value().exec("BEGIN IMMEDIATE"); !s.ok()) return s.error();
  if (expected) {
    auto now = db.value().file_identity();
    if (!now) return now.error();
    if (now.value() != *expected)
      return file_error(database_path,
                        "was replaced by another database since it was linted; the lint's results are not stored");
  }
  return db;
}

Status commit(SqliteDatabase& db, Status written) {
  if (!written.ok()) {
    (void)db.exec("ROLLBACK");
    return written;
  }
  if (Status s = db.exec("COMMIT"); !s.ok()) return s;
  return db.close();
}

}  // namespace

Status store_lint_report(const std::string& database_path, const LintReport& report, AnomalyDurability durability,
                         const std::optional<DatabaseFileIdentity>& expected) {
  auto db = begin_results_write(database_path, durability, expected);
  if (!db) return db.error();
  Status written = write(db.value(), report.findings);
  if (written.ok() && !report.transfers.empty()) written = write_transfers(db.value(), report.transfers);
  return commit(db.value(), std::move(written));
}

Status store_transfers(const std::string& database_path, std::vector<ControlTransfer> transfers,
                       AnomalyDurability durability, const std::optional<DatabaseFileIdentity>& expected) {
  auto db = begin_results_write(database_path, durability, expected);
  if (!db) return db.error();
  return commit(db.value(), write_transfers(db.value(), std::move(transfers)));
}

Result<LintResultsPresent> lint_results_present(SqliteDatabase& db) {
  LintResultsPresent present;
  auto findings = db.column_names("anomalies");
  if (!findings) return findings.error();
  present.findings = findings.value() == kColumns;
  auto causes = db.column_names("transfers");
  if (!causes) return causes.error();
  present.causes = causes.value() == kTransfersColumns;
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
