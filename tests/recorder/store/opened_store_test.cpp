// opened_store_test.cpp — opening a trace through its cache database
// (opened_store.hpp): imported once, reused while the trace is unchanged,
// rebuilt when its size, modification time or first 64 KiB change or when
// the cache is damaged; placed in the XDG cache folder when the trace's
// folder may not be written, or when SQLite could not keep a database
// beside the trace (a path past its limit, a name with no room for
// -journal); a database is opened as it is, unless its path is past
// SQLite's limit, which is refused in so many words (database_path.hpp).
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "recorder/output/pending_file.hpp"
#include "recorder/store/database_path.hpp"
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

// A folder under `dir` whose path is `length` bytes long (made of folders
// of at most 200 bytes), created.
std::string deep_folder(const TempDir& dir, std::size_t length) {
  std::string path = dir.path();
  REQUIRE(length > path.size() + 2);
  while (path.size() < length) {
    const std::size_t part = std::min<std::size_t>(200, length - path.size() - 1);
    path += "/" + std::string(part == 0 ? 1 : part, 'd');
    if (mkdir(path.c_str(), 0755) != 0) REQUIRE(errno == EEXIST);
  }
  REQUIRE(path.size() == length);
  return path;
}

std::vector<std::string> entries_in(const std::string& folder) {
  std::vector<std::string> out;
  if (DIR* d = opendir(folder.c_str())) {
    while (const dirent* e = readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") out.push_back(e->d_name);
    closedir(d);
  }
  return out;
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

// SQLite's unix VFS keeps a database at a resolved path of at most
// mxPathname - 8 bytes (504 with SQLite 3.40: room for -journal); past
// that it says only "unable to open database file". Skein refuses such a
// path first, naming its length and the limit; and a database's name
// must leave 8 bytes of NAME_MAX for -journal.
TEST_CASE("database path: a path past SQLite's limit is refused with its length and the limit") {
  TempDir dir;
  const std::size_t limit = longest_database_path();
  CHECK(limit == 504);  // SQLite 3.40, Debian 12
  const std::string trace = dir.file("t.sexp");
  test::write_file(trace, kTrace);

  // The last byte that fits, and the first that does not, resolved as
  // SQLite resolves them.
  const std::string folder = deep_folder(dir, limit - 11);
  const std::string fits = folder + "/fits.db";       // limit - 3 bytes
  const std::string too_long = folder + "/too-long.db";  // limit + 1 bytes
  REQUIRE(fits.size() == limit - 3);
  REQUIRE(too_long.size() == limit + 1);
  CHECK_FALSE(database_path_problem(fits, true));
  const auto problem = database_path_problem(too_long, true);
  REQUIRE(problem);
  CHECK(*problem == "is 505 bytes once made absolute, past the 504 bytes SQLite opens a database at (its "
                    "path limit, 512 bytes, less 8 for the -journal beside it): choose a shorter path");

  // An import there is refused before anything is created.
  ImportOptions quick;
  quick.sync = false;
  const ImportResult refused = import_trace(trace, too_long, quick);
  CHECK(refused.failure == ImportResult::Failure::database);
  CHECK(refused.error.to_string() == too_long + ": " + *problem);
  // One that fits, but whose temporary name does not, says so.
  const ImportResult temp_too_long = import_trace(trace, fits, quick);
  CHECK(temp_too_long.failure == ImportResult::Failure::database);
  CHECK_THAT(temp_too_long.error.to_string(),
             Catch::StartsWith(fits + ": is built under the temporary name " + PendingFile::temp_path_for(fits) +
                               ", which is ") &&
                 Catch::Contains("past the 504 bytes SQLite opens a database at"));
  CHECK(entries_in(folder).empty());

  // A database put there by other means, opened by a relative path from
  // inside the folder: SQLite resolves it, and so does the check.
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  REQUIRE(link(db.c_str(), too_long.c_str()) == 0);
  char previous[PATH_MAX];
  REQUIRE(getcwd(previous, sizeof previous) != nullptr);
  REQUIRE(chdir(folder.c_str()) == 0);
  const OpenedStore relative = open("too-long.db");
  REQUIRE(chdir(previous) == 0);
  CHECK(relative.failure == OpenedStore::Failure::unreadable);
  CHECK(relative.error.to_string() == "too-long.db: " + *problem);

  // Names: 247 bytes leave room for -journal, 248 do not.
  const std::string name_fits = dir.file(std::string(244, 'n') + ".db");
  const std::string name_too_long = dir.file(std::string(245, 'n') + ".db");
  CHECK_FALSE(database_path_problem(name_fits, true));
  CHECK(database_path_problem(name_too_long, true) ==
        "has a name of 248 bytes, past the 247 a database's name may have (the folder's NAME_MAX, 255 bytes, "
        "less 8 for SQLite's -journal beside it): choose a shorter name");
  CHECK_FALSE(database_path_problem(name_too_long, false));
  CHECK(import_trace(trace, name_fits, quick).ok());
  const ImportResult long_name = import_trace(trace, name_too_long, quick);
  CHECK(long_name.failure == ImportResult::Failure::database);
  CHECK_THAT(long_name.error.to_string(), Catch::Contains("has a name of 248 bytes"));
  CHECK_FALSE(test::file_exists(name_too_long));
}

// The cache beside a trace deep in a tree (or with a long name) would pass
// SQLite's limits: it goes to XDG_CACHE_HOME instead, as for a folder that
// may not be written, and the trace opens.
TEST_CASE("cache: a trace whose cache beside it would pass SQLite's limits has it in XDG_CACHE_HOME") {
  TempDir dir;
  const std::string xdg = dir.file("xdg");
  REQUIRE(setenv("XDG_CACHE_HOME", xdg.c_str(), 1) == 0);
  const std::string deep = deep_folder(dir, 490) + "/t.sexp";
  test::write_file(deep, kTrace);
  const std::string long_name = dir.file(std::string(245, 'l') + ".sexp");  // 250 bytes
  test::write_file(long_name, kTrace);
  OpenedStore from_deep = open(deep);
  OpenedStore from_long_name = open(long_name);
  unsetenv("XDG_CACHE_HOME");

  INFO(from_deep.error.to_string());
  REQUIRE(from_deep.ok());
  CHECK(from_deep.imported);
  CHECK_THAT(from_deep.database_path, Catch::StartsWith(xdg + "/skein/t.sexp-") && Catch::EndsWith(".skein.db"));
  CHECK_FALSE(test::file_exists(deep + ".skein.db"));

  INFO(from_long_name.error.to_string());
  REQUIRE(from_long_name.ok());
  CHECK(from_long_name.imported);
  const std::string name = from_long_name.database_path.substr(xdg.size() + 7);
  CHECK(name.size() == 247);
  CHECK_THAT(name, Catch::StartsWith(std::string(221, 'l') + "-") && Catch::EndsWith(".skein.db"));
  CHECK_FALSE(test::file_exists(long_name + ".skein.db"));
  // And the cache is reused.
  REQUIRE(setenv("XDG_CACHE_HOME", xdg.c_str(), 1) == 0);
  const OpenedStore again = open(deep);
  unsetenv("XDG_CACHE_HOME");
  CHECK(again.ok());
  CHECK_FALSE(again.imported);
}
