// store_untrusted_test.cpp — a database made elsewhere is untrusted input:
// TraceStore::open refuses, with a clear message, anything that is not a
// Skein database of this schema version, and reads the rest defensively
// (read-only, no writes to anything). A database SQLite cannot read where
// it lies (WAL mode in a folder that cannot be written) is refused with that
// reason, not as "not an SQLite database".
#include <sqlite3.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "recorder/store/store_schema.hpp"
#include "recorder/store/trace_store.hpp"
#include "tests/support/file_modes_enforced.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

const std::string kTrace = "(skein-trace 1)\n(spawn 10 1 0 task)\n(resolve 20 1 1 ok)\n";

std::string open_error(const std::string& path) {
  auto store = TraceStore::open(path);
  return store.ok() ? "opened" : store.error().to_string();
}

}  // namespace

TEST_CASE("untrusted: a valid database opens") {
  TempDir dir;
  const std::string db = dir.file("ok.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  CHECK(store.value().meta_int("records") == 2);
  CHECK(store.value().meta_text("format") == "skein");
  auto threads = store.value().threads();
  REQUIRE(threads.ok());
  REQUIRE(threads.value().size() == 2);
  CHECK(threads.value()[1].id == 1);
  CHECK(threads.value()[1].outcome == "ok");
  auto counts = store.value().thread_counts();
  REQUIRE(counts.ok());
  CHECK(counts.value().total == 2);
  CHECK(counts.value().implicit == 1);
  CHECK(counts.value().pending == 1);
}

TEST_CASE("untrusted: the wrong user_version, application_id, or another program's database") {
  TempDir dir;
  const std::string db = dir.file("v.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  REQUIRE(test::edit_database(db, "PRAGMA user_version = 7").empty());
  CHECK(open_error(db) == db + ": not a Skein database (user_version 7, expected 6)");
  REQUIRE(test::edit_database(db, "PRAGMA user_version = 1").empty());
  CHECK(open_error(db) == db + ": a database of an older Skein (schema 1, this one reads schema 6): import its trace again");
  REQUIRE(test::edit_database(db, "PRAGMA user_version = 4").empty());
  CHECK(open_error(db) == db + ": a database of an older Skein (schema 4, this one reads schema 6): import its trace again");
  // Schema 5 kept one row per activation.
  REQUIRE(test::edit_database(db, "PRAGMA user_version = 5").empty());
  CHECK(open_error(db) == db + ": a database of an older Skein (schema 5, this one reads schema 6): import its trace again");
  REQUIRE(test::edit_database(db, "PRAGMA user_version = 6; PRAGMA application_id = 42").empty());
  CHECK(open_error(db) == db + ": not a Skein database (application_id 42, expected 1399549489)");

  const std::string other = dir.file("other.db");
  test::write_file(other, "");  // an empty file is an empty database
  REQUIRE(test::edit_database(other, "CREATE TABLE t(x)").empty());
  CHECK(open_error(other) == other + ": not a Skein database (user_version 0, expected 6)");
}

TEST_CASE("untrusted: a missing table, a changed column, a view or R*Tree defined otherwise") {
  TempDir dir;
  const std::string base = dir.file("base.db");
  REQUIRE(test::import_text(kTrace, base).ok());
  struct Case {
    std::string sql;
    std::string why;
  };
  const std::vector<Case> cases = {
      {"DROP TABLE counters", "no table 'counters'"},
      {"ALTER TABLE threads DROP COLUMN implicit",
       "table 'threads' has columns (id,parent,kind,site,label,created,first_run,resolved,outcome,failure,"
       "merged_into,run_time,first_event,last_event,first_activation,last_activation), expected (id,parent,"
       "kind,site,label,created,first_run,resolved,outcome,failure,merged_into,run_time,implicit,first_event,"
       "last_event,first_activation,last_activation)"},
      {"ALTER TABLE event_blocks ADD COLUMN extra",
       "table 'event_blocks' has columns (id,first_event,last_event,start,end,first_activation,last_activation,"
       "records,extra), expected (id,first_event,last_event,start,end,first_activation,last_activation,records)"},
      {"DROP TABLE thread_spans; CREATE VIEW thread_spans(id, start, end) AS SELECT id, created, resolved "
       "FROM threads",
       "'thread_spans' is a view, expected a table"},
      {"PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'CREATE TABLE meta(key TEXT PRIMARY KEY "
       "NOT NULL, value BLOB) WITHOUT ROWID' WHERE name = 'meta'",
       "table 'meta' is defined differently from Skein's schema"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].sql);
    const std::string copy = dir.file("c" + std::to_string(i) + ".db");
    test::write_file(copy, [&] {
      std::ifstream in(base, std::ios::binary);
      return std::string(std::istreambuf_iterator<char>(in), {});
    }());
    REQUIRE(test::edit_database(copy, cases[i].sql).empty());
    CHECK(open_error(copy) == copy + ": not a Skein database (" + cases[i].why + ")");
  }
}

TEST_CASE("untrusted: files that are not SQLite databases, or are cut short") {
  TempDir dir;
  const std::string text = dir.file("text.db");
  test::write_file(text, "this is not a database, but long enough to have a header of sorts\n");
  CHECK_THAT(open_error(text), Catch::StartsWith(text + ": not a Skein database (not an SQLite database: ") &&
                                   Catch::Contains("file is not a database"));
  const std::string empty = dir.file("empty.db");
  test::write_file(empty, "");
  CHECK(open_error(empty) == empty + ": not a Skein database (user_version 0, expected 6)");
  CHECK_THAT(open_error(dir.file("missing.db")), Catch::StartsWith(dir.file("missing.db") + ": cannot open"));

  // A real database cut in half: refused or readable, never a crash.
  const std::string db = dir.file("full.db");
  std::string trace = "(skein-trace 1)\n";
  for (int i = 1; i < 3000; ++i)
    trace += "(spawn " + std::to_string(i) + " " + std::to_string(i) + " 0 task)\n";
  REQUIRE(test::import_text(trace, db).ok());
  std::ifstream in(db, std::ios::binary);
  const std::string bytes(std::istreambuf_iterator<char>(in), {});
  const std::string cut = dir.file("cut.db");
  test::write_file(cut, bytes.substr(0, bytes.size() / 2));
  auto store = TraceStore::open(cut);
  if (store.ok()) {
    auto threads = store.value().threads();
    CHECK_FALSE(threads.ok());  // pages past the cut are missing
  }
}

TEST_CASE("untrusted: the connection cannot write") {
  TempDir dir;
  const std::string db = dir.file("ro.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  CHECK_FALSE(store.value().database().exec("DELETE FROM event_blocks").ok());
  CHECK_FALSE(store.value().database().exec("INSERT INTO thread_spans_node VALUES (9, x'00')").ok());
  CHECK(test::query(db, "SELECT count(*) FROM events") == "2\n");
  CHECK(test::query(db, "SELECT count(*) FROM event_blocks") == "1\n");
}

TEST_CASE("untrusted: a WAL database in a folder that cannot be written is refused with the true reason") {
  TempDir dir;
  const std::string folder = dir.file("ro");
  REQUIRE(mkdir(folder.c_str(), 0755) == 0);
  const std::string db = folder + "/wal.db";
  REQUIRE(test::import_text(kTrace, db).ok());
  REQUIRE(test::edit_database(db, "PRAGMA journal_mode = WAL").empty());
  REQUIRE_FALSE(test::file_exists(db + "-wal"));  // a clean close removes them
  REQUIRE_FALSE(test::file_exists(db + "-shm"));
  // Where its folder can be written, SQLite makes the files it needs (a
  // read-only connection may leave them: they hold nothing once it is
  // closed, and go, so that the folder is as a copy of the file leaves it).
  REQUIRE(TraceStore::open(db).ok());
  std::remove((db + "-shm").c_str());
  std::remove((db + "-wal").c_str());

  REQUIRE(chmod(folder.c_str(), 0555) == 0);
  std::string error;
  {
    const test::FileModesEnforced modes;  // root obeys the folder's mode too
    REQUIRE(modes.ok());
    error = open_error(db);
  }
  REQUIRE(chmod(folder.c_str(), 0755) == 0);
  INFO(error);
  CHECK(error.rfind(db + ": cannot read this database in WAL mode here: SQLite needs " + db +
                        "-shm and -wal beside it and cannot create them, its folder is not writable (",
                    0) == 0);
  CHECK(error.find("sqlite3 " + db + " 'PRAGMA journal_mode=DELETE'") != std::string::npos);
  CHECK(error.find("not an SQLite database") == std::string::npos);
  CHECK(error.find("not a Skein database") == std::string::npos);
  // The same bytes in a rollback-journal database in that folder still open.
  REQUIRE(test::edit_database(db, "PRAGMA journal_mode = DELETE").empty());
  REQUIRE(chmod(folder.c_str(), 0555) == 0);
  {
    const test::FileModesEnforced modes;
    REQUIRE(modes.ok());
    error = open_error(db);
  }
  REQUIRE(chmod(folder.c_str(), 0755) == 0);
  CHECK(error == "opened");
}
