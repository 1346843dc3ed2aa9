// self_wake_test.cpp — the `self-wake` rule: a thread woken at least 100
// times, more than half of them by its own yields, is reported once (at
// its first wake-up); yields count for the thread that spawned the pause,
// across the iterations a pause loop merges; fewer wake-ups, or mostly
// others' notifies, are silent.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

namespace {

const std::vector<LintRuleId> kRule = {LintRuleId::self_wake};

// A pause loop in the manner of the runtime: thread 1 spawns a pause and a
// bind, the bind merges into the next iteration's bind. `yields` pauses,
// then `others` notifies of 1 from thread 900 (a mailbox).
std::string polling_trace(int yields, int others) {
  std::string t = "(skein-trace 1)\n(spawn 1 1 0 task)\n(spawn 2 900 0 task)\n";
  TimeNs now = 10;
  ThreadId bind = 1;
  ThreadId next = 2;
  for (int i = 0; i < yields; ++i) {
    const ThreadId pause = ++next;
    const ThreadId b = ++next;
    t += "(spawn " + std::to_string(now++) + " " + std::to_string(pause) + " " + std::to_string(bind) + " pause)\n";
    t += "(spawn " + std::to_string(now++) + " " + std::to_string(b) + " " + std::to_string(bind) + " bind)\n";
    t += "(merge " + std::to_string(now++) + " " + std::to_string(bind) + " " + std::to_string(b) + ")\n";
    t += "(notify " + std::to_string(now++) + " -1 " + std::to_string(pause) + " yield)\n";
    t += "(resolve " + std::to_string(now++) + " " + std::to_string(pause) + " -1 ok)\n";
    bind = b;
  }
  for (int i = 0; i < others; ++i) t += "(notify " + std::to_string(now++) + " 900 1 mailbox)\n";
  return t + "(end " + std::to_string(now) + ")\n";
}

}  // namespace

TEST_CASE("self-wake: a polling loop") {
  const LintReport report = lint_trace(polling_trace(60, 50), kRule);
  CHECK(test::finding_lines(report.findings) == "self-wake note 13 t=1 from=none suspect=none event=none\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message ==
        "thread 1 was woken 110 times, 60 of them by its own yields: it polls rather than waits");
}

TEST_CASE("self-wake: silent below 100 wake-ups, or when others wake it") {
  CHECK(lint_lines(polling_trace(60, 39), kRule) == "");  // 99 wake-ups
  CHECK(lint_lines(polling_trace(60, 60), kRule) == "");  // exactly half
}
