// store_fixture_test.cpp — the store on the real 2014 MirageOS traces
// (SKEIN_FIXTURES, default ../shared/fixtures/mirage; skipped when absent):
// each imports completely (3,915 / 18,780 / 10,078 records) into a sound
// database whose counts per head are the importers' (mirage_fixture_test),
// with no warnings; and opening one through the cache never writes into the
// fixtures' folder, which no one may write to.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "recorder/trace_cache.hpp"
#include "recorder/trace_import.hpp"
#include "tests/recorder/fixture_path.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

namespace {

struct Expected {
  const char* file;
  const char* format;
  const char* records;
  const char* heads;  // name|records of the heads present, in head order
};

const Expected kFixtures[] = {
    // Switches and returns split as mirage_fixture_test says why.
    {"log-x86.sexp", "mirage-sexp", "3915",
     "spawn|858\nlabel|341\nswitch|135\nread|1706\nresolve|726\nmerge|117\nreturn|32\n"},
    {"log-x86-v0.sexp", "mirage-sexp", "18780",
     "spawn|4203\nlabel|2159\nswitch|267\nread|7963\nresolve|3626\nmerge|562\n"},
    {"net.ctf", "mirage-ctf", "10078",
     "spawn|1816\nlabel|2185\nswitch|137\nread|2596\nresolve|1513\nmerge|215\ncounter|1394\ngc|1\nreturn|221\n"},
};

}  // namespace

TEST_CASE("store fixtures: the three 2014 traces import completely into sound databases") {
  for (const Expected& e : kFixtures) {
    const std::string path = test::fixture_path(e.file);
    if (path.empty()) return;
    INFO(e.file);
    TempDir dir;
    const std::string db = dir.file("f.db");
    ImportOptions options;
    options.sync = false;
    const ImportResult r = import_trace(path, db, options);
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    CHECK(r.report.format == e.format);
    CHECK(r.report.warning_count == 0);
    CHECK(query(db, "PRAGMA integrity_check") == "ok\n");
    CHECK(query(db, "SELECT rtreecheck('thread_spans')") == "ok\n");
    CHECK(query(db, "SELECT value FROM meta WHERE key = 'records'") == std::string(e.records) + "\n");
    CHECK(query(db, "SELECT count(*) FROM events") == std::string(e.records) + "\n");
    CHECK(query(db, "SELECT name, records FROM heads WHERE records > 0 ORDER BY id") == e.heads);
    // Every thread id the records name, but the scheduler, is a thread.
    CHECK(query(db, "SELECT count(*) FROM threads") ==
          query(db, "SELECT count(*) FROM (SELECT actor AS t FROM events WHERE actor IS NOT NULL UNION "
                    "SELECT target FROM events WHERE target IS NOT NULL) WHERE t <> -1"));
    // Run times are the sums of the activations, which do not overlap.
    CHECK(query(db, "SELECT count(*) FROM threads t WHERE run_time <> (SELECT coalesce(sum(end - start), 0) "
                    "FROM activations a WHERE a.thread = t.id)") == "0\n");
    CHECK(query(db, "SELECT count(*) FROM activations a JOIN activations b ON b.id = a.id + 1 "
                    "WHERE b.start < a.end OR b.event <= a.event") == "0\n");
    CHECK(query(db, "SELECT count(*), max(id) FROM activations") ==
          query(db, "SELECT max(id), max(id) FROM activations"));
  }
}

TEST_CASE("store fixtures: the cache of a fixture goes to XDG_CACHE_HOME, never beside it") {
  const std::string path = test::fixture_path("log-x86.sexp");
  if (path.empty()) return;
  TempDir dir;
  REQUIRE(setenv("XDG_CACHE_HOME", dir.path().c_str(), 1) == 0);
  StoreOpenOptions options;
  options.import.sync = false;
  OpenedStore first = open_store(path, options);
  OpenedStore second = open_store(path, options);
  unsetenv("XDG_CACHE_HOME");
  INFO(first.error.to_string());
  REQUIRE(first.ok());
  CHECK(first.imported);
  CHECK_THAT(first.database_path, Catch::StartsWith(dir.path() + "/skein/log-x86.sexp-"));
  REQUIRE(second.ok());
  CHECK_FALSE(second.imported);
  CHECK(second.database_path == first.database_path);
  CHECK_FALSE(test::file_exists(path + ".skein.db"));
}
