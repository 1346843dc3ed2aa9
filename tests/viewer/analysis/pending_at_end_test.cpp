// pending_at_end_test.cpp — the `pending-at-end` rule: one finding per
// pending promise (a merge group with no resolve), at its first spawned
// thread, grouped by what created it; lost wake-ups (after a clean end, a
// chain of waits that reaches a resolved promise or comes back on itself)
// and promises the program said should resolve are errors and come first;
// in a snapshot (no end) the others are notes. After a clean end, a promise
// pending only because what it waits on is pending is named in that one's
// finding, not reported apart. A read after a wait is the
// wake-up arriving, whoever in the waiter's group reads. Resolved threads,
// groups that resolved and the main thread are silent.
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
    "(spawn 1000 1 0 io 1)\n"        // event 3: pending, waits on nothing: the listener
    "(spawn 1100 2 0 bind 0)\n"      // event 4: waits on 1
    "(wait 1200 2 1)\n"
    "(spawn 1300 3 0 wait 0)\n"      // resolved, but 4 never read it
    "(spawn 1400 4 0 bind 0)\n"      // event 7
    "(wait 1500 4 3)\n"
    "(resolve 1600 3 0 ok)\n"
    "(spawn 1700 5 0 task)\n"        // merged into 6, which resolves: the group settled
    "(spawn 1800 6 5 task)\n"
    "(merge 1900 5 6)\n"
    "(resolve 2000 6 6 ok)\n"
    "(spawn 2100 7 0 task 1)\n"      // event 14: merged into 8, still pending: one promise
    "(spawn 2200 8 7 task 1)\n"
    "(merge 2300 7 8)\n"
    "(end 3000)\n";
}  // namespace

TEST_CASE("pending-at-end: one finding per promise, lost wake-ups first, grouped by site") {
  const LintReport report = lint_trace(kTrace, kRule);
  // 2 is pending only because 1, which it waits on, is: one finding, at 1,
  // which names 2.
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end error 1400 t=4 from=none suspect=3 event=7\n"
        "pending-at-end warning 1000 t=1 from=none suspect=none event=3\n"
        "pending-at-end warning 2100 t=7 from=none suspect=none event=14\n");
  REQUIRE(report.findings.size() == 3);
  CHECK(report.findings[0].message ==
        "thread 4 is still pending at the end (0.003000 ms); waits on thread 3: lost wake-up, thread 3 was "
        "resolved but the wake-up never came");
  CHECK(report.findings[0].group == "poll (poll.cpp:7): 1 promise pending since 0.001400 ms");
  CHECK(report.findings[1].group == "accept (net.cpp:9): 1 promise pending since 0.001000 ms");
  CHECK(report.findings[1].message ==
        "thread 1 is still pending at the end (0.003000 ms); waits on nothing recorded; thread 2 waits on it, "
        "pending because it is");
  // 7 and 8 are one promise: 8 continues 7.
  CHECK(report.findings[2].group ==
        "accept (net.cpp:9) loop: 1 promise pending since 0.002100 ms (1 iteration merged into it)");
  CHECK(report.findings[2].message ==
        "thread 7 is still pending at the end (0.003000 ms); 1 iteration merged into it, the latest thread 8 "
        "(created at 0.002200 ms); waits on nothing recorded");
}

TEST_CASE("pending-at-end: waiters are named with what they wait on, to the chain's end") {
  // 3 waits on 2, which waits on 1, which waits on nothing: one finding, at
  // 1. A promise the program said should resolve keeps its own.
  const std::string chain =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 1100 2 0 bind)\n"
      "(wait 1200 2 1)\n"
      "(spawn 1300 3 0 bind)\n"
      "(wait 1400 3 2)\n"
      "(spawn 1500 4 0 bind)\n"
      "(wait 1600 4 1)\n"
      "(should-resolve 1700 4)\n"
      "(end 2000)\n";
  const LintReport report = lint_trace(chain, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end error 1500 t=4 from=none suspect=none event=6\n"
        "pending-at-end warning 1000 t=1 from=none suspect=none event=1\n");
  REQUIRE(report.findings.size() == 2);
  CHECK(report.findings[1].message ==
        "thread 1 is still pending at the end (0.002000 ms); waits on nothing recorded; threads 2 and 3 wait on "
        "it, pending because it is");
  // In a snapshot each is a note of its own: what is pending may yet settle.
  std::string cut = chain;
  cut.erase(cut.find("(end 2000)\n"));
  CHECK(lint_trace(cut, kRule).findings.size() == 4);
}

