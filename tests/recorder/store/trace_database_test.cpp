// trace_database_test.cpp — the one owner of a trace database
// (trace_database.hpp): every reader and writer is of the file first
// opened, a value damaged by anyone is refused by whichever reader reads
// it, one writer at a time, and a write is all or nothing.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <future>
#include <string>

#include "recorder/store/activations_table.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/trace_database.hpp"
#include "recorder/store/trace_store.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

namespace {

const std::string kTrace = "(skein-trace 1)\n(spawn 10 1 0 task)\n(switch 15 1)\n(resolve 20 1 1 ok)\n(end 30)\n";

std::string imported(TempDir& dir, const std::string& name = "t.db") {
  const std::string db = dir.file(name);
  REQUIRE(test::import_text(kTrace, db).ok());
  return db;
}

}  // namespace

TEST_CASE("trace database: every reader is of the first open's owner and file") {
  TempDir dir;
  const std::string db = imported(dir);
  auto first = TraceStore::open(db);
  REQUIRE(first.ok());
  const std::shared_ptr<TraceDatabase> owner = first.value().owner();
  REQUIRE(owner != nullptr);
  CHECK(owner->path() == db);
  for (int i = 0; i < 3; ++i) {
    auto reader = owner->reader();
    REQUIRE(reader.ok());
    CHECK(reader.value().owner() == owner);
    // Task 1 and the scheduler's thread 0, which its spawn names.
    CHECK(reader.value().threads().value().size() == 2);
  }
}

TEST_CASE("trace database: what its own writer wrote, and what another wrote, the next reader reads") {
  TempDir dir;
  const std::string db = imported(dir);
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  {
    auto write = owner->begin_write(WriteDurability::durable);
    REQUIRE(write.ok());
    REQUIRE(replace_derived_rows(write.value().database(), kLayoutTable).ok());
    REQUIRE(write.value().database().exec("INSERT INTO layout_v2(thread, row) VALUES (1, 0)").ok());
    REQUIRE(write.value().commit().ok());
  }
  {
    auto reader = owner->reader();
    REQUIRE(reader.ok());
    CHECK(reader.value().database().query_int("SELECT row FROM layout_v2 WHERE thread = 1").value() == 0);
  }
  CHECK(query(db, "SELECT thread, row FROM layout_v2") == "1|0\n");

  // Another tool adds a table of its own and a row to it.
  REQUIRE(test::edit_database(db, "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES ('seen')").empty());
  auto reader = owner->reader();
  REQUIRE(reader.ok());
  CHECK(reader.value().database().query_int("SELECT count(*) FROM notes").value() == 1);
}

TEST_CASE("trace database: a value damaged after the open is refused by the reader that reads it") {
  TempDir dir;
  const std::string db = imported(dir);
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  // An update in place: the file's size does not change, and its time may
  // not either within the clock's tick.
  test::edit_activations(db, "UPDATE activations SET start = 9223372036854775807 WHERE id = 1");
  REQUIRE(test::edit_database(db, "UPDATE threads SET run_time = -1 WHERE id = 1").empty());
  auto reader = owner->reader();
  REQUIRE(reader.ok());
  std::size_t read = 0;
  const Status walked = for_each_activation(reader.value().database(), [&](const StoredActivation&) { ++read; });
  REQUIRE_FALSE(walked.ok());
  CHECK(read == 0);
  // Activation 1's event (one of the first four records) and thread (0 or
  // 1) take a byte each: its start is the third byte of the first block.
  CHECK(walked.error().to_string() == db + ": damaged Skein database: activation_blocks row 1: byte 2: a start "
                                           "outside 0 to 4611686018427387903 ns");
  auto threads = reader.value().threads();
  REQUIRE_FALSE(threads.ok());
  CHECK(threads.error().to_string() ==
        db + ": damaged Skein database: threads row 1: run_time is -1 (times are 0 to 4611686018427387903 ns)");
}

TEST_CASE("trace database: opening reads no value of the tables it checks as read") {
  TempDir dir;
  const std::string db = imported(dir);
  // Every row of both tables out of range: the open checks the shape and
  // meta's times only.
  REQUIRE(test::edit_database(db, "UPDATE activation_blocks SET activations = x'ff'; UPDATE threads SET parent = "
                                  "-9223372036854775808")
              .empty());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto threads = store.value().threads();
  REQUIRE_FALSE(threads.ok());
  CHECK(threads.error().to_string() ==
        db + ": damaged Skein database: threads row 0: parent is -9223372036854775808 (thread ids are "
             "-9223372036854775807 to 9223372036854775807)");
}

