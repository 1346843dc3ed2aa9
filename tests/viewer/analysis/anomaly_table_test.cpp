// anomaly_table_test.cpp — the findings in the database: store_lint_report()
// creates the `findings` and `finding_texts` tables and the `anomalies`
// view in an imported database, which then still passes the schema check;
// the view gives back every finding of a generated trace as the lint wrote
// it (SQLite's printf rebuilding each sentence), and the viewer's reader
// the same, field by field; an older Skein's table is read, and replaced
// by the view; a damaged finding is skipped; storing again replaces every row;
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
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <optional>
#include <fstream>
#include <iterator>

#include "recorder/store/derived_tables.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
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
    CHECK(s.error().to_string() == db + ": 'CREATE TABLE findings(id INTEGER PRIMARY KEY, rule INTEGER N' failed: "
                                        "attempt to write a readonly database");
  }
  CHECK(read_bytes(db) == before);
  CHECK(query(db, "SELECT count(*) FROM sqlite_schema WHERE name IN ('anomalies', 'findings', 'finding_texts')") ==
        "0\n");
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

namespace {

// The columns the `anomalies` view gives, as the report in memory has them.
std::string report_rows(const LintReport& report) {
  std::string out;
  std::int64_t number = 0;
  const auto or_null = [](const auto& v) { return v ? std::to_string(*v) : std::string("NULL"); };
  for (const LintFinding& f : report.findings)
    out += std::to_string(++number) + "|" + std::string(lint_rule_name(f.rule)) + "|" +
           std::string(lint_severity_name(f.severity)) + "|" + std::to_string(f.time) + "|" +
           std::to_string(f.thread) + "|" + or_null(f.from) + "|" + or_null(f.suspect) + "|" + or_null(f.event) +
           "|" + (f.group.empty() ? std::string("NULL") : f.group) + "|" + f.message + "\n";
  return out;
}

constexpr const char* kViewRows =
    "SELECT id, rule, severity, time, thread, from_thread, suspect, event, grouping, message FROM anomalies "
    "ORDER BY id";

}  // namespace

TEST_CASE("anomalies: the view gives back every finding of a generated trace as the lint wrote it") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  samples::SyntheticOptions options;
  options.records = 30'000;
  REQUIRE(test::import_text(samples::synthetic_trace_text(options), db).ok());
  const LintReport report = lint(db);
  // Every rule that fires on it, and sentences with up to 13 numbers.
  REQUIRE(report.findings.size() > 1000);
  REQUIRE(store_lint_report(*test::owner_of(db), report).ok());
  CHECK(query(db, kViewRows) == report_rows(report));
  // Each wording once: far fewer texts than findings.
  const std::int64_t texts = std::stoll(query(db, "SELECT count(*) FROM finding_texts"));
  CHECK(texts * 10 < static_cast<std::int64_t>(report.findings.size()));
  // What the viewer reads, field by field, by time.
  auto opened = SqliteDatabase::open_untrusted(db);
  REQUIRE(opened.ok());
  const std::vector<StoredFinding> stored = read_stored_findings(opened.value());
  REQUIRE(stored.size() == report.findings.size());
  std::size_t same = 0;
  for (const StoredFinding& s : stored) {
    const LintFinding& f = report.findings.at(static_cast<std::size_t>(s.number - 1));
    same += s.time == f.time && s.thread == f.thread && s.from == f.from && s.suspect == f.suspect &&
            s.event == f.event.value_or(-1) && s.rule() == lint_rule_name(f.rule) &&
            s.severity() == lint_severity_name(f.severity) && s.group() == f.group && s.message() == f.message;
  }
  CHECK(same == stored.size());
  CHECK(std::is_sorted(stored.begin(), stored.end(),
                       [](const StoredFinding& a, const StoredFinding& b) { return a.time < b.time; }));
}