TEST_CASE("pending-at-end: a snapshot (no end) has no lost wake-up, and its promises are notes") {
  std::string cut = kTrace;
  cut.erase(cut.find("(end 3000)\n"));
  const LintReport report = lint_trace(cut, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end note 1000 t=1 from=none suspect=none event=3\n"
        "pending-at-end note 1100 t=2 from=none suspect=none event=4\n"
        "pending-at-end note 1400 t=4 from=none suspect=none event=7\n"
        "pending-at-end note 2100 t=7 from=none suspect=none event=14\n");
  REQUIRE(report.findings.size() == 4);
  // Two promises of one site, one heading.
  CHECK(report.findings[1].group == "poll (poll.cpp:7): 2 promises pending since 0.001100 ms");
  CHECK(report.findings[2].group == report.findings[1].group);
  CHECK(report.findings[2].message ==
        "thread 4 is still pending when the trace stops (0.002300 ms; no (end): a snapshot); waits on thread 3");
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

TEST_CASE("pending-at-end: a read after the wait is the wake-up arriving, not a lost one") {
  // 2 waited on 1, 1 resolved and 2 read it: 2's callback ran and
  // returned 3, still pending, which continues 2 (merge 2 3). Pending, but
  // no wake-up was lost.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 wait)\n"
      "(spawn 1100 2 0 bind)\n"
      "(wait 1200 2 1)\n"
      "(resolve 1300 1 0 ok)\n"
      "(read 1400 2 1)\n"
      "(spawn 1500 3 2 task)\n"
      "(merge 1600 2 3)\n"
      "(end 2000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) == "pending-at-end warning 1100 t=2 from=none suspect=none event=2\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message ==
        "thread 2 is still pending at the end (0.002000 ms); 1 iteration merged into it, the latest thread 3 "
        "(created at 0.001500 ms); waits on nothing recorded");
}

TEST_CASE("pending-at-end: a thread merged twice is still one promise") {
  // 1 -> 2 -> 3 (Skein's chains) and 3 merged again into 1's group: one
  // promise, three threads; a merge inside one group changes nothing.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 1100 2 1 task)\n"
      "(merge 1200 1 2)\n"
      "(spawn 1300 3 2 task)\n"
      "(merge 1400 2 3)\n"
      "(merge 1500 3 1)\n"
      "(end 2000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) == "pending-at-end warning 1000 t=1 from=none suspect=none event=1\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].group ==
        "created by thread 0: 1 promise pending since 0.001000 ms (2 iterations merged into it)");
}

namespace {
// A pause loop of six iterations with merges as Lwt writes them: the loop's
// first thread (3) absorbs every iteration's bind (`merge 3 B`, lwt.ml's
// connect), and the callbacks of later iterations run as, and read as, that
// first thread. Each iteration: a pause P, the bind B waiting on it.
std::string star_loop(bool with_end) {
  std::string t =
      "(skein-trace 1)\n"
      "(spawn 1000 2 0 pause)\n"  // P1
      "(spawn 1100 3 0 bind)\n"   // the loop
      "(label 1150 3 \"poll\")\n"
      "(wait 1200 3 2)\n"
      "(resolve 1300 2 -1 ok)\n"
      "(read 1400 3 2)\n";
  ThreadId next = 4;
  TimeNs time = 2000;
  for (int i = 2; i <= 6; ++i) {
    const ThreadId p = next++;
    const ThreadId b = next++;
    const auto at = [&](TimeNs dt) { return std::to_string(time + dt); };
    t += "(spawn " + at(0) + " " + std::to_string(p) + " 3 pause)\n";
    t += "(spawn " + at(100) + " " + std::to_string(b) + " 3 bind)\n";
    t += "(wait " + at(200) + " " + std::to_string(b) + " " + std::to_string(p) + ")\n";
    t += "(merge " + at(300) + " 3 " + std::to_string(b) + ")\n";
    if (i < 6) {  // the sixth pause is still pending when the trace ends
      t += "(resolve " + at(400) + " " + std::to_string(p) + " -1 ok)\n";
      t += "(read " + at(500) + " 3 " + std::to_string(p) + ")\n";
    }
    time += 1000;
  }
  if (with_end) t += "(end 9000)\n";
  return t;
}
}  // namespace

