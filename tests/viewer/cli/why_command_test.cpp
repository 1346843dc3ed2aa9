// why_command_test.cpp — `skein why DB|TRACE`: the chain of recorded causes
// for a thread at a time, a finding by its number and a record, exactly,
// on a poller that hands off with no recorded cause (viewer/analysis/LINTS.md's
// "Hand-offs after polling" example) and on the same trace with the
// notify that fixes it; exit 1 at a missing cause, 0 at a root, 2 for
// usage errors; a trace never linted is linted first. Each expected line
// follows from the trace by viewer/analysis/why_answer.hpp's walk.
#include <catch2/catch.hpp>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::query;
using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

// Fiber 1 polls: its turn at 2000 finds nothing, the backend (5) runs, and
// its next turn resolves B.read (2) at event 20, with only its yield to
// wake it.
const std::string kPoller =
    "(skein-trace 1)\n"
    "(spawn 1000 1 0 fiber)\n"
    "(spawn 1100 2 0 task)\n"
    "(label 1150 2 \"B.read\")\n"
    "(spawn 1200 5 0 fiber)\n"
    "(switch 1300 -1)\n"
    "(switch 1400 1)\n"
    "(spawn 1500 3 1 pause)\n"
    "(wait 1600 1 3)\n"
    "(switch 1700 -1)\n"
    "(notify 1800 -1 3 yield)\n"
    "(resolve 1900 3 -1 ok)\n"
    "(switch 2000 1)\n"
    "(spawn 2100 4 1 pause)\n"
    "(wait 2200 1 4)\n"
    "(switch 2300 5)\n"
    "(label 2400 5 \"backend\")\n"
    "(switch 2500 -1)\n"
    "(notify 2600 -1 4 yield)\n"
    "(resolve 2700 4 -1 ok)\n"
    "(switch 2800 1)\n"
    "(resolve 2900 2 1 ok)\n"
    "(switch 3000 -1)\n"
    "(end 3100)\n";

std::string fixed_poller() {
  std::string t = kPoller;
  const std::string after = "(label 2400 5 \"backend\")\n";
  t.insert(t.find(after) + after.size(), "(notify 2450 5 1 external)\n");
  return t;
}

}  // namespace

TEST_CASE("skein why: a promise resolved with no recorded cause names the poller and the suspect") {
  TempDir dir;
  const std::string trace = dir.file("poll.sexp");
  skein::test::write_file(trace, kPoller);
  // Never linted: why lints it first, and stores the causes.
  const auto r = run_process({kSkein, "why", trace, "--thread", "2"});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out ==
        "why thread 2 \"B.read\" was resolved at 2.900 µs (event 21):\n"
        "  1. thread 2 \"B.read\" was resolved by thread 1 at 2.900 µs (event 21)\n"
        "no recorded cause: thread 1 resolved thread 2 after polling, woken only by a wake-up it arranged itself (a pause, a yield, its own timer) (event 21); "
        "suspect thread 5 \"backend\"\n");
  CHECK(query(trace + ".skein.db", "SELECT count(*) > 0 FROM transfers") == "1\n");
  // The same, asked as the lint's finding #1 (the hand-off at event 21).
  const auto finding = run_process({kSkein, "why", trace, "--finding", "1"});
  CHECK(finding.exit_code == 1);
  CHECK(finding.out ==
        "why thread 1 acted at 2.900 µs (event 21):\n"
        "no recorded cause: thread 1 resolved thread 2 after polling, woken only by a wake-up it arranged itself (a pause, a yield, its own timer) (event 21); "
        "suspect thread 5 \"backend\"\n");
  // Thread 1 at 2.5 µs waits (it ran from 2000 to its switch to the
  // backend at 2300): what ended that wait is its next turn, at 2800, woken
  // by its second pause (4), which the scheduler resolved: a root.
  const auto waiting = run_process({kSkein, "why", trace, "--thread", "1", "--at", "2.5us"});
  CHECK(waiting.exit_code == 0);
  CHECK(waiting.out ==
        "why thread 1 acted at 2.800 µs (event 20):\n"
        "  (at 2.500 µs: what ended the wait it was in; --woke asks what woke its turn)\n"
        "  1. thread 1 waited on thread 4, resolved by the scheduler at 2.700 µs (event 19), 0.100 µs before\n"
        "root: the scheduler: a yield\n");
  // Asked what woke its turn instead: its latest record by then, in the
  // turn its first pause (3) woke at 2000.
  const auto earlier = run_process({kSkein, "why", trace, "--thread", "1", "--at", "2.5us", "--woke"});
  CHECK(earlier.exit_code == 0);
  CHECK(earlier.out ==
        "why thread 1 acted at 2.200 µs (event 14):\n"
        "  (at 2.500 µs: what woke the turn it ran in; --wait asks what ended its wait)\n"
        "  1. thread 1 waited on thread 3, resolved by the scheduler at 1.900 µs (event 11), 0.100 µs before\n"
        "root: the scheduler: a yield\n");
  // While it runs (2.1 µs), the automatic question is what woke the turn.
  const auto running = run_process({kSkein, "why", trace, "--thread", "1", "--at", "2.1us"});
  CHECK_THAT(running.out, Catch::Contains("(at 2.100 µs: what woke the turn it ran in;"));
  CHECK_THAT(running.out, Catch::Contains("waited on thread 3, resolved by the scheduler at 1.900 µs"));
  // The two flags ask one question each, and only about a thread.
  CHECK(run_process({kSkein, "why", trace, "--thread", "1", "--woke", "--wait"}).exit_code == 2);
  CHECK(run_process({kSkein, "why", trace, "--event", "3", "--wait"}).exit_code == 2);
}