TEST_CASE("anomalies: a window's findings by the block index are those of the whole read in that window") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  samples::SyntheticOptions options;
  options.records = 30'000;
  options.seed = 3;
  REQUIRE(test::import_text(samples::synthetic_trace_text(options), db).ok());
  const LintReport report = lint(db);
  REQUIRE(report.findings.size() > 1000);
  REQUIRE(store_lint_report(*test::owner_of(db), report).ok());
  // One block per 256 findings, each bounding its findings' times.
  const auto blocks = static_cast<std::int64_t>((report.findings.size() + 255) / 256);
  CHECK(query(db, "SELECT count(*) FROM finding_blocks") == std::to_string(blocks) + "\n");
  CHECK(query(db, "SELECT count(*) FROM findings AS f JOIN finding_blocks AS b ON f.id BETWEEN b.first_finding AND "
                  "b.last_finding WHERE f.time < b.start OR f.time > b.\"end\"") == "0\n");
  const auto numbers = [](const std::vector<StoredFinding>& found) {
    std::vector<std::int64_t> out;
    for (const StoredFinding& f : found) out.push_back(f.number);
    return out;
  };
  // The oracle: every finding read, those in the window kept.
  const auto expected = [&](SqliteDatabase& d, TimeNs from, TimeNs to) {
    std::vector<StoredFinding> all = read_stored_findings(d);
    std::erase_if(all, [&](const StoredFinding& f) { return f.time < from || f.time > to; });
    return numbers(all);
  };
  const auto check_windows = [&] {
    auto opened = SqliteDatabase::open_untrusted(db);
    REQUIRE(opened.ok());
    SqliteDatabase& d = opened.value();
    const TimeNs first = report.findings.front().time;
    TimeNs last = first;
    for (const LintFinding& f : report.findings) last = std::max(last, f.time);
    const TimeNs span = last - first;
    std::size_t found = 0;
    for (const auto& [start, width] : std::vector<std::pair<double, double>>{
             {0.0, 1.0}, {0.1, 0.01}, {0.5, 0.2}, {0.9, 0.1}, {0.33, 0.0001}, {1.0, 0.0}}) {
      const auto from = first + static_cast<TimeNs>(start * double(span));
      const auto to = from + static_cast<TimeNs>(width * double(span));
      INFO("window " << from << " to " << to);
      const std::vector<std::int64_t> want = expected(d, from, to);
      CHECK(numbers(read_stored_findings(d, from, to)) == want);
      found += want.size();
    }
    CHECK(found > report.findings.size());  // the whole window, and some more
  };
  check_windows();
  // Without the index (an older Skein's database), the same by a scan.
  REQUIRE(test::edit_database(db, "DROP TABLE finding_blocks").empty());
  check_windows();
}

TEST_CASE("anomalies: an older Skein's table is read, and gives way to the view at the next store") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  const LintReport report = lint(db);
  REQUIRE(test::edit_database(db, std::string(kOlderAnomaliesTable.sql) +
                                      "; INSERT INTO anomalies VALUES (1, 'unread-failure', 'error', 2000, 1, 1, "
                                      "NULL, 2, NULL, 'as written by an older Skein')")
              .empty());
  {
    auto opened = SqliteDatabase::open_untrusted(db);
    REQUIRE(opened.ok());
    auto present = lint_results_present(opened.value());
    REQUIRE(present.ok());
    CHECK(present.value().findings);
    const std::vector<StoredFinding> stored = read_stored_findings(opened.value());
    REQUIRE(stored.size() == 1);
    CHECK(stored[0].message() == "as written by an older Skein");
  }
  REQUIRE(store_lint_report(*test::owner_of(db), report).ok());
  CHECK(query(db, "SELECT type FROM sqlite_schema WHERE name = 'anomalies'") == "view\n");
  CHECK(query(db, kViewRows) == report_rows(report));
}