TEST_CASE("trace database: after a replacement at its path, neither a reader nor a writer is given") {
  TempDir dir;
  const std::string db = imported(dir);
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  const std::string other = imported(dir, "other.db");
  REQUIRE(std::rename(other.c_str(), db.c_str()) == 0);
  const std::string replaced = db + ": was replaced by another database since it was opened; open it again";
  auto reader = owner->reader();
  REQUIRE_FALSE(reader.ok());
  CHECK(reader.error().to_string() == replaced);
  auto write = owner->begin_write(WriteDurability::durable);
  REQUIRE_FALSE(write.ok());
  CHECK(write.error().to_string() == replaced);
  CHECK(query(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'anomalies'") == "0\n");
}

TEST_CASE("trace database: a write dropped without commit leaves nothing") {
  TempDir dir;
  const std::string db = imported(dir);
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  {
    auto write = owner->begin_write(WriteDurability::rebuildable);
    REQUIRE(write.ok());
    REQUIRE(replace_derived_rows(write.value().database(), kFindingsTable).ok());
    REQUIRE(define_anomalies_view(write.value().database()).ok());
    REQUIRE(replace_derived_rows(write.value().database(), kLayoutTable).ok());
  }
  CHECK(query(db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('anomalies', 'findings')") == "0\n");
  // The import's layout is still whole.
  CHECK(query(db, "SELECT thread FROM layout_v2 ORDER BY thread") == "0\n1\n");
  // The writer lock was let go with it.
  auto again = owner->begin_write(WriteDurability::rebuildable);
  REQUIRE(again.ok());
}

TEST_CASE("trace database: a second writer waits for the first instead of failing on its lock") {
  TempDir dir;
  const std::string db = imported(dir);
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  auto first = owner->begin_write(WriteDurability::rebuildable);
  REQUIRE(first.ok());
  REQUIRE(replace_derived_rows(first.value().database(), kLayoutTable).ok());
  auto second = std::async(std::launch::async, [&owner] {
    auto write = owner->begin_write(WriteDurability::rebuildable);
    if (!write) return write.error().to_string();
    // It sees the first writer's committed rows: it began after it.
    auto rows = write.value().database().query_int("SELECT count(*) FROM layout_v2");
    if (!rows) return rows.error().to_string();
    return std::to_string(rows.value());
  });
  // Longer than SQLite's busy timeout for a writer (2 s): a second
  // connection that did not wait for the first would have failed by then.
  CHECK(second.wait_for(std::chrono::milliseconds(2500)) == std::future_status::timeout);
  REQUIRE(first.value().database().exec("INSERT INTO layout_v2(thread, row) VALUES (1, 0)").ok());
  REQUIRE(first.value().commit().ok());
  CHECK(second.get() == "1");
}

TEST_CASE("derived tables: a table of that name with other columns is never written") {
  TempDir dir;
  const std::string db = imported(dir);
  // A database whose layout_v2 is someone else's table, not the import's.
  REQUIRE(test::edit_database(db, "DROP TABLE layout_v2; CREATE TABLE layout_v2(mine TEXT); "
                                  "INSERT INTO layout_v2 VALUES ('keep')").empty());
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  auto write = owner->begin_write(WriteDurability::durable);
  REQUIRE(write.ok());
  const Status s = replace_derived_rows(write.value().database(), kLayoutTable);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string() ==
        db + ": cannot store the layout: its table 'layout_v2' has columns (mine), not Skein's (thread,row)");
  CHECK(query(db, "SELECT mine FROM layout_v2") == "keep\n");
  CHECK_FALSE(defines_derived_table(write.value().database(), kLayoutTable));
}

TEST_CASE("derived tables: each is created exactly as the readers expect it") {
  TempDir dir;
  const std::string db = imported(dir);
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  auto write = owner->begin_write(WriteDurability::durable);
  REQUIRE(write.ok());
  for (const DerivedTable* table : kDerivedTables) {
    INFO(table->name);
    REQUIRE(replace_derived_rows(write.value().database(), *table).ok());
    CHECK(defines_derived_table(write.value().database(), *table));
    auto columns = has_derived_columns(write.value().database(), *table);
    REQUIRE(columns.ok());
    CHECK(columns.value());
  }
  // The view, over the findings' two tables.
  CHECK_FALSE(defines_derived_table(write.value().database(), kAnomaliesView));
  REQUIRE(define_anomalies_view(write.value().database()).ok());
  CHECK(defines_derived_table(write.value().database(), kAnomaliesView));
  auto columns = has_derived_columns(write.value().database(), kAnomaliesView);
  REQUIRE(columns.ok());
  CHECK(columns.value());
  REQUIRE(write.value().commit().ok());
}
