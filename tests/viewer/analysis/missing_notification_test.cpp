// missing_notification_test.cpp — the `missing-notification` rule on small
// hand-written traces: each kind of unexplained transfer and switch gives
// exactly the expected finding, and each way a transfer is explained keeps
// the rule silent, Skein's runtime's own golden traces included
// (tests/runtime/*golden_test.cpp: the records real programs write).
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"

using namespace skein;
using skein::test::lint_lines;
using skein::test::lint_trace;

namespace {

const std::vector<LintRuleId> kRule = {LintRuleId::missing_notification};

// A golden test's lines ("spawn 1 0 wait") as a trace, one record each
// 1000 ns apart, ended cleanly.
std::string golden_trace(const std::vector<std::string>& lines) {
  std::string out = "(skein-trace 1)\n";
  TimeNs t = 1000;
  for (const std::string& l : lines) {
    const auto space = l.find(' ');
    const std::string head = l.substr(0, space);
    const std::string rest = space == std::string::npos ? std::string() : l.substr(space);
    out += "(" + head + " " + std::to_string(t) + rest + ")\n";
    t += 1000;
  }
  return out + "(end " + std::to_string(t) + ")\n";
}

}  // namespace

TEST_CASE("missing-notification: a read of a thread nobody resolved") {
  // Thread 3 (a fiber) runs and should have resolved 1 (it notifies it);
  // 2's callback then reads 1 inside 3's activation.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 wait)\n"
      "(spawn 2000 2 0 bind)\n"
      "(wait 3000 2 1)\n"
      "(spawn 4000 3 0 fiber)\n"
      "(switch 5000 -1)\n"
      "(switch 6000 3)\n"
      "(notify 7000 3 1 mailbox)\n"
      "(read 8000 2 1)\n"
      "(resolve 9000 2 2 ok)\n"
      "(switch 10000 -1)\n"
      "(end 11000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) ==
        "missing-notification error 8000 t=2 from=3 suspect=3 event=8\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message ==
        "thread 2 took control from thread 3 at its read of thread 1 with no recorded cause: thread 1 was not "
        "resolved since the last switch, it was not notified since it last ran, and no callback it called returns "
        "to it");
  CHECK(report.counts[0] == 1);
  // With the resolve that was missing, nothing is reported.
  std::string complete = trace;
  complete.replace(complete.find("(read 8000"), 0, "(resolve 7500 1 3 ok)\n");
  CHECK(lint_lines(complete, kRule) == "");
}

TEST_CASE("missing-notification: a switch to a thread that nothing woke") {
  // Fiber 1 waits on 2 and is switched to again although nobody notified
  // it or resolved 2; its first record does not show a cause either.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 fiber)\n"
      "(spawn 1100 4 0 fiber)\n"
      "(switch 2000 -1)\n"
      "(switch 3000 1)\n"
      "(spawn 4000 2 1 wait)\n"
      "(wait 5000 1 2)\n"
      "(switch 6000 -1)\n"
      "(switch 7000 4)\n"
      "(notify 7500 4 2 mailbox)\n"
      "(switch 8000 -1)\n"
      "(switch 9000 1)\n"
      "(resolve 10000 2 1 ok)\n"
      "(end 11000)\n";
  CHECK(lint_lines(trace, kRule) == "missing-notification error 9000 t=1 from=-1 suspect=4 event=11\n");

  SECTION("silent once the wake-up is there: a notify of the thread") {
    std::string complete = trace;
    complete.replace(complete.find("(switch 9000 1)"), 0, "(notify 8500 -1 1 io)\n");
    CHECK(lint_lines(complete, kRule) == "");
  }
  SECTION("silent when an input it waits on was resolved since it ran") {
    std::string complete = trace;
    complete.replace(complete.find("(notify 7500"), 0, "(resolve 7200 2 4 ok)\n");
    CHECK(lint_lines(complete, kRule) == "");
  }
  SECTION("a switch whose verdict waits: control leaving the thread before it records anything") {
    std::string cut = trace;
    cut.replace(cut.find("(resolve 10000"), std::string("(resolve 10000 2 1 ok)\n").size(), "(switch 9500 -1)\n");
    CHECK(lint_lines(cut, kRule) == "missing-notification error 9000 t=1 from=-1 suspect=4 event=11\n");
  }
  SECTION("traces with no notify record at all are not checked at switches") {
    std::string no_notify = trace;
    no_notify.replace(no_notify.find("(notify 7500 4 2 mailbox)"), 25, "(label 7500 4 \"idle\")");
    CHECK(lint_lines(no_notify, kRule) == "");
  }
}

