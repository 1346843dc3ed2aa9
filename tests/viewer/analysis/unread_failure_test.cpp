// unread_failure_test.cpp — the `unread-failure` rule: a failure nobody
// else read is reported at its resolve; one read by another thread, or by
// a reader of a thread in its merge group, is not; a cancel is not a
// failure; a read by the failed thread itself does not count.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

namespace {
const std::vector<LintRuleId> kRule = {LintRuleId::unread_failure};
}  // namespace

TEST_CASE("unread-failure: an exception nobody saw") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 async)\n"
      "(resolve 2000 1 1 fail \"Not_found\")\n"
      "(read 2500 1 1)\n"
      "(spawn 3000 2 0 task)\n"
      "(resolve 4000 2 0 fail \"Exit\")\n"
      "(spawn 4500 3 0 bind)\n"
      "(wait 4600 3 2)\n"
      "(read 5000 3 2)\n"
      "(resolve 6000 3 3 cancel)\n"
      "(end 7000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) == "unread-failure error 2000 t=1 from=1 suspect=none event=2\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message == "thread 1 failed (Not_found) and no other thread read its outcome");
}

TEST_CASE("unread-failure: a read of the thread it merged into counts") {
  // 2 merged into 3 (a tail call); 3 fails; the reader reads 2, as the
  // 2014 MirageOS traces record it.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 2 0 task)\n"
      "(spawn 1100 3 2 task)\n"
      "(merge 1200 2 3)\n"
      "(resolve 2000 3 3 fail \"E\")\n"
      "(read 3000 0 2)\n"
      "(end 4000)\n";
  CHECK(lint_lines(trace, kRule) == "");
  std::string unread = trace;
  unread.erase(unread.find("(read 3000 0 2)\n"), 16);
  CHECK(lint_lines(unread, kRule) == "unread-failure error 2000 t=3 from=3 suspect=none event=4\n");
}
