// sqlite_database.hpp — a thin RAII layer over SQLite's C API: one
// connection (SqliteDatabase) and its prepared statements (SqliteStatement).
// Errors come back as Status/Result naming the database file and carrying
// SQLite's own message, so they read like every other diagnostic.
//
// Two ways in, for the two kinds of file the store meets:
//   - create_for_bulk_load(): a fresh file only this process writes, set up
//     for one big transaction (no journal, no fsync, exclusive lock, a large
//     page cache). Used on the import's temporary file, which is renamed
//     into place only once complete (trace_import.hpp), so durability
//     settings that would risk a half-written *target* are safe here.
//   - open_untrusted(): a database made elsewhere, read-only, with SQLite's
//     defensive settings on (SQLITE_DBCONFIG_DEFENSIVE, trusted_schema off,
//     no triggers, no extension loading). Whether it is a Skein database is
//     store_schema.hpp's question.
//   - open_for_update(): the same defences, read-write, for adding a table
//     of results to a database that has already been checked.
//
// Every statement is prepared (exec() prepares each statement of a script
// in turn); nothing is built by pasting values into SQL text.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "recorder/format/diagnostic.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace skein {

class SqliteStatement;

// Which file a connection holds: stat(2)'s device and inode of its path,
// taken after the connection opened it (SQLite opens the main file in
// sqlite3_open_v2). Two identities differ when the path was replaced by a
// rename in between, as a re-import replaces a cache.
struct DatabaseFileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const DatabaseFileIdentity&) const = default;
};

class SqliteDatabase {
 public:
  // Creates the database at `path` (nothing there yet, or the empty file
  // output_file.hpp made; never through a symbolic link) for a bulk load,
  // with `page_size` bytes a page (set before the first table).
  [[nodiscard]] static Result<SqliteDatabase> create_for_bulk_load(const std::string& path,
                                                                   int page_size = 16384);
  // Opens an existing database read-only, defensively.
  [[nodiscard]] static Result<SqliteDatabase> open_untrusted(const std::string& path);
  // Opens an existing database for small writes beside what it holds (the
  // lints' `anomalies` table), with the same defensive settings as
  // open_untrusted() and a short busy timeout. Fails on a read-only file.
  [[nodiscard]] static Result<SqliteDatabase> open_for_update(const std::string& path);

  SqliteDatabase(SqliteDatabase&& other) noexcept;
  SqliteDatabase& operator=(SqliteDatabase&& other) noexcept;
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;
  ~SqliteDatabase();

  // Runs every statement of `sql` to completion, discarding rows.
  [[nodiscard]] Status exec(std::string_view sql);
  [[nodiscard]] Result<SqliteStatement> prepare(std::string_view sql);
  // The single integer a query such as `PRAGMA user_version` returns.
  [[nodiscard]] Result<std::int64_t> query_int(std::string_view sql);
  // Prepares `sql` (no parameters) and walks its rows as
  // SqliteStatement::for_each_row does.
  template <class OnRow>
  [[nodiscard]] Status for_each_row(std::string_view sql, OnRow&& on_row);
  // The columns of table `name`, in order, joined by commas ("" when there
  // is no such table): what a schema check compares with the expected list.
  [[nodiscard]] Result<std::string> column_names(std::string_view table);
  // Whether the schema defines a table named `name` (false also when the
  // schema cannot be read: a caller then meets the error on its own query).
  [[nodiscard]] bool has_table(std::string_view name);

  // Closes the connection, reporting a failure to close (unfinalized
  // statements are a bug; a failed final write is not).
  [[nodiscard]] Status close();

  // The file this connection holds: its path's identity now, which is the
  // file opened as long as nothing renamed that very file back into place
  // after another (nothing does: a replaced file is gone for good).
  [[nodiscard]] Result<DatabaseFileIdentity> file_identity() const;

  // "FILE: WHAT: SQLite's message for the last error".
  [[nodiscard]] Diagnostic error(std::string_view what) const;
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] sqlite3* handle() const { return db_; }

 private:
  SqliteDatabase(sqlite3* db, std::string name) : db_(db), name_(std::move(name)) {}

  sqlite3* db_ = nullptr;
  std::string name_;
};

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters count from 1. Text is bound without a copy: it must stay
  // valid until the statement is stepped and reset.
  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view text);
  void bind_blob(int index, const void* data, std::size_t size);
  void bind_null(int index);
  template <class T>
  void bind(int index, const std::optional<T>& value) {
    if (value) bind(index, *value);
    else bind_null(index);
  }

  // One step: true when a row is ready, false when done.
  [[nodiscard]] Result<bool> step();
  // Steps to the end and resets: for statements that return no rows.
  [[nodiscard]] Status run();
  void reset();

  // Steps through the remaining rows, calling on_row(*this) on each, with
  // the statement on that row. on_row returns void, bool (false: stop here,
  // with no error) or Status (a failed one stops the walk and is returned).
  // A failed step is returned too; otherwise the result is ok. The
  // statement is left where the walk stopped: reset() it to run it again.
  template <class OnRow>
  [[nodiscard]] Status for_each_row(OnRow&& on_row);

  [[nodiscard]] int column_count() const;
  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t int64(int column) const;
  [[nodiscard]] double real(int column) const;
  // Valid until the next step or reset.
  [[nodiscard]] std::string_view text(int column) const;
  // A BLOB column's bytes, valid until the next step or reset.
  [[nodiscard]] bool is_blob(int column) const;
  [[nodiscard]] std::string_view blob(int column) const;
  [[nodiscard]] std::optional<std::int64_t> optional_int64(int column) const;
  [[nodiscard]] std::optional<std::string> optional_text(int column) const;

  // How SQLite stores a column's value on this row (its storage class).
  enum class Storage : std::uint8_t { integer, real, text, blob, null };
  [[nodiscard]] Storage storage(int column) const;
  // The value as SQL's quote() spells it (12, 1.0e+300, 'it''s', X'00',
  // NULL), asked of SQLite on the same connection: for messages.
  [[nodiscard]] std::string quoted(int column) const;
  // The database's name, for messages.
  [[nodiscard]] const std::string& database_name() const { return name_; }

 private:
  friend class SqliteDatabase;
  SqliteStatement(sqlite3_stmt* stmt, std::string name) : stmt_(stmt), name_(std::move(name)) {}

  sqlite3_stmt* stmt_ = nullptr;
  std::string name_;  // the database's, for messages
};

template <class OnRow>
Status SqliteStatement::for_each_row(OnRow&& on_row) {
  for (;;) {
    auto row = step();
    if (!row) return row.error();
    if (!row.value()) return {};
    using Returned = decltype(on_row(*this));
    if constexpr (std::is_void_v<Returned>) {
      on_row(*this);
    } else if constexpr (std::is_same_v<Returned, bool>) {
      if (!on_row(*this)) return {};
    } else {
      static_assert(std::is_same_v<Returned, Status>, "on_row returns void, bool or Status");
      if (Status s = on_row(*this); !s.ok()) return s;
    }
  }
}

template <class OnRow>
Status SqliteDatabase::for_each_row(std::string_view sql, OnRow&& on_row) {
  auto q = prepare(sql);
  if (!q) return q.error();
  return q.value().for_each_row(std::forward<OnRow>(on_row));
}

}  // namespace skein