TEST_CASE("missing-notification: a switch explained by the input the thread reads first") {
  // The runtime's run() switches back to the main thread, which then reads
  // what it was waiting for, without a wait record of its own.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 wait)\n"
      "(notify 2000 0 1 mailbox)\n"
      "(resolve 3000 1 0 ok)\n"
      "(switch 4000 -1)\n"
      "(switch 5000 0)\n"
      "(read 6000 0 1)\n"
      "(end 7000)\n";
  CHECK(lint_lines(trace, kRule) == "");
  std::string other = trace;
  other.replace(other.find("(read 6000 0 1)"), 15, "(spawn 6000 2 0 task)");
  CHECK(lint_lines(other, kRule) == "missing-notification error 5000 t=0 from=-1 suspect=none event=5\n");
}

TEST_CASE("missing-notification: a new thread starts at once unless it waits for an input") {
  const std::string async_thread =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 async)\n"
      "(label 1500 1 \"worker\")\n"
      "(resolve 2000 1 1 ok)\n"
      "(spawn 3000 2 0 task)\n"
      "(end 4000)\n";
  CHECK(lint_lines(async_thread, kRule) == "");
  std::string bind_thread = async_thread;
  bind_thread.replace(bind_thread.find("async"), 5, "bind");
  CHECK(lint_lines(bind_thread, kRule) == "missing-notification error 2000 t=1 from=0 suspect=0 event=3\n");
}

TEST_CASE("missing-notification: notified threads, returns and merges are explained") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 task)\n"
      "(spawn 1050 5 0 task)\n"
      "(spawn 1100 2 0 bind)\n"
      "(wait 1200 2 1)\n"
      "(resolve 2000 1 0 ok)\n"
      "(read 3000 2 1)\n"          // a callback inside 0's resolve
      "(spawn 4000 3 2 task)\n"
      "(spawn 4500 7 2 bind)\n"
      "(wait 4600 7 1)\n"
      "(merge 5000 2 3)\n"
      "(spawn 6000 4 3 task)\n"     // 3 acts: 2, which merged into it, has control
      "(notify 7000 3 5 mailbox)\n"
      "(resolve 8000 4 5 ok)\n"     // 5 acts: it was notified
      "(spawn 9000 6 0 task)\n"     // 0 gets control back
      "(end 10000)\n";
  CHECK(lint_lines(trace, kRule) == "");
  std::string no_merge = trace;
  no_merge.erase(no_merge.find("(merge 5000 2 3)\n"), 17);
  CHECK(lint_lines(no_merge, kRule) == "missing-notification error 6000 t=3 from=2 suspect=2 event=10\n");
  std::string no_notify = trace;
  no_notify.erase(no_notify.find("(notify 7000 3 5 mailbox)\n"), 26);
  CHECK(lint_lines(no_notify, kRule) == "missing-notification error 8000 t=5 from=3 suspect=3 event=12\n");
}

