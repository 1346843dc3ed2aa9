// sqlite_database.cpp — every connection is opened SQLITE_OPEN_NOMUTEX
// (one thread at a time), with memory statistics turned off once before the
// first. The bulk-load pragmas are run as a script right after creation (so
// page_size precedes any table); an untrusted or updatable database gets
// its sqlite3_db_config defences before any SQL runs. prepare() uses
// SQLITE_PREPARE_PERSISTENT; text and blobs are bound SQLITE_STATIC, not
// copied. The destructors close with sqlite3_close_v2; close() reports.
// Every open first asks database_path.hpp whether SQLite can keep a
// database at the path, so a path too long is refused in so many words.
#include "recorder/store/sqlite_database.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "recorder/store/database_path.hpp"

namespace skein {
namespace {

// The connections are used by one thread at a time, so SQLite's own
// connection mutex is not needed; memory statistics (a global mutex per
// allocation) are off once, before the first connection.
int open_flags() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
  return SQLITE_OPEN_NOMUTEX;
}

Diagnostic open_error(const std::string& path, sqlite3* db, std::string_view what) {
  std::string message(what);
  message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  return file_error(path, std::move(message));
}

}  // namespace

Result<SqliteDatabase> SqliteDatabase::create_for_bulk_load(const std::string& path, int page_size) {
  // Built with no journal, then renamed: only the path's length counts.
  if (Status s = check_database_path(path, /*with_journal=*/false); !s.ok()) return s.error();
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_EXRESCODE |
                                     SQLITE_OPEN_NOFOLLOW | open_flags(),
                                 nullptr);
  SqliteDatabase result(db, path);
  if (rc != SQLITE_OK) return open_error(path, db, "cannot create the database");
  sqlite3_extended_result_codes(db, 1);
  // page_size only takes effect before the first table is created.
  const std::string pragmas =
      "PRAGMA page_size = " + std::to_string(page_size) +
      ";"
      "PRAGMA journal_mode = OFF;"
      "PRAGMA synchronous = OFF;"
      "PRAGMA locking_mode = EXCLUSIVE;"
      "PRAGMA cache_size = -131072;"  // KiB: 128 MiB
      "PRAGMA temp_store = MEMORY;";
  if (Status s = result.exec(pragmas); !s.ok()) return s.error();
  return result;
}

namespace {
// The defences both ways of opening a database made elsewhere share.
void defend(sqlite3* db) {
  int ignored = 0;
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, &ignored);
  sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &ignored);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, &ignored);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, &ignored);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, &ignored);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, &ignored);
}
}  // namespace

Result<SqliteDatabase> SqliteDatabase::open_untrusted(const std::string& path) {
  if (Status s = check_database_path(path, /*with_journal=*/false); !s.ok()) return s.error();
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | open_flags(), nullptr);
  SqliteDatabase result(db, path);
  if (rc != SQLITE_OK) return open_error(path, db, "cannot open the database");
  sqlite3_extended_result_codes(db, 1);
  // Defensive settings first, before SQLite reads anything from the file's
  // schema that could run: no writes to shadow tables or the schema, no
  // functions with side effects from views, no triggers, no extensions.
  defend(db);
  if (Status s = result.exec("PRAGMA trusted_schema = OFF; PRAGMA query_only = ON;"); !s.ok())
    return s.error();
  return result;
}

Result<SqliteDatabase> SqliteDatabase::open_for_update(const std::string& path) {
  if (Status s = check_database_path(path, /*with_journal=*/true); !s.ok()) return s.error();
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | open_flags(), nullptr);
  SqliteDatabase result(db, path);
  if (rc != SQLITE_OK) return open_error(path, db, "cannot open the database for writing");
  sqlite3_extended_result_codes(db, 1);
  defend(db);
  // A viewer may be reading it: wait a little for its lock rather than fail.
  sqlite3_busy_timeout(db, 2000);
  if (Status s = result.exec("PRAGMA trusted_schema = OFF;"); !s.ok()) return s.error();
  if (sqlite3_db_readonly(db, "main") == 1) return file_error(path, "the database is read-only");
  return result;
}

Result<DatabaseFileIdentity> SqliteDatabase::file_identity() const {
  struct stat st {};
  if (::stat(name_.c_str(), &st) != 0) return file_error(name_, std::string("cannot stat the database: ") + std::strerror(errno));
  return DatabaseFileIdentity{st.st_dev, st.st_ino};
}

SqliteDatabase::SqliteDatabase(SqliteDatabase&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), name_(std::move(other.name_)) {}

SqliteDatabase& SqliteDatabase::operator=(SqliteDatabase&& other) noexcept {
  if (this != &other) {
    if (db_ != nullptr) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

SqliteDatabase::~SqliteDatabase() {
  if (db_ != nullptr) sqlite3_close_v2(db_);
}

Status SqliteDatabase::exec(std::string_view sql) {
  const char* at = sql.data();
  const char* const end = sql.data() + sql.size();
  while (at < end) {
    sqlite3_stmt* stmt = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(db_, at, static_cast<int>(end - at), &stmt, &tail) != SQLITE_OK)
      return error("cannot prepare '" +
                   std::string(at, static_cast<std::size_t>(std::min<std::ptrdiff_t>(end - at, 60))) + "'");
    at = tail;
    if (stmt == nullptr) continue;  // only whitespace or a comment was left
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
    const std::string text = sqlite3_sql(stmt) != nullptr ? sqlite3_sql(stmt) : "";
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) return error("'" + text.substr(0, 60) + "' failed");
  }
  return {};
}

