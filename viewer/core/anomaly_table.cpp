// anomaly_table.cpp — see anomaly_table.hpp.
#include "viewer/core/anomaly_table.hpp"

#include "recorder/sqlite_database.hpp"

namespace skein {
namespace {

constexpr std::string_view kColumns = "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message";

Status write(SqliteDatabase& db, const std::vector<LintRuleId>& rules, const std::vector<LintFinding>& findings) {
  auto exists = db.query_int("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'anomalies'");
  if (!exists) return exists.error();
  if (exists.value() == 0) {
    if (Status s = db.exec(kAnomaliesTableSql); !s.ok()) return s;
  } else {
    auto columns = db.prepare("SELECT name FROM pragma_table_info('anomalies') ORDER BY cid");
    if (!columns) return columns.error();
    std::string found;
    for (;;) {
      auto row = columns.value().step();
      if (!row) return row.error();
      if (!row.value()) break;
      if (!found.empty()) found += ',';
      found += columns.value().text(0);
    }
    if (found != kColumns)
      return file_error(db.name(), "cannot store the findings: its table 'anomalies' has columns (" + found +
                                       "), not Skein's (" + std::string(kColumns) + ")");
  }
  // One statement: a table without an index is scanned once, and with
  // every rule there is no WHERE, which SQLite turns into a truncation.
  if (rules.size() >= kLintRuleCount) {
    if (Status s = db.exec("DELETE FROM anomalies"); !s.ok()) return s;
  } else {
    auto remove = db.prepare("DELETE FROM anomalies WHERE rule IN (?1, ?2, ?3, ?4, ?5, ?6)");
    if (!remove) return remove.error();
    static_assert(kLintRuleCount == 6, "one parameter per rule");
    for (int i = 0; i < static_cast<int>(kLintRuleCount); ++i) {
      if (static_cast<std::size_t>(i) < rules.size()) remove.value().bind(i + 1, lint_rule_name(rules[i]));
      else remove.value().bind_null(i + 1);
    }
    if (Status s = remove.value().run(); !s.ok()) return s;
  }
  auto insert = db.prepare(
      "INSERT INTO anomalies(rule, severity, time, thread, from_thread, suspect, event, grouping, message) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!insert) return insert.error();
  SqliteStatement& q = insert.value();
  for (const LintFinding& f : findings) {
    q.bind(1, lint_rule_name(f.rule));
    q.bind(2, lint_severity_name(f.severity));
    q.bind(3, static_cast<std::int64_t>(f.time));
    q.bind(4, static_cast<std::int64_t>(f.thread));
    q.bind(5, f.from);
    q.bind(6, f.suspect);
    q.bind(7, f.event);
    if (f.group.empty()) q.bind_null(8);
    else q.bind(8, std::string_view(f.group));
    q.bind(9, std::string_view(f.message));
    if (Status s = q.run(); !s.ok()) return s;
  }
  return {};
}

}  // namespace

Status store_anomalies(const std::string& database_path, const std::vector<LintRuleId>& rules,
                       const std::vector<LintFinding>& findings, AnomalyDurability durability) {
  auto db = SqliteDatabase::open_for_update(database_path);
  if (!db) return db.error();
  if (durability == AnomalyDurability::rebuildable) {
    // A cache is rebuilt from its trace at need (trace_cache.hpp): like its
    // import, it need not wait for the disk.
    if (Status s = db.value().exec("PRAGMA synchronous = OFF"); !s.ok()) return s;
  }
  if (Status s = db.value().exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  if (Status s = write(db.value(), rules, findings); !s.ok()) {
    (void)db.value().exec("ROLLBACK");
    return s;
  }
  if (Status s = db.value().exec("COMMIT"); !s.ok()) return s;
  return db.value().close();
}

}  // namespace skein