TEST_CASE("missing-notification: the runtime's golden traces are complete") {
  const std::vector<std::vector<std::string>> goldens = {
      {"spawn 1 0 wait", "spawn 2 0 bind", "wait 2 1", "resolve 1 0 ok", "read 2 1", "resolve 2 2 ok",
       "switch -1", "switch 0", "read 0 2"},
      {"spawn 1 0 wait", "spawn 2 0 wait", "spawn 3 0 bind", "wait 3 1", "resolve 1 0 ok", "read 3 1",
       "merge 3 2", "resolve 2 0 ok", "label 2 \"b\""},
      {"spawn 1 0 wait", "spawn 2 0 map", "wait 2 1", "spawn 3 0 map", "wait 3 2", "resolve 1 0 ok", "read 2 1",
       "resolve 2 2 ok", "wait 0 3", "switch -1", "switch 3", "read 3 2", "resolve 3 3 ok", "switch -1",
       "switch 0", "read 0 3"},
      {"spawn 1 0 pause", "spawn 2 0 bind", "wait 2 1", "wait 0 2", "switch -1", "notify -1 1 yield",
       "resolve 1 -1 ok", "read 2 1", "resolve 2 2 ok", "switch -1", "switch 0", "read 0 2"},
      {"spawn 1 0 pause", "spawn 2 0 bind", "wait 2 1", "wait 0 2", "switch -1", "notify -1 1 yield",
       "resolve 1 -1 ok", "read 2 1", "spawn 3 2 pause", "spawn 4 2 bind", "wait 4 3", "merge 2 4", "switch -1",
       "notify -1 3 yield", "resolve 3 -1 ok", "read 4 3", "resolve 4 4 ok", "switch -1", "switch 0",
       "read 0 4"},
      {"spawn 1 0 sleep", "spawn 2 0 bind", "wait 2 1", "wait 0 2", "switch -1", "idle", "notify -1 1 timer",
       "resolve 1 -1 ok", "read 2 1", "resolve 2 2 ok", "switch -1", "switch 0", "read 0 2"},
      {"spawn 1 0 wait", "spawn 2 0 wait", "spawn 3 0 join", "wait 3 1", "wait 3 2", "resolve 2 0 ok",
       "read 3 2", "resolve 1 0 ok", "read 3 1", "resolve 3 3 ok"},
      {"spawn 1 0 async", "resolve 1 1 fail", "label 0 \"main\""},
      {"spawn 1 0 mailbox", "spawn 2 0 map", "wait 2 1", "notify 0 1 mailbox", "resolve 1 0 ok", "wait 0 2",
       "switch -1", "switch 2", "read 2 1", "resolve 2 2 ok", "switch -1", "switch 0", "read 0 2"},
      {"spawn 1 0 mailbox", "spawn 2 0 bind", "wait 2 1", "spawn 3 0 pause", "spawn 4 0 bind", "wait 4 3",
       "spawn 5 0 join", "wait 5 2", "wait 5 4", "wait 0 5", "switch -1", "notify -1 3 yield", "resolve 3 -1 ok",
       "read 4 3", "notify 4 1 mailbox", "resolve 1 4 ok", "read 2 1", "resolve 2 2 ok", "read 5 2",
       "resolve 4 4 ok", "read 5 4", "resolve 5 5 ok", "switch -1", "switch 0", "read 0 5"},
      {"spawn 1 0 condition", "spawn 2 0 pause", "spawn 3 0 map", "wait 3 2", "spawn 4 0 map", "wait 4 1",
       "spawn 5 0 join", "wait 5 4", "wait 5 3", "wait 0 5", "switch -1", "notify -1 2 yield", "resolve 2 -1 ok",
       "read 3 2", "notify 3 1 condition", "resolve 1 3 ok", "read 4 1", "resolve 4 4 ok", "read 5 4",
       "resolve 3 3 ok", "read 5 3", "resolve 5 5 ok", "switch -1", "switch 0", "read 0 5"},
  };
  for (const auto& lines : goldens) {
    const std::string trace = golden_trace(lines);
    INFO(trace);
    CHECK(lint_lines(trace, kRule) == "");
  }
}

TEST_CASE("missing-notification: FORMAT.md's example trace is complete") {
  const std::string trace =
      "(skein-trace 1 (process \"blockread\") (pid 4242) (origin-unix-ns 1764409200123456789))\n"
      "(site 0 \"samples/blockread/blockread.cpp\" 41 \"blkfront_poll\")\n"
      "(spawn 1200 1 0 task 0)\n"
      "(label 1250 1 \"blkfront.poll\")\n"
      "(spawn 1300 2 0 bind)\n"
      "(wait 1320 2 1)\n"
      "(switch 1400 -1)\n"
      "(idle 1410)\n"
      "(notify 52000 -1 1 io)\n"
      "(switch 52010 1)\n"
      "(resolve 52100 1 1 ok)\n"
      "(read 52120 2 1)\n"
      "(resolve 52200 2 2 fail \"Failure \\\"short read\\\"\")\n"
      "(end 60000)\n";
  CHECK(lint_lines(trace, kRule) == "");
}

