// blocking_activation_test.cpp — the `blocking-activation` rule: an
// activation (a switch into a thread until the next switch, idle or end,
// or the last record of a cut trace) longer than the threshold is reported
// at its switch; one exactly at the threshold, and the scheduler's own
// stretches, are not.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

namespace {
const std::vector<LintRuleId> kRule = {LintRuleId::blocking_activation};

const std::string kTrace =
    "(skein-trace 1)\n"
    "(spawn 0 1 0 fiber)\n"
    "(spawn 0 2 0 fiber)\n"
    "(switch 1000000 1)\n"      // 1 runs 10 ms exactly: not over
    "(switch 11000000 -1)\n"    // the loop's own time is not an activation
    "(idle 12000000)\n"
    "(switch 40000000 2)\n"     // 2 runs 25 ms, callbacks inside included
    "(spawn 41000000 3 2 wait)\n"
    "(resolve 50000000 3 2 ok)\n"
    "(idle 65000000)\n"
    "(switch 70000000 1)\n"     // 1 runs 12 ms to the last record of a cut trace
    "(spawn 82000000 4 1 task)\n";
}  // namespace

TEST_CASE("blocking-activation: activations over the threshold") {
  const LintReport report = lint_trace(kTrace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "blocking-activation warning 40000000 t=2 from=none suspect=none event=6\n"
        "blocking-activation warning 70000000 t=1 from=none suspect=none event=10\n");
  REQUIRE(report.findings.size() == 2);
  CHECK(report.findings[0].message ==
        "thread 2 ran 25.000 ms (threshold 10.000 ms) without giving control back: the loop was blocked");
}

TEST_CASE("blocking-activation: the threshold is a setting") {
  LintSettings settings;
  settings.block_threshold_ns = 30'000'000;
  CHECK(lint_lines(kTrace, kRule, settings) == "");
  settings.block_threshold_ns = 9'999'999;
  CHECK(lint_lines(kTrace, kRule, settings) ==
        "blocking-activation warning 1000000 t=1 from=none suspect=none event=3\n"
        "blocking-activation warning 40000000 t=2 from=none suspect=none event=6\n"
        "blocking-activation warning 70000000 t=1 from=none suspect=none event=10\n");
}
