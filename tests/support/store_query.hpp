// store_query.hpp — test helpers for the trace database, in the manner of
// Perfetto's diff tests: a trace (held in a string), a SQL query, and the
// exact expected table. query() prints a result as sqlite3's list mode does:
// columns joined by '|', NULL as "NULL", one row a line.
//
//   TempDir dir;
//   const auto r = import_text(kTrace, dir.file("t.db"));
//   CHECK(query(dir.file("t.db"), "SELECT id, parent FROM threads") == "1|0\n2|0\n");
#pragma once

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <memory>
#include <stdexcept>

#include "recorder/store/sqlite_database.hpp"
#include "tests/support/packed_activations.hpp"
#include "tests/support/packed_events.hpp"
#include "tests/support/packed_transfers.hpp"
#include "recorder/store/trace_database.hpp"
#include "recorder/store/trace_store.hpp"
#include "recorder/store/trace_import.hpp"
#include "recorder/import/trace_source.hpp"

namespace skein::test {

// A fresh folder under /tmp, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/skein-store-test-XXXXXX";
    if (mkdtemp(name) != nullptr) path_ = name;
  }
  ~TempDir() { remove_tree(path_); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] std::string file(const std::string& name) const { return path_ + "/" + name; }
  // The names in the folder, sorted.
  [[nodiscard]] std::vector<std::string> entries() const {
    std::vector<std::string> out;
    if (DIR* d = opendir(path_.c_str())) {
      while (const dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") out.push_back(n);
      }
      closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  static void remove_tree(const std::string& path) {
    if (path.empty()) return;
    if (DIR* d = opendir(path.c_str())) {
      while (const dirent* e = readdir(d)) {
        const std::string n = e->d_name;
        if (n == "." || n == "..") continue;
        const std::string child = path + "/" + n;
        if (e->d_type == DT_DIR) remove_tree(child);
        else unlink(child.c_str());
      }
      closedir(d);
    }
    rmdir(path.c_str());
  }
  std::string path_;
};

inline void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline bool file_exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

// Imports a trace held in memory (any format; `name` is used in messages).
inline ImportResult import_text(const std::string& trace, const std::string& db, ImportOptions options = {},
                                const std::string& name = "t.sexp") {
  options.sync = false;
  auto source = open_trace_memory(trace, name);
  if (!source) {
    ImportResult r;
    r.failure = ImportResult::Failure::unreadable;
    r.error = source.error();
    return r;
  }
  return import_source(std::move(source).value(), db, options);
}

// The owner of the trace database at `db` (trace_database.hpp), opened and
// checked as the tools open it: what writes derived tables go through.
// Throws, with the open's error, when it cannot be opened.
inline std::shared_ptr<TraceDatabase> owner_of(const std::string& db) {
  auto opened = TraceStore::open(db);
  if (!opened) throw std::runtime_error(opened.error().to_string());
  return opened.value().owner();
}

// The rows of `sql` on the database at `path`, as text; "ERROR: ..." when
// the query fails. Opened read-only, without the Skein schema check, so it
// works on any SQLite file. In a trace database a query that names
// `events` reads the records as that table (packed_events.hpp), one that
// names `activations` the activations (packed_activations.hpp), and one
// that names `transfers` Why?'s stored causes (packed_transfers.hpp), which
// SQLite creates only on a connection that may write: that one connection
// is opened read-write, and writes nothing but its TEMP tables.
inline std::string query(const std::string& path, const std::string& sql) {
  const bool events = sql.find("events") != std::string::npos;
  const bool transfers = sql.find("transfers") != std::string::npos;
  const bool activations = sql.find("activations") != std::string::npos;
  auto db = events || transfers || activations ? SqliteDatabase::open_for_update(path) : SqliteDatabase::open_untrusted(path);
  if (!db) return "ERROR: " + db.error().to_string();
  try {
    if (events && has_packed_events(db.value().handle())) expose_events(db.value().handle());
    if (transfers && has_packed_transfers(db.value().handle())) expose_transfers(db.value().handle());
    if (activations && has_packed_activations(db.value().handle())) expose_activations(db.value().handle());
  } catch (const std::exception& e) {
    return std::string("ERROR: ") + e.what();
  }
  auto stmt = db.value().prepare(sql);
  if (!stmt) return "ERROR: " + stmt.error().to_string();
  SqliteStatement& q = stmt.value();
  std::string out;
  for (;;) {
    auto row = q.step();
    if (!row) return "ERROR: " + row.error().to_string();
    if (!row.value()) break;
    for (int c = 0; c < q.column_count(); ++c) {
      if (c > 0) out += '|';
      out += q.is_null(c) ? std::string("NULL") : std::string(q.text(c));
    }
    out += '\n';
  }
  return out;
}

// What thread_labels should hold (SCHEMA.md), computed from the records
// read back as `events`, not by the import's derivation: for each thread
// whose label records (head 2) give two or more distinct texts, each text
// by its first appearance, as "thread|label" rows in thread then position
// order. Run it with query().
inline constexpr const char* kThreadLabelsFromRecords =
    "WITH firsts AS (SELECT actor AS thread, text AS label, min(id) AS first FROM events WHERE head = 2 "
    "GROUP BY actor, text) "
    "SELECT thread, label FROM firsts WHERE thread IN (SELECT thread FROM firsts GROUP BY thread "
    "HAVING count(*) >= 2) ORDER BY thread, first";

// Opens the database at `path` read-write with SQLite's own library, as
// another tool would, and runs `sql`; "" on success, else SQLite's message.
// How tests damage or change a database behind Skein's back.
inline std::string edit_database(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string error;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    error = db ? sqlite3_errmsg(db) : "out of memory";
  } else {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK)
      error = message ? message : "error";
    sqlite3_free(message);
  }
  sqlite3_close(db);
  return error;
}

}  // namespace skein::test
