// anomaly_table_test.cpp — the findings in the database: store_anomalies()
// creates the `anomalies` table in an imported database, which then still
// passes the schema check; storing again replaces only the rules that ran;
// a user's own table of that name is left alone with an error; and a
// database that cannot be written, a read-only file or a file in a
// read-only folder, is linted all the same while storing fails and leaves
// its bytes as they were. "Cannot be written" is made real for root too
// (tests/support/file_modes_enforced.hpp): the kernel refuses the write.
// Given the identity of the file the lint read, a store into another file
// renamed into its place is refused and leaves that file as it was. A lint
// whose cancel flag is set stops as cancelled.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <fstream>
#include <iterator>

#include "tests/support/file_modes_enforced.hpp"
#include "tests/viewer/lint_test_support.hpp"
#include "viewer/analysis/anomaly_table.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

namespace {

const std::string kTrace =
    "(skein-trace 1)\n"
    "(spawn 1000 1 0 async)\n"
    "(resolve 2000 1 1 fail \"Not_found\")\n"
    "(spawn 3000 2 0 wait)\n"
    "(end 4000)\n";

LintReport lint(const std::string& db) {
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  LintOptions options;
  options.keep_transfers = true;
  auto report = lint_store(store.value(), options);
  REQUIRE(report.ok());
  return std::move(report).value();
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The errno of opening `path` with `flags`, 0 when it opens.
int open_errno(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC, 0644);
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

// A mode for the scope, `after` once it ends (so TempDir can empty a folder).
class ScopedMode {
 public:
  ScopedMode(std::string path, mode_t mode, mode_t after) : path_(std::move(path)), after_(after) {
    REQUIRE(chmod(path_.c_str(), mode) == 0);
  }
  ~ScopedMode() { chmod(path_.c_str(), after_); }
  ScopedMode(const ScopedMode&) = delete;
  ScopedMode& operator=(const ScopedMode&) = delete;

 private:
  std::string path_;
  mode_t after_;
};

}  // namespace

TEST_CASE("anomalies: findings are stored beside the trace's tables") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  const LintReport report = lint(db);
  REQUIRE(report.findings.size() == 2);
  REQUIRE(store_lint_report(*test::owner_of(db), report).ok());
  // A finding's id is its number in the report.
  CHECK(query(db, "SELECT id, rule, severity, time, thread, from_thread, suspect, event, grouping, message "
                  "FROM anomalies ORDER BY id") ==
        "1|unread-failure|error|2000|1|1|NULL|2|NULL|thread 1 failed (Not_found) and no other thread read its "
        "outcome\n"
        "2|pending-at-end|warning|3000|2|NULL|NULL|3|created by thread 0: 1 promise pending since 0.003000 ms|thread 2 "
        "is still pending at the end (0.004000 ms); waits on nothing recorded\n");
  // The replay's verdicts beside them, one per change of control (cause
  // codes: ControlCause): main's first record (first-actor, 1); 1, an
  // async spawned by the record just before, runs at once (4, explained by
  // event 1); main's spawn of 2 is control coming back to it (returns, 3).
  CHECK(query(db, "SELECT event, kind, thread, from_thread, cause, cause_event FROM transfers ORDER BY event, kind") ==
        "1|0|0|NULL|1|NULL\n"
        "2|0|1|0|4|1\n"
        "3|0|0|1|3|NULL\n");
  // Still a valid Skein database.
  CHECK(TraceStore::open(db).ok());
  // Storing again replaces every row, of both tables.
  REQUIRE(store_lint_report(*test::owner_of(db), LintReport{}).ok());
  CHECK(query(db, "SELECT count(*) FROM anomalies") == "0\n");
}

TEST_CASE("anomalies: a user's own table of that name is not touched") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  {
    auto w = SqliteDatabase::open_for_update(db);
    REQUIRE(w.ok());
    REQUIRE(w.value().exec("CREATE TABLE anomalies(note TEXT); INSERT INTO anomalies VALUES ('mine')").ok());
    REQUIRE(w.value().close().ok());
  }
  const Status s = store_lint_report(*test::owner_of(db), lint(db));
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string() == db + ": cannot store the findings: its table 'anomalies' has columns (note), not "
                                      "Skein's (id,rule,severity,time,thread,from_thread,suspect,event,grouping,message)");
  CHECK(query(db, "SELECT * FROM anomalies") == "mine\n");
}

