// blocking_activation_test.cpp — the `blocking-activation` rule: a turn of
// the loop (from the scheduler giving control, by a switch or by waking a
// timer, I/O or a yield whose callbacks run with no switch, until control
// comes back to it) longer than the threshold is reported at its start,
// naming the thread that took the time; one exactly at the threshold, the
// scheduler's own stretches and the main thread before the loop starts are
// not.
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
        "the loop was blocked for 25.000 ms (threshold 10.000 ms): thread 2, a fiber, ran 25.000 ms of it without "
        "giving control back");
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

namespace {
// A timer wakes a bind (2) with no switch: its callback runs inside the
// scheduler's resolve of the sleep, and resolves 3, whose callback (4, a
// map created at work.cpp:9) takes 30 ms.
const std::string kCallbacks =
    "(skein-trace 1)\n"
    "(site 0 \"main.cpp\" 5 \"main\")\n"
    "(site 1 \"work.cpp\" 9 \"crunch\")\n"
    "(spawn 1000 1 0 sleep 0)\n"
    "(spawn 1100 2 0 bind 0)\n"
    "(wait 1200 2 1)\n"
    "(spawn 1300 3 0 task 0)\n"
    "(spawn 1400 4 0 map 1)\n"
    "(wait 1500 4 3)\n"
    "(label 1600 4 \"crunch\")\n"
    "(switch 2000 -1)\n"
    "(idle 3000)\n"
    "(notify 5000000 -1 1 timer)\n"
    "(resolve 5000000 1 -1 ok)\n"
    "(read 5000100 2 1)\n"         // the turn starts: event 14
    "(resolve 5000200 3 2 ok)\n"
    "(read 5000300 4 3)\n"         // 4's callback runs from here...
    "(resolve 35000300 4 4 ok)\n"  // ... for 30 ms
    "(resolve 35000400 2 2 ok)\n"
    "(switch 35000500 -1)\n"
    "(end 36000000)\n";
}  // namespace

TEST_CASE("blocking-activation: a callback's burst inside a timer's wake-up, named by its site and label") {
  const LintReport report = lint_trace(kCallbacks, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "blocking-activation warning 5000100 t=4 from=2 suspect=none event=14\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message ==
        "the loop was blocked for 30.000 ms (threshold 10.000 ms): thread 4 \"crunch\", a map callback created at "
        "crunch (work.cpp:9), ran 30.000 ms of it without giving control back");
}

TEST_CASE("blocking-activation: the turn ends when the scheduler acts again") {
  // The same callbacks, but the scheduler's next wake-up comes 2 ms into
  // the burst's place: two short turns, no finding.
  std::string t = kCallbacks;
  const auto at = t.find("(resolve 35000300 4 4 ok)");
  t.insert(at, "(notify 6000000 -1 1 timer)\n");
  CHECK(lint_lines(t, kRule) == "");
}

TEST_CASE("blocking-activation: the main thread before the loop first runs blocks no loop") {
  const std::string t =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 50000000 2 0 task)\n"  // 50 ms of set-up in main
      "(switch 50000100 -1)\n"
      "(end 51000000)\n";
  CHECK(lint_lines(t, kRule) == "");
}
