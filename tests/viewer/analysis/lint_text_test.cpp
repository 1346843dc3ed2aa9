// lint_text_test.cpp — the text output of `skein lint`, exactly: groups by
// rule, most severe first, labels beside thread ids, sub-headings for
// grouped findings, and the closing count.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"
#include "viewer/analysis/lint_text.hpp"

using namespace skein;

TEST_CASE("lint text: findings grouped by rule, most severe first") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(site 0 \"poll.cpp\" 7 \"poll\")\n"
      "(spawn 1000 1 0 async)\n"
      "(resolve 2000 1 1 fail \"Not_found\")\n"
      "(spawn 3000 2 0 wait 0)\n"
      "(spawn 3100 3 0 bind)\n"
      "(read 3200 3 2)\n"
      "(switch 4000 -1)\n"
      "(switch 5000 1)\n"
      "(switch 40000000 -1)\n"
      "(end 41000000)\n";
  const LintReport report = test::lint_trace(trace);
  const std::string text = render_lint_text(report, [](ThreadId t) { return t == 3 ? std::string("reader") : ""; });
  CHECK(text ==
        "missing-notification: 1 finding (error)\n"
        "  0.003200 ms  thread 3 \"reader\"  from thread 0  suspect thread 0  event 6\n"
        "    thread 3 took control from thread 0 at its read of thread 2 with no recorded cause: thread 2 was not "
        "resolved since the last switch, it was not notified since it last ran, and no callback it called "
        "returns to it\n"
        "\n"
        "unread-failure: 1 finding (error)\n"
        "  0.002000 ms  thread 1  from thread 1  event 3\n"
        "    thread 1 failed (Not_found) and no other thread read its outcome\n"
        "\n"
        "pending-at-end: 2 findings (warning)\n"
        "  poll (poll.cpp:7): 1 promise pending since 0.003000 ms:\n"
        "    0.003000 ms  thread 2  event 4\n"
        "      thread 2 is still pending at the end (41.000000 ms); waits on nothing recorded\n"
        "  created by thread 0: 1 promise pending since 0.003100 ms:\n"
        "    0.003100 ms  thread 3 \"reader\"  event 5\n"
        "      thread 3 is still pending at the end (41.000000 ms); waits on nothing recorded\n"
        "\n"
        "blocking-activation: 1 finding (warning)\n"
        "  0.005000 ms  thread 1  event 8\n"
        "    the loop was blocked for 39.995 ms (threshold 10.000 ms): thread 1, an async, ran 39.995 ms of it without "
        "giving control back\n"
        "\n"
        "5 findings (rules: missing-notification, unread-failure, pending-at-end, late-notify, "
        "blocking-activation, self-wake, lost-records)\n");
}

TEST_CASE("lint text: no findings") {
  LintReport report;
  report.rules = {LintRuleId::late_notify};
  CHECK(render_lint_text(report, {}) == "0 findings (rules: late-notify)\n");
}