Result<SqliteStatement> SqliteDatabase::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                         nullptr) != SQLITE_OK || stmt == nullptr)
    return error("cannot prepare '" + std::string(sql.substr(0, 60)) + "'");
  return SqliteStatement(stmt, name_);
}

Result<std::int64_t> SqliteDatabase::query_int(std::string_view sql) {
  auto stmt = prepare(sql);
  if (!stmt) return stmt.error();
  auto row = stmt.value().step();
  if (!row) return row.error();
  if (!row.value()) return file_error(name_, "'" + std::string(sql) + "' returned no row");
  return stmt.value().int64(0);
}

Result<std::string> SqliteDatabase::column_names(std::string_view table) {
  auto q = prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid");
  if (!q) return q.error();
  q.value().bind(1, table);
  std::string found;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) {
    if (!found.empty()) found += ',';
    found += row.text(0);
  });
  if (!walked.ok()) return walked.error();
  return found;
}

bool SqliteDatabase::has_table(std::string_view name) {
  auto q = prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1");
  if (!q) return false;
  q.value().bind(1, name);
  auto row = q.value().step();
  return row && row.value();
}

Status SqliteDatabase::close() {
  if (db_ == nullptr) return {};
  if (sqlite3_close(db_) != SQLITE_OK) {
    Diagnostic e = error("cannot close the database");
    sqlite3_close_v2(db_);
    db_ = nullptr;
    return e;
  }
  db_ = nullptr;
  return {};
}

Diagnostic SqliteDatabase::error(std::string_view what) const {
  std::string message(what);
  message += ": ";
  message += db_ != nullptr ? sqlite3_errmsg(db_) : "the database is closed";
  return file_error(name_, std::move(message));
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), name_(std::move(other.name_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

void SqliteStatement::bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void SqliteStatement::bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void SqliteStatement::bind(int index, std::string_view text) {
  // A view may have a null data() when empty; SQLite reads that as NULL.
  sqlite3_bind_text(stmt_, index, text.empty() ? "" : text.data(), static_cast<int>(text.size()),
                    SQLITE_STATIC);
}
void SqliteStatement::bind_blob(int index, const void* data, std::size_t size) {
  sqlite3_bind_blob(stmt_, index, data, static_cast<int>(size), SQLITE_STATIC);
}
void SqliteStatement::bind_null(int index) { sqlite3_bind_null(stmt_, index); }

Result<bool> SqliteStatement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* sql = sqlite3_sql(stmt_);
  return file_error(name_, "'" + std::string(sql != nullptr ? sql : "").substr(0, 60) +
                               "' failed: " + sqlite3_errmsg(sqlite3_db_handle(stmt_)));
}

Status SqliteStatement::run() {
  for (;;) {
    auto row = step();
    if (!row) {
      reset();
      return row.error();
    }
    if (!row.value()) break;
  }
  reset();
  return {};
}

void SqliteStatement::reset() { sqlite3_reset(stmt_); }

int SqliteStatement::column_count() const { return sqlite3_column_count(stmt_); }
bool SqliteStatement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
std::int64_t SqliteStatement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }
double SqliteStatement::real(int column) const { return sqlite3_column_double(stmt_, column); }
bool SqliteStatement::is_blob(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_BLOB; }

std::string_view SqliteStatement::blob(int column) const {
  // sqlite3_column_blob before sqlite3_column_bytes, as SQLite asks.
  const void* data = sqlite3_column_blob(stmt_, column);
  const int size = sqlite3_column_bytes(stmt_, column);
  if (data == nullptr || size <= 0) return {};
  return std::string_view(static_cast<const char*>(data), static_cast<std::size_t>(size));
}

std::string_view SqliteStatement::text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (p == nullptr) return {};
  return {p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column))};
}
std::optional<std::int64_t> SqliteStatement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}
std::optional<std::string> SqliteStatement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return std::string(text(column));
}

SqliteStatement::Storage SqliteStatement::storage(int column) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_INTEGER: return Storage::integer;
    case SQLITE_FLOAT: return Storage::real;
    case SQLITE_TEXT: return Storage::text;
    case SQLITE_BLOB: return Storage::blob;
    default: return Storage::null;
  }
}

std::string SqliteStatement::quoted(int column) const {
  // sqlite3_bind_value takes the column's unprotected value, as SQLite
  // allows; the statement is this connection's, finalized here (a failed
  // prepare leaves it null, which finalize accepts).
  std::string out = "(a value SQLite could not quote)";
  sqlite3_stmt* quote = nullptr;
  if (sqlite3_prepare_v2(sqlite3_db_handle(stmt_), "SELECT quote(?1)", -1, &quote, nullptr) == SQLITE_OK &&
      sqlite3_bind_value(quote, 1, sqlite3_column_value(stmt_, column)) == SQLITE_OK &&
      sqlite3_step(quote) == SQLITE_ROW)
    if (const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(quote, 0)))
      out.assign(p, static_cast<std::size_t>(sqlite3_column_bytes(quote, 0)));
  sqlite3_finalize(quote);
  return out;
}

}  // namespace skein