TEST_CASE("missing-notification: a fiber started by a switch gives control back to its starter") {
  // As the runtime records it (samples/styles): main spawns a fiber and
  // switches to it; the fiber blocks and control switches straight back.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 16 0 fiber)\n"
      "(switch 2000 16)\n"
      "(spawn 3000 17 16 sleep)\n"
      "(spawn 3100 18 16 map)\n"
      "(wait 3200 18 17)\n"
      "(wait 3300 16 18)\n"
      "(switch 4000 0)\n"
      "(wait 4100 0 16)\n"
      "(switch 5000 -1)\n"
      "(idle 5100)\n"
      "(notify 9000 -1 17 timer)\n"
      "(resolve 9100 17 -1 ok)\n"
      "(read 9200 18 17)\n"
      "(resolve 9300 18 18 ok)\n"
      "(switch 9400 -1)\n"
      "(switch 9500 16)\n"
      "(read 9600 16 18)\n"
      "(end 10000)\n";
  CHECK(lint_lines(trace, kRule) == "");
  // The link is used up: a second direct switch back to 0 needs a cause.
  std::string again = trace;
  again.replace(again.find("(end 10000)"), 0, "(switch 9700 0)\n(spawn 9800 19 0 task)\n");
  CHECK(lint_lines(again, kRule) == "missing-notification error 9700 t=0 from=16 suspect=16 event=18\n");
}

TEST_CASE("missing-notification: with wait records, a read of a thread nothing resolved") {
  // The reader already has control (a callback chain), so no transfer is
  // missed; but in a trace that records waits a read consumes an outcome.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 wait)\n"
      "(spawn 1100 2 0 wait)\n"
      "(spawn 1200 3 0 bind)\n"
      "(wait 1300 3 1)\n"
      "(resolve 2000 1 0 ok)\n"
      "(read 3000 3 1)\n"
      "(read 4000 3 2)\n"
      "(resolve 5000 3 3 ok)\n"
      "(end 6000)\n";
  const LintReport report = lint_trace(trace, kRule);
  CHECK(test::finding_lines(report.findings) == "missing-notification error 4000 t=3 from=3 suspect=0 event=7\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message == "thread 3 read thread 2, which no record resolved");
  // Without wait records (as in the 2014 MirageOS traces, whose reads also
  // look at pending threads) it is not checked.
  std::string no_waits = trace;
  no_waits.erase(no_waits.find("(wait 1300 3 1)\n"), 16);
  CHECK(lint_lines(no_waits, kRule) == "");
}

namespace {

// A poll loop as Skein's runtime records `pause().then(...)` repeated
// (samples/blockread --missing-notify): each turn is a bind (2, 7, 9)
// reading the pause its previous turn spawned, continued through merges.
// Turns 1 and 2 find nothing; the backend (5, woken by its timer) sets a
// flag the trace cannot see; turn 3 finds it and resolves B.read (3,
// created by the main thread).
const std::string kPollTrace =
    "(skein-trace 1)\n"
    "(spawn 1000 1 0 pause)\n"
    "(spawn 1100 2 0 bind)\n"
    "(wait 1200 2 1)\n"
    "(spawn 1300 3 0 task)\n"
    "(spawn 1400 4 0 sleep)\n"
    "(spawn 1500 5 0 bind)\n"
    "(wait 1600 5 4)\n"
    "(switch 2000 -1)\n"
    "(notify 2100 -1 1 yield)\n"
    "(resolve 2200 1 -1 ok)\n"
    "(read 2300 2 1)\n"  // turn 1: nothing
    "(spawn 2400 6 2 pause)\n"
    "(spawn 2500 7 2 bind)\n"
    "(wait 2600 7 6)\n"
    "(merge 2700 2 7)\n"
    "(switch 3000 -1)\n"
    "(notify 3100 -1 6 yield)\n"
    "(resolve 3200 6 -1 ok)\n"
    "(read 3300 7 6)\n"  // turn 2: nothing
    "(spawn 3400 8 7 pause)\n"
    "(spawn 3500 9 7 bind)\n"
    "(wait 3600 9 8)\n"
    "(merge 3700 7 9)\n"
    "(switch 4000 -1)\n"
    "(notify 4100 -1 4 timer)\n"
    "(resolve 4200 4 -1 ok)\n"
    "(read 4300 5 4)\n"
    "(label 4350 5 \"backend\")\n"  // sets the flag
    "(resolve 4400 5 5 ok)\n"
    "(switch 5000 -1)\n"
    "(notify 5100 -1 8 yield)\n"
    "(resolve 5200 8 -1 ok)\n"
    "(read 5300 9 8)\n"       // turn 3, event 33
    "(resolve 5400 3 9 ok)\n"  // finds the flag: event 34
    "(resolve 5500 9 9 ok)\n"
    "(switch 5600 -1)\n"
    "(end 6000)\n";

std::string replaced(std::string trace, const std::string& what, const std::string& with) {
  const auto at = trace.find(what);
  REQUIRE(at != std::string::npos);
  return trace.replace(at, what.size(), with);
}

}  // namespace

TEST_CASE("missing-notification: a hand-off after polling that found nothing has no recorded cause") {
  const LintReport report = lint_trace(kPollTrace, kRule);
  CHECK(test::finding_lines(report.findings) == "missing-notification error 5400 t=9 from=-1 suspect=5 event=34\n");
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].message ==
        "thread 9 resolved thread 3 with no recorded cause: only its own pause woke it (event 33), and its previous "
        "2 turns, woken the same way, handed nothing off: it polls something the trace does not record, and no "
        "thread notified it. Most likely set by thread 5, which last took control 1.1 µs before the hand-off (what "
        "the missing notification cost at most)");

  SECTION("a notify is a hand-off too") {
    CHECK(lint_lines(replaced(kPollTrace, "(resolve 5400 3 9 ok)", "(notify 5400 9 3 mailbox)"), kRule) ==
          "missing-notification error 5400 t=9 from=-1 suspect=5 event=34\n");
  }
  SECTION("every hand-off of the turn is reported") {
    const std::string with_10 =
        replaced(kPollTrace, "(spawn 1300 3 0 task)", "(spawn 1300 3 0 task)\n(spawn 1350 10 0 task)");
    const std::string two =
        replaced(with_10, "(resolve 5400 3 9 ok)", "(resolve 5400 3 9 ok)\n(resolve 5450 10 9 ok)");
    CHECK(lint_lines(two, kRule) ==
          "missing-notification error 5400 t=9 from=-1 suspect=5 event=35\n"
          "missing-notification error 5450 t=9 from=-1 suspect=5 event=36\n");
  }
}

