// pending_at_end_test.cpp — the `pending-at-end` rule: threads pending at
// the end with what they wait on, grouped by creation site; lost wake-ups
// (after a clean end, a chain of waits that reaches a resolved thread or
// comes back on itself) are errors and come first; resolved threads,
// threads whose merge group resolved, threads merged into another and the
// main thread are silent.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

namespace {
const std::vector<LintRuleId> kRule = {LintRuleId::pending_at_end};

const std::string kTrace =
    "(skein-trace 1)\n"
    "(site 0 \"poll.cpp\" 7 \"poll\")\n"
    "(site 1 \"net.cpp\" 9 \"accept\")\n"
    "(spawn 1000 1 0 io 1)\n"        // pending, waits on nothing: the listener
    "(spawn 1100 2 0 bind 0)\n"      // waits on 1
    "(wait 1200 2 1)\n"
    "(spawn 1300 3 0 wait 0)\n"      // resolved, but 4 never read it
    "(spawn 1400 4 0 bind 0)\n"
    "(wait 1500 4 3)\n"
    "(resolve 1600 3 0 ok)\n"
    "(spawn 1700 5 0 task)\n"        // merged into 6, which resolves: the group settled
    "(spawn 1800 6 5 task)\n"
    "(merge 1900 5 6)\n"
    "(resolve 2000 6 6 ok)\n"
    "(spawn 2100 7 0 task 1)\n"      // merged into 8, still pending: 8 stands for both
    "(spawn 2200 8 7 task 1)\n"
    "(merge 2300 7 8)\n"
    "(end 3000)\n";
}  // namespace

TEST_CASE("pending-at-end: pending threads by site, lost wake-ups first") {
  const LintReport report = lint_trace(kTrace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end error 1400 t=4 from=none suspect=3 event=7\n"
        "pending-at-end warning 1100 t=2 from=none suspect=none event=4\n"
        "pending-at-end warning 1000 t=1 from=none suspect=none event=3\n"
        "pending-at-end warning 2200 t=8 from=none suspect=none event=15\n");
  REQUIRE(report.findings.size() == 4);
  CHECK(report.findings[0].message ==
        "thread 4 is still pending at the end (0.003000 ms); waits on thread 3: lost wake-up, thread 3 was "
        "resolved but the wake-up never came");
  CHECK(report.findings[0].group == "poll (poll.cpp:7)");
  CHECK(report.findings[1].message == "thread 2 is still pending at the end (0.003000 ms); waits on thread 1");
  CHECK(report.findings[2].group == "accept (net.cpp:9)");
  CHECK(report.findings[2].message ==
        "thread 1 is still pending at the end (0.003000 ms); waits on nothing recorded");
  CHECK(report.findings[3].group == "accept (net.cpp:9)");
}

TEST_CASE("pending-at-end: without a clean end there is no lost wake-up") {
  std::string cut = kTrace;
  cut.erase(cut.find("(end 3000)\n"));
  CHECK(lint_lines(cut, kRule) ==
        "pending-at-end warning 1100 t=2 from=none suspect=none event=4\n"
        "pending-at-end warning 1400 t=4 from=none suspect=none event=7\n"
        "pending-at-end warning 1000 t=1 from=none suspect=none event=3\n"
        "pending-at-end warning 2200 t=8 from=none suspect=none event=15\n");
}

TEST_CASE("pending-at-end: waits that come back on themselves are a lost wake-up") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 join)\n"
      "(spawn 1100 2 0 join)\n"
      "(wait 1200 1 2)\n"
      "(wait 1300 2 1)\n"
      "(end 2000)\n";
  CHECK(lint_lines(trace, kRule) ==
        "pending-at-end error 1000 t=1 from=none suspect=none event=1\n"
        "pending-at-end error 1100 t=2 from=none suspect=none event=2\n");
}

TEST_CASE("pending-at-end: silent when everything settled") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 wait)\n"
      "(spawn 1100 2 0 bind)\n"
      "(wait 1200 2 1)\n"
      "(resolve 1300 1 0 ok)\n"
      "(read 1400 2 1)\n"
      "(resolve 1500 2 2 fail \"E\")\n"
      "(end 2000)\n";
  CHECK(lint_lines(trace, kRule) == "");
}