TEST_CASE("anomalies: a database that cannot be written is linted all the same and nothing is stored") {
  TempDir dir;
  const std::string folder = dir.file("ro");
  REQUIRE(mkdir(folder.c_str(), 0755) == 0);
  const std::string db = folder + "/t.db";
  REQUIRE(test::import_text(kTrace, db).ok());
  const std::string before = read_bytes(db);
  REQUIRE_FALSE(before.empty());

  SECTION("a read-only file (0444)") {
    const ScopedMode mode(db, 0444, 0644);
    const test::FileModesEnforced modes;
    REQUIRE(modes.ok());
    // Not writable for this thread, root included: the kernel says so.
    REQUIRE(open_errno(db, O_RDWR) == EACCES);
    const LintReport report = lint(db);
    CHECK(report.findings.size() == 2);
    const Status s = store_lint_report(*test::owner_of(db), report);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().to_string() == db + ": the database is read-only");
  }
  SECTION("a file in a read-only folder (0555), where SQLite cannot make its journal") {
    const ScopedMode mode(folder, 0555, 0755);
    const test::FileModesEnforced modes;
    REQUIRE(modes.ok());
    REQUIRE(open_errno(folder + "/t.db-journal", O_WRONLY | O_CREAT | O_EXCL) == EACCES);
    const LintReport report = lint(db);
    CHECK(report.findings.size() == 2);
    const Status s = store_lint_report(*test::owner_of(db), report);
    REQUIRE_FALSE(s.ok());
    // SQLite's SQLITE_READONLY_DIRECTORY, from the first statement that writes.
    CHECK(s.error().to_string() == db + ": 'CREATE TABLE anomalies(id INTEGER PRIMARY KEY, rule TEXT NOT' failed: "
                                        "attempt to write a readonly database");
  }
  CHECK(read_bytes(db) == before);
  CHECK(query(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'anomalies'") == "0\n");
  CHECK_FALSE(test::file_exists(db + "-journal"));
}

TEST_CASE("anomalies: results are stored only into the very file the lint read") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  // The owner of the file the lint reads, as the tools hold it.
  const std::shared_ptr<TraceDatabase> owner = test::owner_of(db);
  const LintReport report = lint(db);
  REQUIRE(!report.findings.empty());
  SECTION("the same file: stored") {
    REQUIRE(store_lint_report(*owner, report, WriteDurability::durable).ok());
    REQUIRE(query(db, "SELECT count(*) FROM anomalies") == std::to_string(report.findings.size()) + "\n");
  }
  SECTION("another file renamed into its place: refused, and the newcomer left as it was") {
    const std::string other = dir.file("other.db");
    REQUIRE(test::import_text("(skein-trace 1)\n(spawn 0 1 0 task)\n(end 10)\n", other).ok());
    REQUIRE(std::rename(other.c_str(), db.c_str()) == 0);
    const std::string before = read_bytes(db);
    const Status stored = store_lint_report(*owner, report, WriteDurability::durable);
    REQUIRE(!stored.ok());
    CHECK(stored.error().to_string() == db + ": was replaced by another database since it was opened; open it again");
    CHECK(read_bytes(db) == before);
    const Status causes = store_transfers(*owner, report.transfers, WriteDurability::durable);
    REQUIRE(!causes.ok());
    CHECK(read_bytes(db) == before);
    // Nor is it read through the old owner.
    auto reader = owner->reader();
    REQUIRE(!reader.ok());
    CHECK(reader.error().to_string() == stored.error().to_string());
  }
}

TEST_CASE("anomalies: a cancelled lint stops with lint_cancelled and stores nothing") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  std::atomic<bool> cancel{true};
  LintOptions options;
  options.cancel = &cancel;
  auto report = lint_store(store.value(), options);
  REQUIRE(!report.ok());
  CHECK(lint_cancelled(report.error()));
  cancel = false;
  auto again = lint_store(store.value(), options);
  REQUIRE(again.ok());
  CHECK(again.value().findings.size() == 2);  // as the first test case counts them
  auto opened = SqliteDatabase::open_untrusted(db);
  REQUIRE(opened.ok());
  auto present = lint_results_present(opened.value());
  REQUIRE(present.ok());
  CHECK(!present.value().findings);
}
