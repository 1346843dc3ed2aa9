// derived_tables.cpp — the checks read sqlite_schema and pragma_table_info
// through prepared statements; replace_derived_rows and
// define_anomalies_view build their SQL from our own names only (the
// table's, and the schema "" or "temp"), never from what a file holds.
#include "recorder/store/derived_tables.hpp"

namespace skein {

bool defines_derived_table(SqliteDatabase& db, const DerivedTable& table) {
  auto def = db.prepare("SELECT sql FROM sqlite_schema WHERE type = ?1 AND name = ?2");
  if (!def) return false;
  def.value().bind(1, std::string_view(table.sql.starts_with("CREATE VIEW ") ? "view" : "table"));
  def.value().bind(2, table.name);
  auto found = def.value().step();
  return found && found.value() && def.value().text(0) == table.sql;
}

Result<bool> has_derived_columns(SqliteDatabase& db, const DerivedTable& table) {
  auto found = db.column_names(table.name);
  if (!found) return found.error();
  return found.value() == table.columns;
}

std::optional<std::int64_t> read_meta_int(SqliteDatabase& db, std::string_view key) {
  auto q = db.prepare("SELECT value FROM meta WHERE key = ?1 AND typeof(value) = 'integer'");
  if (!q) return std::nullopt;
  q.value().bind(1, key);
  auto row = q.value().step();
  if (!row || !row.value()) return std::nullopt;
  return q.value().int64(0);
}

Status write_meta_int(SqliteDatabase& db, std::string_view key, std::int64_t value) {
  auto q = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)");
  if (!q) return q.error();
  q.value().bind(1, key);
  q.value().bind(2, value);
  return q.value().run();
}

Status delete_meta(SqliteDatabase& db, std::string_view key) {
  auto q = db.prepare("DELETE FROM meta WHERE key = ?1");
  if (!q) return q.error();
  q.value().bind(1, key);
  return q.value().run();
}

Status set_layout_row_count(SqliteDatabase& db, std::int64_t rows) { return write_meta_int(db, kLayoutRowsKey, rows); }

Status replace_derived_rows(SqliteDatabase& db, const DerivedTable& table, std::string_view schema) {
  const std::string prefix = schema.empty() ? std::string() : std::string(schema) + ".";
  bool present = false;
  {
    // Finalized before the table is created or emptied.
    auto exists = db.prepare("SELECT 1 FROM " + prefix + "sqlite_schema WHERE type = 'table' AND name = ?1");
    if (!exists) return exists.error();
    exists.value().bind(1, table.name);
    auto row = exists.value().step();
    if (!row) return row.error();
    present = row.value();
  }
  if (!present) {
    std::string create(table.sql);
    create.insert(std::string_view("CREATE TABLE ").size(), prefix);
    return db.exec(create);
  }
  auto found = db.column_names(table.name);
  if (!found) return found.error();
  if (found.value() != table.columns)
    return file_error(db.name(), "cannot store " + std::string(table.holds) + ": its table '" +
                                     std::string(table.name) + "' has columns (" + found.value() +
                                     "), not Skein's (" + std::string(table.columns) + ")");
  // No WHERE: SQLite turns it into a truncation.
  return db.exec("DELETE FROM " + prefix + std::string(table.name));
}

Status drop_older_table(SqliteDatabase& db, const DerivedTable& older, std::string_view schema) {
  const std::string prefix = schema.empty() ? std::string() : std::string(schema) + ".";
  {
    auto exists = db.prepare("SELECT 1 FROM " + prefix + "sqlite_schema WHERE type = 'table' AND name = ?1");
    if (!exists) return exists.error();
    exists.value().bind(1, older.name);
    auto row = exists.value().step();
    if (!row) return row.error();
    if (!row.value()) return {};
  }
  auto found = db.prepare("SELECT name FROM pragma_table_info(?1, ?2) ORDER BY cid");
  if (!found) return found.error();
  found.value().bind(1, older.name);
  found.value().bind(2, schema.empty() ? std::string_view("main") : schema);
  std::string columns;
  const Status walked = found.value().for_each_row([&](SqliteStatement& row) {
    if (!columns.empty()) columns += ',';
    columns += row.text(0);
  });
  if (!walked.ok()) return walked;
  if (columns != older.columns) return {};
  return db.exec("DROP TABLE " + prefix + std::string(older.name));
}

Status define_anomalies_view(SqliteDatabase& db) {
  if (defines_derived_table(db, kAnomaliesView)) return {};
  std::string type;
  {
    auto q = db.prepare("SELECT type FROM sqlite_schema WHERE name = 'anomalies'");
    if (!q) return q.error();
    auto row = q.value().step();
    if (!row) return row.error();
    if (row.value()) type = q.value().text(0);
  }
  if (type == "view") {
    if (Status s = db.exec("DROP VIEW anomalies"); !s.ok()) return s;
  } else if (type == "table") {
    auto found = db.column_names("anomalies");
    if (!found) return found.error();
    if (found.value() != kOlderAnomaliesTable.columns)
      return file_error(db.name(), "cannot store the findings: its table 'anomalies' has columns (" + found.value() +
                                       "), not Skein's (" + std::string(kOlderAnomaliesTable.columns) + ")");
    if (Status s = db.exec("DROP TABLE anomalies"); !s.ok()) return s;
  } else if (!type.empty()) {
    return file_error(db.name(), "cannot store the findings: the name 'anomalies' is taken by an index or a trigger");
  }
  return db.exec(kAnomaliesView.sql);
}

}  // namespace skein