TEST_CASE("pending-at-end: a loop with star-shaped merges, as the 2014 MirageOS traces write them") {
  // One promise (3, with its five merged iterations); the pauses it read
  // are resolved, the sixth is pending (it is a promise of its own: a pause
  // the loop waits on). No lost wake-up: every resolved pause was read by
  // the loop's first thread, which reads for its iterations. After the
  // clean end, the loop is pending only because the sixth pause is: one
  // finding, at the pause, which names the loop.
  const LintReport report = lint_trace(star_loop(true), kRule);
  CHECK(test::finding_lines(report.findings) == "pending-at-end warning 6000 t=12 from=none suspect=none event=31\n");
  REQUIRE(report.findings.size() == 1);
  // The sixth pause: created in the loop.
  CHECK(report.findings[0].group == "created in poll loop: 1 promise pending since 0.006000 ms");
  CHECK(report.findings[0].message ==
        "thread 12 is still pending at the end (0.009000 ms); waits on nothing recorded; thread 3 waits on it, "
        "pending because it is");

  const LintReport snapshot = lint_trace(star_loop(false), kRule);
  CHECK(test::finding_lines(snapshot.findings) ==
        "pending-at-end note 1100 t=3 from=none suspect=none event=2\n"
        "pending-at-end note 6000 t=12 from=none suspect=none event=31\n");
  // In a snapshot a loop is pending by design: its note says so, and no
  // fix goes with a note; the pause, which is no loop, is not called one.
  REQUIRE(snapshot.findings.size() == 2);
  CHECK_THAT(snapshot.findings[0].message,
             Catch::EndsWith("; a loop, pending as a running program's loops are: expected"));
  CHECK_THAT(snapshot.findings[1].message, !Catch::Contains("a loop"));
  CHECK(lint_advice("pending-at-end", "note", "thread 3", "", "").empty());
  CHECK_THAT(lint_advice("pending-at-end", "warning", "thread 3", "", ""), Catch::StartsWith("resolve thread 3 "));
  CHECK_THAT(lint_advice("pending-at-end", "error", "thread 3", "", ""), Catch::StartsWith("resolve thread 3 "));
}

TEST_CASE("pending-at-end: a promise the program said should resolve is an error, snapshot or not") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 1100 2 0 task)\n"
      "(should-resolve 1200 2)\n"
      "(spawn 1300 3 0 task)\n"
      "(should-resolve 1400 3)\n"
      "(resolve 1500 3 0 ok)\n";  // 3 kept its word; no end: a snapshot
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end error 1100 t=2 from=none suspect=none event=2\n"
        "pending-at-end note 1000 t=1 from=none suspect=none event=1\n");
  REQUIRE(report.findings.size() == 2);
  CHECK(report.findings[0].message ==
        "thread 2 is still pending when the trace stops (0.001500 ms; no (end): a snapshot); the program said "
        "it should resolve (should-resolve at 0.001200 ms); waits on nothing recorded");
  // With a clean end, the same.
  CHECK(lint_lines(trace + "(end 2000)\n", kRule) ==
        "pending-at-end error 1100 t=2 from=none suspect=none event=2\n"
        "pending-at-end warning 1000 t=1 from=none suspect=none event=1\n");
}

