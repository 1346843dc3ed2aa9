// opened_store_test.cpp — opening a trace through its cache database
// (opened_store.hpp): imported once, reused while the trace is unchanged,
// rebuilt when its size, modification time or first 64 KiB change or when
// the cache is damaged; placed in the XDG cache folder when the trace's
// folder may not be written; a database is opened as it is.
#include <fcntl.h>
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "recorder/store/opened_store.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

const std::string kTrace = "(skein-trace 1)\n(spawn 10 1 0 task)\n(resolve 20 1 1 ok)\n";

OpenedStore open(const std::string& path, const std::string& cache_dir = "") {
  StoreOpenOptions options;
  options.import.sync = false;
  options.cache_dir = cache_dir;
  return open_store(path, options);
}

void set_mtime(const std::string& path, std::int64_t seconds) {
  const timespec times[2] = {{seconds, 0}, {seconds, 0}};
  REQUIRE(utimensat(AT_FDCWD, path.c_str(), times, 0) == 0);
}

}  // namespace

TEST_CASE("cache: a trace is imported once beside itself, then reused") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  test::write_file(trace, kTrace);
  OpenedStore first = open(trace);
  INFO(first.error.to_string());
  REQUIRE(first.ok());
  CHECK(first.imported);
  CHECK(first.database_path == trace + ".skein.db");
  CHECK(first.store->meta_int("records") == 2);
  CHECK(first.import_report.records == 2);

  OpenedStore second = open(trace);
  REQUIRE(second.ok());
  CHECK_FALSE(second.imported);
  CHECK(second.database_path == trace + ".skein.db");
}

TEST_CASE("cache: a changed trace is imported again") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  test::write_file(trace, kTrace);
  set_mtime(trace, 1'700'000'000);
  REQUIRE(open(trace).imported);

  SECTION("its size changes") {
    test::write_file(trace, kTrace + "(spawn 30 2 0 task)\n");
    set_mtime(trace, 1'700'000'000);
    OpenedStore again = open(trace);
    REQUIRE(again.ok());
    CHECK(again.imported);
    CHECK(again.store->meta_int("records") == 3);
  }
  SECTION("only its modification time changes") {
    set_mtime(trace, 1'700'000'001);
    CHECK(open(trace).imported);
  }
  SECTION("same size and time, other bytes in the first 64 KiB") {
    std::string changed = kTrace;
    changed.replace(changed.find("(spawn 10"), 9, "(spawn 11");
    test::write_file(trace, changed);
    set_mtime(trace, 1'700'000'000);
    OpenedStore again = open(trace);
    REQUIRE(again.ok());
    CHECK(again.imported);
    CHECK(again.store->meta_int("first_time") == 11);
  }
  SECTION("the cache is damaged") {
    test::write_file(trace + ".skein.db", "garbage");
    OpenedStore again = open(trace);
    REQUIRE(again.ok());
    CHECK(again.imported);
  }
  SECTION("unchanged: reused") {
    CHECK_FALSE(open(trace).imported);
  }
}

TEST_CASE("cache: a folder that may not be written sends the cache to XDG_CACHE_HOME") {
  TempDir dir;
  const std::string folder = dir.file("ro");
  REQUIRE(mkdir(folder.c_str(), 0755) == 0);
  const std::string trace = folder + "/t.sexp";
  test::write_file(trace, kTrace);
  REQUIRE(chmod(folder.c_str(), 0555) == 0);  // no write bit for anyone: left alone, even by root
  const std::string xdg = dir.file("xdg");
  REQUIRE(setenv("XDG_CACHE_HOME", xdg.c_str(), 1) == 0);
  OpenedStore opened = open(trace);
  unsetenv("XDG_CACHE_HOME");
  chmod(folder.c_str(), 0755);
  INFO(opened.error.to_string());
  REQUIRE(opened.ok());
  CHECK(opened.imported);
  CHECK_THAT(opened.database_path, Catch::StartsWith(xdg + "/skein/t.sexp-") && Catch::EndsWith(".skein.db"));
  CHECK(dir.entries() == std::vector<std::string>{"ro", "xdg"});
  CHECK_FALSE(test::file_exists(trace + ".skein.db"));
}

TEST_CASE("cache: a database is opened as it is, and errors say what is wrong") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  OpenedStore opened = open(db);
  REQUIRE(opened.ok());
  CHECK_FALSE(opened.imported);
  CHECK(opened.database_path == db);

  const OpenedStore missing = open(dir.file("none.sexp"));
  CHECK(missing.failure == OpenedStore::Failure::unreadable);
  CHECK(missing.error.to_string() == dir.file("none.sexp") + ": cannot open: No such file or directory");

  const std::string bad = dir.file("bad.sexp");
  test::write_file(bad, "(skein-trace 1)\n(spawn 1 x 0 task)\n");
  const OpenedStore invalid = open(bad);
  CHECK(invalid.failure == OpenedStore::Failure::invalid);
  CHECK(invalid.error.to_string() == bad + ":2:10: expected an integer thread id after 'spawn'");
  CHECK_FALSE(test::file_exists(bad + ".skein.db"));

  const std::string other = dir.file("other.db");
  test::write_file(other, std::string("SQLite format 3") + '\0' + std::string(100, 'x'));
  const OpenedStore not_ours = open(other);
  CHECK(not_ours.failure == OpenedStore::Failure::unreadable);
  CHECK_THAT(not_ours.error.to_string(), Catch::StartsWith(other + ": not a Skein database"));
}