TEST_CASE("missing-notification: a hand-off after polling is explained by a notify from another thread") {
  SECTION("the fix: the backend notifies the poller's current thread (skein::notify)") {
    CHECK(lint_lines(replaced(kPollTrace, "(label 4350 5 \"backend\")\n",
                              "(label 4350 5 \"backend\")\n(notify 4360 5 9 external)\n"),
                     kRule) == "");
  }
  SECTION("... or any thread of its merge group") {
    CHECK(lint_lines(replaced(kPollTrace, "(label 4350 5 \"backend\")\n",
                              "(label 4350 5 \"backend\")\n(notify 4360 5 2 external)\n"),
                     kRule) == "");
  }
  SECTION("a notify before its previous turn does not explain this one") {
    // The loop notifies the poller before turn 1, which therefore does not
    // count as an empty poll; turn 2 does, and turn 3 is reported.
    const LintReport report =
        lint_trace(replaced(kPollTrace, "(switch 2000 -1)\n", "(switch 2000 -1)\n(notify 2050 -1 2 io)\n"), kRule);
    CHECK(test::finding_lines(report.findings) == "missing-notification error 5400 t=9 from=-1 suspect=5 event=35\n");
    REQUIRE(report.findings.size() == 1);
    CHECK(report.findings[0].message.find("its previous turn, woken the same way, handed nothing off") !=
          std::string::npos);
  }
}

