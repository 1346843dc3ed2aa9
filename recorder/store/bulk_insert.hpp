// bulk_insert.hpp — inserts many rows into one table through a prepared
// multi-row INSERT (`VALUES (?,?),(?,?),...`), the cheapest way in through
// SQLite's public API: one sqlite3_step per kRowsPerStatement rows instead
// of one per row (measured: about half the cost per row on the reference
// machine; more rows per statement gain nothing further). Rows that do not
// fill a statement go through a one-row statement.
//
// RowidBulkInsert is the same for a table keyed by its rowid (an INTEGER
// PRIMARY KEY), when the rows come in key order. A key given explicitly
// costs a B-tree seek per row, to check that it is new: measured with
// SQLite 3.40 on the reference machine, 1.67M rows of two columns took
// 0.56 s with their keys and 0.16 s without. SQLite numbers a row given
// without a key one past the table's largest rowid; so a row whose key is
// exactly that goes in without it, and any other row (a gap in the keys,
// a key below the largest) with it. Each run of rows numbered by SQLite
// is checked against sqlite3_last_insert_rowid.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

class BulkInsert {
 public:
  static constexpr int kRowsPerStatement = 32;

  // `into` is "TABLE(COLUMN, ...)" with `columns` columns.
  [[nodiscard]] static Result<BulkInsert> prepare(SqliteDatabase& db, std::string_view into, int columns) {
    const auto statement = [&](int rows) {
      std::string sql = "INSERT INTO " + std::string(into) + " VALUES ";
      std::string row = "(";
      for (int c = 0; c < columns; ++c) row += c == 0 ? "?" : ",?";
      row += ")";
      for (int r = 0; r < rows; ++r) sql += (r == 0 ? "" : ",") + row;
      return db.prepare(sql);
    };
    auto many = statement(kRowsPerStatement);
    if (!many) return many.error();
    auto one = statement(1);
    if (!one) return one.error();
    return BulkInsert(std::move(many).value(), std::move(one).value(), columns);
  }

  // Inserts every row of `rows`, in order; bind(statement, first_parameter,
  // row) binds one row's columns from first_parameter on. Bound text must
  // live until insert() returns.
  template <class Rows, class Bind>
  [[nodiscard]] Status insert(const Rows& rows, Bind&& bind) {
    const std::size_t n = std::size(rows);
    std::size_t i = 0;
    auto it = std::begin(rows);
    for (; i + kRowsPerStatement <= n; i += kRowsPerStatement) {
      for (int r = 0; r < kRowsPerStatement; ++r, ++it) bind(many_, 1 + r * columns_, *it);
      if (Status s = many_.run(); !s.ok()) return s;
    }
    for (; i < n; ++i, ++it) {
      bind(one_, 1, *it);
      if (Status s = one_.run(); !s.ok()) return s;
    }
    return {};
  }

 private:
  BulkInsert(SqliteStatement many, SqliteStatement one, int columns)
      : many_(std::move(many)), one_(std::move(one)), columns_(columns) {}

  SqliteStatement many_;
  SqliteStatement one_;
  int columns_;
};

class RowidBulkInsert {
 public:
  // `table` is TABLE, `key` its rowid column, and `columns` the others,
  // "(COLUMN, ...)" with `column_count` names. The table's largest rowid is
  // read once here: every insert must go through this object afterwards.
  [[nodiscard]] static Result<RowidBulkInsert> prepare(SqliteDatabase& db, std::string_view table,
                                                       std::string_view key, std::string_view columns,
                                                       int column_count) {
    std::string inner(columns.substr(1));  // "COLUMN, ...)"
    auto keyed = BulkInsert::prepare(db, std::string(table) + "(" + std::string(key) + ", " + inner,
                                     column_count + 1);
    if (!keyed) return keyed.error();
    auto numbered = BulkInsert::prepare(db, std::string(table) + std::string(columns), column_count);
    if (!numbered) return numbered.error();
    auto rows = db.query_int("SELECT count(*) FROM (SELECT 1 FROM " + std::string(table) + " LIMIT 1)");
    if (!rows) return rows.error();
    RowidBulkInsert insert(db, std::move(keyed).value(), std::move(numbered).value());
    if (rows.value() > 0) {
      auto largest = db.query_int("SELECT max(rowid) FROM " + std::string(table));
      if (!largest) return largest.error();
      insert.note_keyed(largest.value());
    }
    return insert;
  }

  // Inserts every row of `rows`, in order. key(row) gives a row's rowid;
  // bind(statement, first_parameter, row) binds its other columns from
  // first_parameter on.
  template <class Row, class Key, class Bind>
  [[nodiscard]] Status insert(std::span<const Row> rows, Key&& key, Bind&& bind) {
    std::size_t i = 0;
    while (i < rows.size()) {
      // A run SQLite numbers, then one of keys it would not give.
      std::size_t end = i;
      std::int64_t expect = next_;
      while (end < rows.size() && numbering_ && std::int64_t(key(rows[end])) == expect &&
             expect != std::numeric_limits<std::int64_t>::max()) {
        ++end;
        ++expect;
      }
      if (end > i) {
        if (Status s = numbered_.insert(rows.subspan(i, end - i), bind); !s.ok()) return s;
        if (sqlite3_last_insert_rowid(db_->handle()) != expect - 1)
          return file_error(db_->name(), "internal error: row " + std::to_string(expect - 1) +
                                             " was stored as row " +
                                             std::to_string(sqlite3_last_insert_rowid(db_->handle())));
        next_ = expect;
        any_ = true;
        i = end;
        continue;
      }
      std::size_t keyed_end = i;
      do {
        const std::int64_t k = std::int64_t(key(rows[keyed_end]));
        note_keyed(k);
        ++keyed_end;
      } while (keyed_end < rows.size() && std::int64_t(key(rows[keyed_end])) != next_);
      if (Status s = keyed_.insert(rows.subspan(i, keyed_end - i),
                                   [&](SqliteStatement& q, int p, const Row& row) {
                                     q.bind(p, std::int64_t(key(row)));
                                     bind(q, p + 1, row);
                                   });
          !s.ok())
        return s;
      i = keyed_end;
    }
    return {};
  }

 private:
  RowidBulkInsert(SqliteDatabase& db, BulkInsert keyed, BulkInsert numbered)
      : db_(&db), keyed_(std::move(keyed)), numbered_(std::move(numbered)) {}
  // After a row of key k: SQLite numbers the next row given without a key
  // one past the largest rowid, 1 in an empty table (at the largest rowid
  // possible, it picks one at random: then every row is given its key).
  void note_keyed(std::int64_t k) {
    if (k == std::numeric_limits<std::int64_t>::max()) numbering_ = false;
    else if (!any_ || k >= next_) next_ = k + 1;
    any_ = true;
  }

  SqliteDatabase* db_;
  BulkInsert keyed_;
  BulkInsert numbered_;
  std::int64_t next_ = 1;  // the rowid SQLite gives the next row without a key
  bool any_ = false;       // the table has a row
  bool numbering_ = true;
};

}  // namespace skein
