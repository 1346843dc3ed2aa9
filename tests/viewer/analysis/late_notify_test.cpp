// late_notify_test.cpp — the `late-notify` rule: a notify or a second
// resolve aimed at a thread already resolved is reported where it happens,
// naming the first resolver as suspect; notifies before the resolve are
// silent.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

namespace {
const std::vector<LintRuleId> kRule = {LintRuleId::late_notify};
}  // namespace

TEST_CASE("late-notify: a notify and a resolve after the thread settled") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 mailbox)\n"
      "(notify 2000 0 1 mailbox)\n"   // in time
      "(resolve 3000 1 0 ok)\n"
      "(spawn 3500 2 0 task)\n"
      "(notify 4000 2 1 mailbox)\n"   // late
      "(resolve 5000 1 2 ok)\n"       // late, a second resolve
      "(end 6000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "late-notify warning 4000 t=1 from=2 suspect=0 event=5\n"
        "late-notify warning 5000 t=1 from=2 suspect=0 event=6\n");
  REQUIRE(report.findings.size() == 2);
  CHECK(report.findings[0].message ==
        "notify (mailbox) from thread 2 to thread 1, which was already resolved at 0.003000 ms by thread 0");
  CHECK(report.findings[1].message ==
        "second resolve from thread 2 to thread 1, which was already resolved at 0.003000 ms by thread 0");
}

TEST_CASE("late-notify: silent when every wake-up comes first") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 sleep)\n"
      "(switch 1500 -1)\n"
      "(notify 2000 -1 1 timer)\n"
      "(resolve 3000 1 -1 ok)\n"
      "(end 4000)\n";
  CHECK(lint_lines(trace, kRule) == "");
}