TEST_CASE("pending-at-end: a promise whose last resolver was dropped, waited on, is a lost wake-up naming the dropper") {
  // 1 is a reply task; its resolver is dropped by the server (5) at 2000;
  // 2, a bind, waits on it.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 1100 2 0 bind)\n"
      "(wait 1200 2 1)\n"
      "(spawn 1300 5 0 fiber)\n"
      "(switch 1900 5)\n"
      "(drop 2000 1 5)\n"
      "(switch 2100 -1)\n"
      "(end 3000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end error 1000 t=1 from=none suspect=5 event=1\n"
        "pending-at-end warning 1300 t=5 from=none suspect=none event=4\n");
  REQUIRE(report.findings.size() == 2);
  CHECK(report.findings[0].message ==
        "thread 1 is still pending at the end (0.003000 ms); waits on nothing recorded; its last resolver was dropped "
        "by thread 5 at 0.002000 ms: nothing can settle it, and it is waited on: a lost wake-up; thread 2 waits on "
        "it, pending because it is");
  CHECK(report.findings[0].related == std::vector<ThreadId>{2});
  // Nobody waits on it: still pending, and unsettleable, but no wake-up
  // was lost: a warning that says so.
  std::string alone = trace;
  alone.erase(alone.find("(spawn 1100 2 0 bind)\n(wait 1200 2 1)\n"), std::string("(spawn 1100 2 0 bind)\n(wait 1200 2 1)\n").size());
  const LintReport unwaited = lint_trace(alone, kRule);
  REQUIRE_FALSE(unwaited.findings.empty());
  CHECK(unwaited.findings[0].severity == LintSeverity::warning);
  CHECK_THAT(unwaited.findings[0].message, Catch::Contains("last resolver was dropped by thread 5"));
  CHECK_THAT(unwaited.findings[0].message, !Catch::Contains("lost wake-up"));
}

TEST_CASE("pending-at-end: a wait in a condition after its signal found nobody is a lost wake-up naming the signaller") {
  // 5 signals condition 1 at 2000 with nobody waiting; 0 then waits in it
  // (the waiter 3, queued on 1) and nothing signals again. Semaphore 2's
  // release with nobody waiting keeps its permit: no lost wake-up there.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 5 0 fiber)\n"
      "(switch 1900 5)\n"
      "(no-waiter 2000 5 1 condition)\n"
      "(no-waiter 2050 5 2 semaphore)\n"
      "(switch 2100 -1)\n"
      "(switch 2500 0)\n"
      "(spawn 3000 3 0 condition)\n"
      "(queued 3000 3 1)\n"
      "(spawn 3100 4 0 semaphore)\n"
      "(queued 3100 4 2)\n"
      "(switch 3200 -1)\n"
      "(drop 3900 3 0)\n"
      "(end 4000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "pending-at-end error 3000 t=3 from=none suspect=5 event=7\n"
        "pending-at-end warning 1000 t=5 from=none suspect=none event=1\n"
        "pending-at-end warning 3100 t=4 from=none suspect=none event=9\n");
  REQUIRE(report.findings.size() == 3);
  // The lost signal, not the condition's death at the end (the drop at
  // 3900), is what it says.
  CHECK(report.findings[0].message ==
        "thread 3 is still pending at the end (0.004000 ms); waits on nothing recorded; it waits in condition 1, "
        "which thread 5 signalled at 0.002000 ms with nobody waiting: a lost wake-up, the signal came before the "
        "wait");
  // A wait that began before the signal was not missed by it.
  std::string before = trace;
  before.replace(before.find("(no-waiter 2000 5 1 condition)\n"), std::string("(no-waiter 2000 5 1 condition)\n").size(), "");
  before.insert(before.find("(switch 3200 -1)"), "(no-waiter 3150 0 1 condition)\n");
  const LintReport later = lint_trace(before, kRule);
  REQUIRE_FALSE(later.findings.empty());
  CHECK_THAT(later.findings[0].message, !Catch::Contains("signal came before"));
}