TEST_CASE("missing-notification: a yield before a hand-off is no polling, nor is settling its own threads") {
  SECTION("the turn before was woken by a timer another thread armed: the hand-off may come from it") {
    // Sleep 6 is the main thread's, not the poller's: its expiry is a cause
    // the poller did not arrange, so turn 2 was not an empty poll.
    std::string timer = replaced(kPollTrace, "(spawn 2400 6 2 pause)\n", "");
    timer = replaced(timer, "(spawn 1500 5 0 bind)", "(spawn 1450 6 0 sleep)\n(spawn 1500 5 0 bind)");
    timer = replaced(timer, "(notify 3100 -1 6 yield)", "(notify 3100 -1 6 timer)");
    CHECK(lint_lines(timer, kRule) == "");
  }
  SECTION("the turn before handed something off: it had not found nothing") {
    // Turn 2 settles 10 (created by 0); that is turn 2's own hand-off, the
    // first after only one empty turn. The backend runs between turns 1 and
    // 2 here, so something may have reached the poller: it is reported.
    const std::string with_10 =
        replaced(kPollTrace, "(spawn 1300 3 0 task)", "(spawn 1300 3 0 task)\n(spawn 1350 10 0 task)");
    const std::string backend_between =
        replaced(with_10, "(switch 3000 -1)\n", "(switch 3000 -1)\n(switch 3010 5)\n(switch 3020 -1)\n");
    const std::string busy =
        replaced(backend_between, "(spawn 3400 8 7 pause)", "(resolve 3350 10 7 ok)\n(spawn 3400 8 7 pause)");
    CHECK(lint_lines(busy, kRule) == "missing-notification error 3350 t=7 from=-1 suspect=5 event=23\n");
  }
  SECTION("nothing else ran since it found nothing: the hand-off is its own decision") {
    // As above, but no thread runs between turns 1 and 2: nothing could have
    // changed what the poller looks at (a counter of its own, a clock).
    const std::string with_10 =
        replaced(kPollTrace, "(spawn 1300 3 0 task)", "(spawn 1300 3 0 task)\n(spawn 1350 10 0 task)");
    const std::string own =
        replaced(with_10, "(spawn 3400 8 7 pause)", "(resolve 3350 10 7 ok)\n(spawn 3400 8 7 pause)");
    CHECK(lint_lines(own, kRule) == "");
    const LintReport report = test::lint_with_transfers(own, kRule);
    bool found = false;
    for (const ControlTransfer& t : report.transfers)
      if (t.hand_off && t.event == 21) {
        found = true;
        CHECK(t.cause == ControlCause::hand_off_own);
      }
    CHECK(found);
  }
  SECTION("a join that only forwards an outcome is no candidate") {
    // Between turns 1 and 2 only a join runs (it reads its input and
    // settles): it cannot have set what the poller found.
    const std::string with_10 = replaced(
        kPollTrace, "(spawn 1300 3 0 task)", "(spawn 1300 3 0 task)\n(spawn 1350 10 0 task)\n(spawn 1360 11 0 join)");
    const std::string join_between = replaced(
        with_10, "(switch 3000 -1)\n", "(switch 3000 -1)\n(switch 3010 11)\n(resolve 3015 11 11 ok)\n(switch 3020 -1)\n");
    const std::string busy =
        replaced(join_between, "(spawn 3400 8 7 pause)", "(resolve 3350 10 7 ok)\n(spawn 3400 8 7 pause)");
    CHECK(lint_lines(busy, kRule) == "");
  }
  SECTION("the poller's first turn hands off at once: a yield, then work decided before it") {
    const std::string first = replaced(kPollTrace, "(read 2300 2 1)\n", "(read 2300 2 1)\n(resolve 2350 3 2 ok)\n");
    const std::string last_removed = replaced(first, "(resolve 5400 3 9 ok)\n", "");
    CHECK(lint_lines(last_removed, kRule) == "");
  }
  SECTION("it resolves a thread it created") {
    const std::string own =
        replaced(kPollTrace, "(resolve 5400 3 9 ok)", "(spawn 5350 10 9 task)\n(resolve 5400 10 9 ok)");
    CHECK(lint_lines(own, kRule) == "");
  }
  SECTION("a trace with no notify records cannot say why a thread was woken") {
    std::string no_notify = kPollTrace;
    for (std::size_t at; (at = no_notify.find("(notify ")) != std::string::npos;)
      no_notify.erase(at, no_notify.find('\n', at) + 1 - at);
    CHECK(lint_lines(no_notify, kRule) == "");
  }
}

