// layout_cache.cpp — reading first checks that sqlite_schema defines
// layout_v2 with exactly our CREATE statement (a hostile file could make it
// a view), then reads it in thread order; a row out of int32 range, a step
// error or a row count other than thread_count means no cache. Writing
// uses its own read-write connection with the defensive settings and a
// 200 ms busy timeout, and drops, recreates and fills the table inside one
// BEGIN IMMEDIATE transaction, rolled back on any failure.
#include "viewer/timeline/layout_cache.hpp"

#include <sqlite3.h>

namespace skein {
namespace {

constexpr const char* kCreate = "CREATE TABLE layout_v2(thread INTEGER PRIMARY KEY, row INTEGER NOT NULL)";

// A sqlite3 handle closed on every path.
struct Connection {
  sqlite3* db = nullptr;
  ~Connection() { sqlite3_close_v2(db); }
};

Status fail(const std::string& path, sqlite3* db, const std::string& what) {
  return file_error(path, what + ": " + (db ? sqlite3_errmsg(db) : "out of memory"));
}

}  // namespace

std::optional<std::vector<std::pair<ThreadId, std::int32_t>>> read_layout_cache(TraceStore& store,
                                                                                 std::size_t thread_count) {
  SqliteDatabase& db = store.database();
  // The table must be ours word for word: a hostile file could make it a
  // view that computes something else.
  auto def = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'layout_v2'");
  if (!def) return std::nullopt;
  auto found = def.value().step();
  if (!found || !found.value() || def.value().text(0) != kCreate) return std::nullopt;
  auto q = db.prepare("SELECT thread, row FROM layout_v2 ORDER BY thread");
  if (!q) return std::nullopt;
  std::vector<std::pair<ThreadId, std::int32_t>> out;
  out.reserve(thread_count);
  bool rows_fit = true;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) {
    const std::int64_t r = row.int64(1);
    rows_fit = r >= 0 && r <= INT32_MAX;
    if (rows_fit) out.emplace_back(row.int64(0), static_cast<std::int32_t>(r));
    return rows_fit;
  });
  if (!walked.ok() || !rows_fit || out.size() != thread_count) return std::nullopt;
  return out;
}

Status write_layout_cache(const std::string& database_path,
                          const std::vector<std::pair<ThreadId, std::int32_t>>& rows) {
  Connection c;
  if (sqlite3_open_v2(database_path.c_str(), &c.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    return fail(database_path, c.db, "cannot open to store the layout");
  sqlite3_db_config(c.db, SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(c.db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
  sqlite3_db_config(c.db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  sqlite3_busy_timeout(c.db, 200);
  const std::string script = std::string("BEGIN IMMEDIATE; DROP TABLE IF EXISTS layout_v2; ") + kCreate + ";";
  if (sqlite3_exec(c.db, script.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail(database_path, c.db, "cannot store the layout");
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(c.db, "INSERT INTO layout_v2(thread, row) VALUES (?1, ?2)", -1, &insert, nullptr) !=
      SQLITE_OK)
    return fail(database_path, c.db, "cannot store the layout");
  bool ok = true;
  for (const auto& [thread, row] : rows) {
    sqlite3_bind_int64(insert, 1, thread);
    sqlite3_bind_int64(insert, 2, row);
    ok = sqlite3_step(insert) == SQLITE_DONE;
    sqlite3_reset(insert);
    if (!ok) break;
  }
  sqlite3_finalize(insert);
  if (!ok || sqlite3_exec(c.db, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    Status s = fail(database_path, c.db, "cannot store the layout");
    sqlite3_exec(c.db, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  }
  return {};
}

}  // namespace skein