TEST_CASE("skein why: with the notify, the chain goes through the backend to the program's start") {
  TempDir dir;
  const std::string trace = dir.file("fixed.sexp");
  skein::test::write_file(trace, fixed_poller());
  const auto r = run_process({kSkein, "why", trace, "--thread", "2"});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "why thread 2 \"B.read\" was resolved at 2.900 µs (event 22):\n"
        "  1. thread 2 \"B.read\" was resolved by thread 1 at 2.900 µs (event 22)\n"
        "  2. thread 1 was notified by thread 5 \"backend\" (external) at 2.450 µs (event 17), 0.450 µs before\n"
        "  3. thread 5 \"backend\" was created by thread 0 at 1.200 µs (event 4), 1.100 µs before\n"
        "root: the program's start\n");
  // The record itself, by its event id.
  const auto record = run_process({kSkein, "why", trace, "--event", "22"});
  CHECK(record.exit_code == 0);
  CHECK_THAT(record.out, Catch::StartsWith("why thread 1 acted at 2.900 µs (event 22):\n"
                                           "  1. thread 1 was notified by thread 5 \"backend\" (external)"));
}

TEST_CASE("skein why: usage errors exit 2") {
  TempDir dir;
  const std::string trace = dir.file("poll.sexp");
  skein::test::write_file(trace, kPoller);
  CHECK(run_process({kSkein, "why", trace}).exit_code == 2);  // no question
  CHECK(run_process({kSkein, "why", trace, "--thread", "1", "--finding", "1"}).exit_code == 2);
  CHECK(run_process({kSkein, "why", trace, "--finding", "1", "--at", "1us"}).exit_code == 2);
  CHECK(run_process({kSkein, "why", trace, "--thread", "x"}).exit_code == 2);
  CHECK(run_process({kSkein, "why", trace, "--thread", "1", "--at", "soon"}).exit_code == 2);
  const auto missing = run_process({kSkein, "why", trace, "--finding", "9"});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("no finding #9"));
  const auto nothread = run_process({kSkein, "why", trace, "--thread", "77"});
  CHECK(nothread.exit_code == 2);
  CHECK_THAT(nothread.err, Catch::Contains("no thread 77 in the trace"));
  CHECK(run_process({kSkein, "why", dir.file("absent.sexp"), "--thread", "1"}).exit_code == 2);
}

TEST_CASE("skein why: a pending promise whose resolver was dropped ends at the lost wake-up, naming who dropped it") {
  TempDir dir;
  const std::string trace = dir.file("dropped.sexp");
  skein::test::write_file(trace,
                          "(skein-trace 1)\n"
                          "(spawn 1000 1 0 task)\n"
                          "(label 1000 1 \"reply\")\n"
                          "(spawn 1100 2 0 bind)\n"
                          "(wait 1200 2 1)\n"
                          "(spawn 1300 5 0 fiber)\n"
                          "(label 1300 5 \"server\")\n"
                          "(switch 1900 5)\n"
                          "(drop 2000 1 5)\n"
                          "(resolve 2050 5 5 ok)\n"
                          "(switch 2100 -1)\n"
                          "(end 3000)\n");
  // Finding #1 is the reply, pending, its resolver dropped by the server.
  const auto r = run_process({kSkein, "why", trace, "--finding", "1"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out ==
        "why thread 1 \"reply\" was still waiting at the end:\n"
        "lost wake-up: it can never be settled: its last resolver was dropped, or the primitive it waited in "
        "destroyed (event 8); by thread 5 \"server\"\n");
  // Asked about the bind that waits on it, the answer follows its wait.
  const auto waiter = run_process({kSkein, "why", trace, "--thread", "2", "--at", "2500ns"});
  INFO(waiter.out << waiter.err);
  CHECK(waiter.exit_code == 1);
  CHECK_THAT(waiter.out, Catch::Contains("lost wake-up: thread 1, which it waits on, can never be settled"));
  CHECK_THAT(waiter.out, Catch::Contains("by thread 5 \"server\""));
}

TEST_CASE("skein why: a routine signal's hand-off goes back to the waiter's request") {
  TempDir dir;
  const std::string trace = dir.file("bucket.sexp");
  // The token bucket of the lint tests (missing_notification_test.cpp):
  // the ticker's semaphore release at 4200 reaches the client's waiter 21.
  skein::test::write_file(trace,
                          "(skein-trace 1)\n(spawn 100 10 0 fiber)\n(spawn 110 20 0 fiber)\n(switch 1000 10)\n"
                          "(spawn 1100 11 10 sleep)\n(wait 1200 10 11)\n(switch 1300 -1)\n(notify 2000 -1 11 timer)\n"
                          "(resolve 2000 11 -1 ok)\n(switch 2100 10)\n(no-waiter 2200 10 1 semaphore)\n"
                          "(spawn 2300 12 10 sleep)\n(wait 2400 10 12)\n(switch 2500 -1)\n(notify 3000 -1 12 timer)\n"
                          "(resolve 3000 12 -1 ok)\n(switch 3100 10)\n(spawn 3200 13 10 sleep)\n(wait 3300 10 13)\n"
                          "(switch 3400 -1)\n(switch 3500 20)\n(spawn 3600 21 20 semaphore)\n(queued 3600 21 1)\n"
                          "(wait 3700 20 21)\n(switch 3800 -1)\n(notify 4000 -1 13 timer)\n(resolve 4000 13 -1 ok)\n"
                          "(switch 4100 10)\n(notify 4200 10 21 semaphore)\n(resolve 4300 21 10 ok)\n(end 5000)\n");
  const auto r = run_process({kSkein, "why", trace, "--event", "28"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("  1. thread 21 was created by thread 20 at 3.600 µs (event 21)"));
}