TEST_CASE("missing-notification: LINTS.md's polling example, and its fix") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 1000 1 0 fiber)\n"
      "(spawn 1100 2 0 task)\n"
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
      "(end 3000)\n";
  CHECK(lint_lines(trace, kRule) == "missing-notification error 2900 t=1 from=-1 suspect=5 event=20\n");
  CHECK(lint_lines(replaced(trace, "(switch 2500 -1)", "(notify 2450 5 1 external)\n(switch 2500 -1)"), kRule) == "");
}

TEST_CASE("missing-notification: a poll on the poller's own timer is judged as a poll on its yield") {
  // The same loop as kPollTrace, each turn woken by a sleep the poller's
  // previous turn armed (`sleep(1ms).then(loop)`): the timer explains that
  // it got control, not what it then hands off.
  std::string timers = kPollTrace;
  timers = replaced(timers, "(spawn 1000 1 0 pause)", "(spawn 1000 1 0 sleep)");
  timers = replaced(timers, "(notify 2100 -1 1 yield)", "(notify 2100 -1 1 timer)");
  timers = replaced(timers, "(spawn 2400 6 2 pause)", "(spawn 2400 6 2 sleep)");
  timers = replaced(timers, "(notify 3100 -1 6 yield)", "(notify 3100 -1 6 timer)");
  timers = replaced(timers, "(spawn 3400 8 7 pause)", "(spawn 3400 8 7 sleep)");
  timers = replaced(timers, "(notify 5100 -1 8 yield)", "(notify 5100 -1 8 timer)");
  const LintReport report = lint_trace(timers, kRule);
  // Turn 1's timer was armed by the main thread, not the poller: turn 2 is
  // its first empty poll, turn 3 finds the flag.
  CHECK(test::finding_lines(report.findings) == "missing-notification error 5400 t=9 from=-1 suspect=5 event=34\n");
  REQUIRE(report.findings.size() == 1);
  INFO(report.findings[0].message);
  CHECK(report.findings[0].message.find("only its own 1.8 µs timer woke it (event 33), and its previous turn, woken "
                                        "the same way, handed nothing off") != std::string::npos);

  SECTION("fixed: the backend notifies the poller") {
    CHECK(lint_lines(replaced(timers, "(label 4350 5 \"backend\")\n",
                              "(label 4350 5 \"backend\")\n(notify 4360 5 9 external)\n"),
                     kRule) == "");
  }
  SECTION("one fault, one finding: a notify and a resolve of the same receiver are one hand-off") {
    CHECK(lint_lines(replaced(timers, "(resolve 5400 3 9 ok)", "(notify 5390 9 3 mailbox)\n(resolve 5400 3 9 ok)"),
                     kRule) == "missing-notification error 5390 t=9 from=-1 suspect=5 event=34\n");
  }
}

TEST_CASE("missing-notification: the suspect of a hand-off after polling is who made the request") {
  // The requester (10) creates the task the poller resolves, then the
  // backend (5) runs after it: the requester ran in the window and made
  // what the poller answers, so it comes first, the backend second.
  std::string t = replaced(kPollTrace, "(spawn 1300 3 0 task)", "(spawn 1300 12 0 fiber)");
  t = replaced(t, "(switch 4000 -1)\n",
               "(switch 3800 12)\n(spawn 3850 3 12 task)\n(switch 3900 -1)\n(switch 4000 -1)\n");
  const LintReport report = lint_trace(t, kRule);
  REQUIRE(report.findings.size() == 1);
  CHECK(report.findings[0].suspect == 12);
  CHECK(report.findings[0].message.find("Most likely set by thread 12") != std::string::npos);
  CHECK(report.findings[0].message.find("; or thread 5") != std::string::npos);
}

