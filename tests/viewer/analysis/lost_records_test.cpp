// lost_records_test.cpp — a `(lost ...)` gap is a note, never a cause: the
// findings whose evidence spans the gap are left out and counted in the
// gap's note; those wholly after it stay.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

TEST_CASE("lost-records: one note per gap that lost something") {
  const std::string t =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(resolve 2000 1 0 ok)\n"
      "(lost 3000 27008)\n"
      "(lost 3500 0)\n"  // lost nothing
      "(end 4000)\n";
  const LintReport report = lint_trace(t);
  CHECK(test::finding_lines(report.findings) == "lost-records note 3000 t=-1 from=none suspect=none event=3\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message == "27,008 records lost at 0.003000 ms: causes across this gap are unknown");
}

TEST_CASE("lost-records: findings that depend on a gap are left out and counted in its note") {
  // Thread 2 waits on 1; the gap may hold 1's resolve and 2's wake-up:
  // 2's read of 1 after it has no cause the trace can show; 1, 2, 3 and 5,
  // all created before the gap, are pending; 4 failed with nobody reading
  // it; and the turn of thread 5 that holds the gap is long. None of these
  // may be reported.
  const std::string t =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 1100 2 0 bind)\n"
      "(wait 1200 2 1)\n"
      "(spawn 1300 3 0 task)\n"
      "(spawn 1400 4 0 async)\n"
      "(resolve 1500 4 4 fail \"Not_found\")\n"
      "(spawn 1600 5 0 fiber)\n"
      "(switch 2000 -1)\n"
      "(switch 3000 5)\n"
      "(lost 4000 120)\n"
      "(switch 30000000 -1)\n"
      "(notify 30000100 -1 6 io)\n"
      "(read 30000200 2 1)\n"
      "(switch 30000300 -1)\n"
      "(end 31000000)\n";
  const LintReport report = lint_trace(t);
  CHECK(test::finding_lines(report.findings) == "lost-records note 4000 t=-1 from=none suspect=none event=10\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message ==
        "120 records lost at 0.004000 ms: causes across this gap are unknown; 1 missing-notification, 1 "
        "unread-failure, 4 pending-at-end and 1 blocking-activation findings that depend on it are left out");
  CHECK(report.counts[static_cast<std::size_t>(LintRuleId::missing_notification)] == 0);
  CHECK(report.counts[static_cast<std::size_t>(LintRuleId::lost_records)] == 1);

  SECTION("what lies wholly after the gap is judged as ever") {
    // Thread 7, created after the gap, is pending at the end, and 8, also
    // after it, reads 7, which nobody resolved.
    std::string after = t;
    after.insert(after.find("(end 31000000)"),
                 "(spawn 30000400 7 0 task)\n(spawn 30000500 8 0 bind)\n(switch 30000600 8)\n(read 30000700 8 7)\n");
    const std::string lines = lint_lines(after);
    CHECK(lines.find("missing-notification error 30000700 t=8") != std::string::npos);
    CHECK(lines.find("pending-at-end warning 30000400 t=7") != std::string::npos);
    CHECK(lines.find("pending-at-end warning 1000 t=1") == std::string::npos);
  }
}
