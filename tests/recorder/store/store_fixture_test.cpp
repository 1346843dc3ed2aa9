// store_fixture_test.cpp — the store on the real 2014 MirageOS traces
// (SKEIN_FIXTURES, default ../shared/fixtures/mirage; skipped when absent):
// each imports completely (3,915 / 18,780 / 10,078 records) into a sound
// database whose counts per head are the importers' (mirage_fixture_test),
// with no warnings; and opened_store.hpp's rule on where a fixture's cache
// goes, tried on a copy of it in a temporary folder of each kind: beside
// the trace in a folder this user may write, in $XDG_CACHE_HOME/skein/
// when the folder's mode has no write bit (root included, though root
// could write there), and for a folder only others may write, beside it
// for root and in XDG_CACHE_HOME for its owner.
//
// Invariant: nothing here writes into the fixtures' folder. The fixtures
// are only ever read (imported into a temporary database, or copied), so a
// run as root, which may write where the fixtures live, leaves them alone.
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <optional>

#include "recorder/store/opened_store.hpp"
#include "recorder/store/trace_import.hpp"
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
    // Switches and returns split, and the S-expression logs' last record
    // is the dump mark (a snapshot, not a resolve), as mirage_fixture_test
    // says why.
    {"log-x86.sexp", "mirage-sexp", "3915",
     "spawn|858\nlabel|341\nswitch|135\nread|1706\nresolve|725\nmerge|117\nreturn|32\nsnapshot|1\n"},
    {"log-x86-v0.sexp", "mirage-sexp", "18780",
     "spawn|4203\nlabel|2159\nswitch|267\nread|7963\nresolve|3625\nmerge|562\nsnapshot|1\n"},
    {"net.ctf", "mirage-ctf", "10078",
     "spawn|1816\nlabel|2185\nswitch|137\nread|2596\nresolve|1513\nmerge|215\ncounter|1394\ngc|1\nreturn|221\n"},
};

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The names in `folder`, sorted (TempDir::entries() for a folder inside one).
std::vector<std::string> entries_of(const std::string& folder) {
  std::vector<std::string> out;
  if (DIR* d = opendir(folder.c_str())) {
    while (const dirent* e = readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") out.push_back(n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// An environment variable set for the scope; what it was comes back after.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    REQUIRE(setenv(name, value.c_str(), 1) == 0);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A folder's mode for the scope, 0755 after, so that TempDir can empty it.
class FolderMode {
 public:
  FolderMode(std::string folder, mode_t mode) : folder_(std::move(folder)) {
    REQUIRE(chmod(folder_.c_str(), mode) == 0);
  }
  ~FolderMode() { chmod(folder_.c_str(), 0755); }
  FolderMode(const FolderMode&) = delete;
  FolderMode& operator=(const FolderMode&) = delete;

 private:
  std::string folder_;
};

// Opens `trace` through its cache (the default placement: no cache_dir)
// twice: the first imports the whole fixture, the second reuses that
// cache, whose path it returns.
std::string open_twice(const std::string& trace) {
  StoreOpenOptions options;
  options.import.sync = false;
  const OpenedStore first = open_store(trace, options);
  INFO(first.error.to_string());
  REQUIRE(first.ok());
  CHECK(first.imported);
  CHECK(first.import_report.records == 3915);
  const OpenedStore second = open_store(trace, options);
  INFO(second.error.to_string());
  REQUIRE(second.ok());
  CHECK_FALSE(second.imported);
  CHECK(second.database_path == first.database_path);
  return first.database_path;
}

// True when `path` is XDG_CACHE_HOME's `skein/log-x86.sexp-HASH.skein.db`,
// HASH in hex digits (opened_store.hpp).
// It is the one file there.
bool in_xdg_cache(const std::string& path, const std::string& xdg) {
  INFO(path);
  const std::string folder = xdg + "/skein";
  const std::string prefix = folder + "/log-x86.sexp-";
  const std::string suffix = ".skein.db";
  if (!path.starts_with(prefix) || !path.ends_with(suffix) || path.size() <= prefix.size() + suffix.size())
    return false;
  const std::string hash = path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
  return hash.find_first_not_of("0123456789abcdef") == std::string::npos &&
         entries_of(folder) == std::vector<std::string>{path.substr(folder.size() + 1)};
}

// Imports the fixture at `path` into `db`, without syncing: a test's
// database, rebuilt at need.
ImportResult import_fixture(const std::string& path, const std::string& db) {
  ImportOptions options;
  options.sync = false;
  return import_trace(path, db, options);
}

}  // namespace

TEST_CASE("store fixtures: the three 2014 traces import completely into sound databases") {
  for (const Expected& e : kFixtures) {
    const std::string path = test::fixture_path(e.file);
    if (path.empty()) return;
    INFO(e.file);
    TempDir dir;
    const std::string db = dir.file("f.db");
    const ImportResult r = import_fixture(path, db);
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

TEST_CASE("store fixtures: a fixture's cache follows the folder rule, on a copy of the fixture") {
  const std::string fixture = test::fixture_path("log-x86.sexp");
  if (fixture.empty()) return;
  TempDir dir;
  const std::string folder = dir.file("traces");
  REQUIRE(mkdir(folder.c_str(), 0755) == 0);
  const std::string trace = folder + "/log-x86.sexp";
  const std::string bytes = read_bytes(fixture);
  REQUIRE(bytes.size() > 100'000);
  test::write_file(trace, bytes);
  REQUIRE(read_bytes(trace) == bytes);
  const std::string xdg = dir.file("xdg");
  const ScopedEnv xdg_cache_home("XDG_CACHE_HOME", xdg);
  const bool root = geteuid() == 0;

  SECTION("a folder this user may write: the cache is TRACE.skein.db beside the trace") {
    const std::string cache = open_twice(trace);
    CHECK(cache == trace + ".skein.db");
    CHECK(entries_of(folder) == std::vector<std::string>{"log-x86.sexp", "log-x86.sexp.skein.db"});
    CHECK_FALSE(test::file_exists(xdg));
  }
  SECTION("a folder with no write bit (0555): the cache goes to XDG_CACHE_HOME, for root too") {
    const FolderMode mode(folder, 0555);
    // Root passes every access() check: the folder stays untouched because
    // of the product's rule ("some write bit is set"), not because a write
    // would fail. Any other user is refused by the kernel as well.
    CHECK((access(folder.c_str(), W_OK) == 0) == root);
    const std::string cache = open_twice(trace);
    CHECK(in_xdg_cache(cache, xdg));
    CHECK(entries_of(folder) == std::vector<std::string>{"log-x86.sexp"});
  }
  SECTION("a folder only others may write (0575): beside it for root, in XDG_CACHE_HOME for its owner") {
    // The owner's bits deny writing, which access() applies to the owner;
    // root's rule only asks for some write bit, and the probe file succeeds.
    const FolderMode mode(folder, 0575);
    const std::string cache = open_twice(trace);
    if (root) {
      CHECK(cache == trace + ".skein.db");
      CHECK(entries_of(folder) == std::vector<std::string>{"log-x86.sexp", "log-x86.sexp.skein.db"});
      CHECK_FALSE(test::file_exists(xdg));
    } else {
      CHECK(in_xdg_cache(cache, xdg));
      CHECK(entries_of(folder) == std::vector<std::string>{"log-x86.sexp"});
    }
  }
}

TEST_CASE("store fixtures: thread_labels holds every label of each thread with several, as its records give them") {
  for (const Expected& e : kFixtures) {
    const std::string path = test::fixture_path(e.file);
    if (path.empty()) return;
    INFO(e.file);
    TempDir dir;
    const std::string db = dir.file("f.db");
    REQUIRE(import_fixture(path, db).ok());
    const std::string stored = query(db, "SELECT thread, label FROM thread_labels ORDER BY thread, position");
    CHECK(stored == query(db, test::kThreadLabelsFromRecords));
    // Positions count from 0 in each thread, with no gap.
    CHECK(query(db, "SELECT count(*) FROM (SELECT thread, count(*) AS n, max(position) AS top, min(position) AS low "
                    "FROM thread_labels GROUP BY thread) WHERE n < 2 OR top <> n - 1 OR low <> 0") == "0\n");
    // Position 0 is the thread's label.
    CHECK(query(db, "SELECT count(*) FROM thread_labels l JOIN threads t ON t.id = l.thread "
                    "WHERE l.position = 0 AND t.label IS NOT l.label") == "0\n");
    if (std::string(e.file) == "log-x86.sexp") {
      // Read off the trace's `(Label THREAD TEXT)` ops by hand: 198 threads
      // are labelled, 35 of them with two distinct texts (70 rows).
      // Thread 389 is labelled `blkfront.read`, then `B.read` (lines 1730
      // and 1731); thread 373, `blkfront.poll` 32 times (from line 1750),
      // has one label and no row.
      CHECK(query(db, "SELECT count(DISTINCT thread), count(*) FROM thread_labels") == "35|70\n");
      CHECK(query(db, "SELECT label FROM thread_labels WHERE thread = 389 ORDER BY position") ==
            "blkfront.read\nB.read\n");
      CHECK(query(db, "SELECT count(*) FROM thread_labels WHERE thread = 373") == "0\n");
      CHECK(query(db, "SELECT label FROM threads WHERE id = 373") == "blkfront.poll\n");
    }
  }
}