namespace {
// A token bucket: the ticker (10, a fiber on its own timers) releases a
// semaphore (object 1) when the bucket is not full. Its turn at 2100
// releases with nobody waiting (no-waiter): that is its routine. Its turn
// at 3100 finds the bucket full and does nothing (an empty turn). The
// client (20) then acquires: its waiter 21 queues on the semaphore. The
// ticker's next turn hands the permit to 21.
const std::string kTokenBucket =
    "(skein-trace 1)\n"
    "(spawn 100 10 0 fiber)\n"
    "(spawn 110 20 0 fiber)\n"
    "(switch 1000 10)\n"
    "(spawn 1100 11 10 sleep)\n"
    "(wait 1200 10 11)\n"
    "(switch 1300 -1)\n"
    "(notify 2000 -1 11 timer)\n"
    "(resolve 2000 11 -1 ok)\n"
    "(switch 2100 10)\n"
    "(no-waiter 2200 10 1 semaphore)\n"
    "(spawn 2300 12 10 sleep)\n"
    "(wait 2400 10 12)\n"
    "(switch 2500 -1)\n"
    "(notify 3000 -1 12 timer)\n"
    "(resolve 3000 12 -1 ok)\n"
    "(switch 3100 10)\n"
    "(spawn 3200 13 10 sleep)\n"
    "(wait 3300 10 13)\n"
    "(switch 3400 -1)\n"
    "(switch 3500 20)\n"
    "(spawn 3600 21 20 semaphore)\n"
    "(queued 3600 21 1)\n"
    "(wait 3700 20 21)\n"
    "(switch 3800 -1)\n"
    "(notify 4000 -1 13 timer)\n"
    "(resolve 4000 13 -1 ok)\n"
    "(switch 4100 10)\n"
    "(notify 4200 10 21 semaphore)\n"
    "(resolve 4300 21 10 ok)\n"
    "(spawn 4400 14 10 sleep)\n"
    "(wait 4500 10 14)\n"
    "(switch 4600 -1)\n"
    "(switch 4700 20)\n"
    "(read 4800 20 21)\n"
    "(switch 4900 -1)\n"
    "(end 5000)\n";
}  // namespace

TEST_CASE("missing-notification: time-driven work through a primitive is its routine, not a poll's hand-off") {
  CHECK(lint_lines(kTokenBucket, kRule) == "");
  const LintReport report = test::lint_with_transfers(kTokenBucket, kRule);
  bool routine = false;
  for (const ControlTransfer& t : report.transfers)
    if (t.hand_off && t.event == 28) {
      routine = t.cause == ControlCause::hand_off_routine;
      CHECK(t.cause_event == 21);  // the waiter's spawn: the client's request
    }
  CHECK(routine);

  SECTION("a primitive never signalled with nobody waiting is no routine") {
    CHECK(lint_lines(replaced(kTokenBucket, "(no-waiter 2200 10 1 semaphore)\n", ""), kRule) ==
          "missing-notification error 4200 t=10 from=-1 suspect=20 event=27\n");
  }
  SECTION("a waiter that queued before the empty turn was passed over by it: a poll") {
    // The client queues before the ticker's turn at 3100, which hands it
    // nothing: what made the next turn hand it the permit is not recorded.
    std::string early = replaced(kTokenBucket,
                                 "(switch 3500 20)\n(spawn 3600 21 20 semaphore)\n(queued 3600 21 1)\n(wait 3700 20 21)\n"
                                 "(switch 3800 -1)\n",
                                 "");
    early = replaced(early, "(notify 3000 -1 12 timer)\n",
                     "(switch 2600 20)\n(spawn 2700 21 20 semaphore)\n(queued 2700 21 1)\n(wait 2800 20 21)\n"
                     "(switch 2900 -1)\n(notify 3000 -1 12 timer)\n");
    early = replaced(early, "(switch 3400 -1)\n", "(switch 3400 -1)\n(switch 3500 20)\n(switch 3800 -1)\n");
    CHECK(lint_lines(early, kRule).find("missing-notification error 4200 t=10") != std::string::npos);
  }
  SECTION("a turn that signals with nobody waiting is not empty") {
    // The turn at 3100 releases too: no empty turn before the hand-off.
    const std::string busy =
        replaced(replaced(kTokenBucket, "(no-waiter 2200 10 1 semaphore)\n", ""), "(switch 3100 10)\n",
                 "(switch 3100 10)\n(no-waiter 3150 10 7 semaphore)\n");
    CHECK(lint_lines(busy, kRule) == "");
  }
}
