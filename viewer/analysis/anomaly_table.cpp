// anomaly_table.cpp — writes a lint's findings and transfers into an existing
// trace database. Each store opens the database for update, starts BEGIN
// IMMEDIATE, writes, and rolls back on any failure, so a store changes all
// or nothing. The `anomalies` table is created when absent; when present,
// its column list (pragma_table_info, in cid order) must match Skein's
// exactly or the store fails, and its rows are then cleared and rewritten
// through one prepared INSERT, numbering findings from 1 in report order.
// A rebuildable (cache) database is written with synchronous = OFF.
#include "viewer/analysis/anomaly_table.hpp"

#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {
namespace {

constexpr std::string_view kColumns = "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message";

Result<std::string> columns_of(SqliteDatabase& db, std::string_view table) {
  auto columns = db.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
  if (!columns) return columns.error();
  columns.value().bind(1, table);
  std::string found;
  for (;;) {
    auto row = columns.value().step();
    if (!row) return row.error();
    if (!row.value()) break;
    if (!found.empty()) found += ',';
    found += columns.value().text(0);
  }
  return found;
}

Status write(SqliteDatabase& db, const std::vector<LintFinding>& findings) {
  auto exists = db.query_int("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'anomalies'");
  if (!exists) return exists.error();
  if (exists.value() == 0) {
    if (Status s = db.exec(kAnomaliesTableSql); !s.ok()) return s;
  } else {
    auto found = columns_of(db, "anomalies");
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

}  // namespace

Status store_lint_report(const std::string& database_path, const LintReport& report,
                         AnomalyDurability durability) {
  auto db = SqliteDatabase::open_for_update(database_path);
  if (!db) return db.error();
  if (durability == AnomalyDurability::rebuildable) {
    // A cache is rebuilt from its trace at need (trace_cache.hpp): like its
    // import, it need not wait for the disk.
    if (Status s = db.value().exec("PRAGMA synchronous = OFF"); !s.ok()) return s;
  }
  if (Status s = db.value().exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  Status written = write(db.value(), report.findings);
  if (written.ok() && !report.transfers.empty()) written = write_transfers(db.value(), report.transfers);
  if (!written.ok()) {
    (void)db.value().exec("ROLLBACK");
    return written;
  }
  if (Status s = db.value().exec("COMMIT"); !s.ok()) return s;
  return db.value().close();
}

Status store_transfers(const std::string& database_path, std::vector<ControlTransfer> transfers,
                       AnomalyDurability durability) {
  auto db = SqliteDatabase::open_for_update(database_path);
  if (!db) return db.error();
  if (durability == AnomalyDurability::rebuildable)
    if (Status s = db.value().exec("PRAGMA synchronous = OFF"); !s.ok()) return s;
  if (Status s = db.value().exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  if (Status s = write_transfers(db.value(), std::move(transfers)); !s.ok()) {
    (void)db.value().exec("ROLLBACK");
    return s;
  }
  if (Status s = db.value().exec("COMMIT"); !s.ok()) return s;
  return db.value().close();
}

Result<LintResultsPresent> lint_results_present(SqliteDatabase& db) {
  LintResultsPresent present;
  auto findings = columns_of(db, "anomalies");
  if (!findings) return findings.error();
  present.findings = findings.value() == kColumns;
  auto causes = columns_of(db, "transfers");
  if (!causes) return causes.error();
  present.causes = causes.value() == kTransfersColumns;
  return present;
}

}  // namespace skein
