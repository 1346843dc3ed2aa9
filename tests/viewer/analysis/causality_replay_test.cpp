// causality_replay_test.cpp — the replay's verdicts, cause by cause, on
// FORMAT.md's example and on a trace that uses every kind of explanation:
// which records transfer control, to whom, and what explains each.
#include <catch2/catch.hpp>

#include "tests/viewer/lint_test_support.hpp"
#include "viewer/analysis/causality_replay.hpp"

using namespace skein;

namespace {

// "EVENT FROM->TO CAUSE [CAUSE_EVENT]" for every verdict.
std::string verdicts_of(const std::string& trace) {
  test::TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(trace, db).ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto events = load_trace_events(store.value().database());
  REQUIRE(events.ok());
  bool has_notify = false;
  bool has_wait = false;
  for (const auto& e : events.value().events()) {
    has_notify = has_notify || e.head == RecordHead::notify;
    has_wait = has_wait || e.head == RecordHead::wait;
  }
  CausalityReplay replay(CausalityReplayOptions{has_notify, has_wait});
  std::vector<ControlTransfer> verdicts;
  for (const auto& e : events.value().events()) replay.step(e, verdicts);
  replay.finish(verdicts);
  std::string out;
  for (const auto& v : verdicts) {
    const auto id = [](ThreadId t) { return t == kNoThread ? std::string("none") : std::to_string(t); };
    out += std::to_string(v.event) + " " + id(v.from) + "->" + id(v.to) + " " +
           std::string(control_cause_name(v.cause)) +
           (v.cause_event != 0 ? " " + std::to_string(v.cause_event) : std::string()) + "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("causality replay: FORMAT.md's example") {
  CHECK(verdicts_of("(skein-trace 1)\n"
                    "(spawn 1200 1 0 task 0)\n"   // 1
                    "(label 1250 1 \"poll\")\n"  // 2
                    "(spawn 1300 2 0 bind)\n"     // 3
                    "(wait 1320 2 1)\n"           // 4: registration, no transfer
                    "(switch 1400 -1)\n"          // 5
                    "(idle 1410)\n"               // 6
                    "(notify 52000 -1 1 io)\n"    // 7
                    "(switch 52010 1)\n"          // 8
                    "(resolve 52100 1 1 ok)\n"    // 9
                    "(read 52120 2 1)\n"          // 10
                    "(resolve 52200 2 2 ok)\n"    // 11
                    "(end 60000)\n") ==
        "1 none->0 first-actor\n"
        "5 0->-1 scheduler\n"
        "8 -1->1 switch-first-run\n"
        "10 1->2 reads-resolved 9\n");
}

TEST_CASE("causality replay: every way a transfer is explained") {
  CHECK(verdicts_of("(skein-trace 1)\n"
                    "(spawn 100 1 0 fiber)\n"       // 1
                    "(spawn 200 2 0 async)\n"       // 2
                    "(resolve 300 2 2 ok)\n"        // 3: starts at once
                    "(spawn 400 3 0 wait)\n"        // 4: 0 returns
                    "(switch 500 -1)\n"             // 5
                    "(switch 600 1)\n"              // 6: first run
                    "(wait 700 1 3)\n"              // 7
                    "(switch 800 -1)\n"             // 8
                    "(notify 900 -1 3 io)\n"        // 9
                    "(resolve 1000 3 -1 ok)\n"      // 10
                    "(switch 1100 1)\n"             // 11: its input resolved
                    "(notify 1200 1 4 mailbox)\n"   // 12
                    "(spawn 1300 5 4 task)\n"       // 13: 4 was notified
                    "(switch 1400 -1)\n"            // 14
                    "(switch 1500 4)\n"             // 15: decided by its first record
                    "(read 1600 4 3)\n"             // 16: reads a resolved thread
                    "(end 1700)\n") ==
        "1 none->0 first-actor\n"
        "3 0->2 created-just-before 2\n"
        "4 2->0 returns\n"
        "5 0->-1 scheduler\n"
        "6 -1->1 switch-first-run\n"
        "8 1->-1 scheduler\n"
        "11 -1->1 switch-input-resolved 10\n"
        "13 1->4 notified 12\n"
        "14 4->-1 scheduler\n"
        "15 -1->4 switch-input-resolved 10\n");
}

TEST_CASE("causality replay: a poller's switch is its yield's, its hand-off the notify's") {
  // Fiber 1 polls with pauses; 3 notifies it (external) and its pause
  // resolves: the switch back cites the pause's resolve, and its resolve of
  // 2 (a thread it did not create), after an empty yield turn, cites the
  // notify. The verdicts of hand-offs carry the hand-off's record.
  CHECK(verdicts_of("(skein-trace 1)\n"
                    "(spawn 100 1 0 fiber)\n"         // 1
                    "(spawn 200 2 0 task)\n"          // 2
                    "(spawn 300 3 0 fiber)\n"         // 3
                    "(switch 400 -1)\n"               // 4
                    "(switch 500 1)\n"                // 5: first run
                    "(spawn 600 4 1 pause)\n"         // 6
                    "(wait 700 1 4)\n"                // 7
                    "(switch 800 -1)\n"               // 8
                    "(notify 900 -1 4 yield)\n"       // 9
                    "(resolve 1000 4 -1 ok)\n"        // 10
                    "(switch 1100 1)\n"               // 11: its yield; an empty turn
                    "(spawn 1200 5 1 pause)\n"        // 12
                    "(wait 1300 1 5)\n"               // 13
                    "(switch 1400 3)\n"               // 14: first run
                    "(notify 1500 3 1 external)\n"    // 15
                    "(switch 1600 -1)\n"              // 16
                    "(notify 1700 -1 5 yield)\n"      // 17
                    "(resolve 1800 5 -1 ok)\n"        // 18
                    "(switch 1900 1)\n"               // 19: its yield, not the notify
                    "(resolve 2000 2 1 ok)\n"         // 20: the notify's
                    "(end 2100)\n") ==
        "1 none->0 first-actor\n"
        "4 0->-1 scheduler\n"
        "5 -1->1 switch-first-run\n"
        "8 1->-1 scheduler\n"
        "11 -1->1 switch-input-resolved 10\n"
        "14 1->3 switch-first-run\n"
        "16 3->-1 scheduler\n"
        "19 -1->1 switch-input-resolved 18\n"
        "20 -1->1 hand-off-notified 15\n");
}