TEST_CASE("anomalies: a damaged finding is skipped, never shown with a wrong text") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  REQUIRE(store_lint_report(*test::owner_of(db), lint(db)).ok());
  // Finding 2's sentence is "thread 2 is still pending at the end
  // (0.004000 ms); ...": three numbers, the last written %06d.
  const auto read = [&] {
    auto opened = SqliteDatabase::open_untrusted(db);
    REQUIRE(opened.ok());
    std::string numbers;
    for (const StoredFinding& f : read_stored_findings(opened.value())) numbers += std::to_string(f.number) + " ";
    return numbers;
  };
  REQUIRE(read() == "1 2 ");
  SECTION("a text that is not there") {
    REQUIRE(test::edit_database(db, "UPDATE findings SET message = 999 WHERE id = 2").empty());
    CHECK(read() == "1 ");
  }
  SECTION("a grouping that is not there") {
    REQUIRE(test::edit_database(db, "UPDATE findings SET grouping = 999 WHERE id = 2").empty());
    CHECK(read() == "1 ");
  }
  SECTION("a number missing") {
    REQUIRE(test::edit_database(db, "UPDATE findings SET a3 = NULL WHERE id = 2").empty());
    CHECK(read() == "1 ");
  }
  SECTION("a number wider than its width") {
    REQUIRE(test::edit_database(db, "UPDATE findings SET a3 = 1234567 WHERE id = 2").empty());
    CHECK(read() == "1 ");
  }
  SECTION("a template with a conversion Skein never writes") {
    REQUIRE(test::edit_database(db, "UPDATE finding_texts SET text = text || ' %s' WHERE id = "
                                    "(SELECT message FROM findings WHERE id = 2)")
                .empty());
    CHECK(read() == "1 ");
  }
  SECTION("the widest number its width allows") {
    REQUIRE(test::edit_database(db, "UPDATE findings SET a3 = 999999 WHERE id = 2").empty());
    CHECK(read() == "1 2 ");
  }
}

TEST_CASE("anomalies: a report kept lean stores what the whole report stores, findings and causes alike") {
  // Lean: the findings left in spools small enough to go to their files,
  // the verdicts keyed as the table keys them. The oracle is the same
  // lint with every finding and verdict held whole, stored by the path
  // the tests above check field by field.
  TempDir dir;
  const std::string whole_db = dir.file("whole.db");
  const std::string lean_db = dir.file("lean.db");
  samples::SyntheticOptions options;
  options.records = 30'000;
  options.seed = 5;
  const std::string text = samples::synthetic_trace_text(options);
  REQUIRE(test::import_text(text, whole_db).ok());
  REQUIRE(test::import_text(text, lean_db).ok());
  const LintReport whole = lint(whole_db);
  REQUIRE(whole.findings.size() > 1000);
  REQUIRE(whole.transfers.size() > 10'000);
  REQUIRE(store_lint_report(*test::owner_of(whole_db), whole).ok());
  LintReport lean;
  {
    auto store = TraceStore::open(lean_db);
    REQUIRE(store.ok());
    LintOptions lean_options;
    lean_options.keep_transfers = true;
    lean_options.keyed_transfers = true;
    lean_options.findings_in_memory = false;
    lean_options.spool_segment_bytes = 4096;
    auto report = lint_store(store.value(), lean_options);
    REQUIRE(report.ok());
    lean = std::move(report).value();
  }
  CHECK(lean.findings.empty());
  CHECK(lean.transfers.empty());
  REQUIRE(lean.spooled);
  std::uint64_t spilled = 0;
  for (const FindingSpool& g : lean.spooled->groups) spilled += g.bytes_spilled();
  CHECK(spilled > 0);
  CHECK(lean.keyed_transfers.size() > 10'000);
  CHECK(lean.keyed_transfers.size() <= whole.transfers.size());
  REQUIRE(store_lint_report(*test::owner_of(lean_db), lean).ok());
  CHECK(query(lean_db, kViewRows) == query(whole_db, kViewRows));
  CHECK(query(lean_db, "SELECT * FROM finding_blocks ORDER BY id") ==
        query(whole_db, "SELECT * FROM finding_blocks ORDER BY id"));
  const char* blocks = "SELECT grp, first_event, hex(verdicts) FROM transfer_blocks ORDER BY grp, first_event";
  const std::string stored = query(whole_db, blocks);
  CHECK(stored.size() > 1000);
  CHECK(query(lean_db, blocks) == stored);
}
