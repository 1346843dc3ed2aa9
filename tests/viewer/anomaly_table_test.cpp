// anomaly_table_test.cpp — the findings in the database: store_anomalies()
// creates the `anomalies` table in an imported database, which then still
// passes the schema check; storing again replaces only the rules that ran;
// a user's own table of that name, and a read-only file, are left alone
// with an error.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"
#include "viewer/core/anomaly_table.hpp"

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

std::vector<LintFinding> lint(const std::string& db) {
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto report = lint_store(store.value(), {});
  REQUIRE(report.ok());
  return report.value().findings;
}

}  // namespace

TEST_CASE("anomalies: findings are stored beside the trace's tables") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  const auto findings = lint(db);
  REQUIRE(findings.size() == 2);
  REQUIRE(store_anomalies(db, {all_lint_rules().begin(), all_lint_rules().end()}, findings).ok());
  CHECK(query(db, "SELECT rule, severity, time, thread, from_thread, suspect, event, grouping, message "
                  "FROM anomalies ORDER BY id") ==
        "unread-failure|error|2000|1|1|NULL|2|NULL|thread 1 failed (Not_found) and no other thread read its "
        "outcome\n"
        "pending-at-end|warning|3000|2|NULL|NULL|3|(no site)|thread 2 is still pending at the end (0.004000 ms); "
        "waits on nothing recorded\n");
  // Still a valid Skein database.
  CHECK(TraceStore::open(db).ok());
  // Storing one rule again replaces that rule's rows only.
  REQUIRE(store_anomalies(db, {LintRuleId::unread_failure}, {}).ok());
  CHECK(query(db, "SELECT rule, count(*) FROM anomalies GROUP BY rule") == "pending-at-end|1\n");
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
  const Status s = store_anomalies(db, {LintRuleId::unread_failure}, lint(db));
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().to_string() == db + ": cannot store the findings: its table 'anomalies' has columns (note), not "
                                      "Skein's (id,rule,severity,time,thread,from_thread,suspect,event,grouping,message)");
  CHECK(query(db, "SELECT * FROM anomalies") == "mine\n");
}

TEST_CASE("anomalies: a read-only database is not written") {
  if (geteuid() == 0) {
    // root writes through file modes: make the check on what SQLite says instead.
    WARN("running as root: checking a read-only open through a read-only folder is not possible; "
         "checking the error path with a missing file");
    const Status missing = store_anomalies("/nonexistent/t.db", {LintRuleId::unread_failure}, {});
    CHECK_FALSE(missing.ok());
    return;
  }
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kTrace, db).ok());
  REQUIRE(chmod(db.c_str(), 0444) == 0);
  const Status s = store_anomalies(db, {LintRuleId::unread_failure}, lint(db));
  CHECK_FALSE(s.ok());
  CHECK(query(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'anomalies'") == "0\n");
}
