// causal_path_test.cpp — the Why? walk (causal_path.hpp) on small traces
// written by hand, with the exact path expected: reads, waits, notifies,
// spawns, merge groups, roots, and what a record went on to cause.
#include <catch2/catch.hpp>
#include <sstream>

#include "viewer/analysis/causal_path.hpp"

using namespace skein;

namespace {

// A trace as events; ids count from 1 in the order given.
class Trace {
 public:
  Trace& add(TimeNs time, RecordHead head, ThreadId actor, ThreadId target = kNoThread) {
    TraceEvent e;
    e.id = static_cast<std::int64_t>(list_.events().size()) + 1;
    e.has_time = true;
    e.time = time;
    e.head = head;
    e.actor = actor;
    e.target = target;
    list_.push_back(e);
    return *this;
  }
  [[nodiscard]] const std::vector<TraceEvent>& events() const { return list_.events(); }

 private:
  TraceEventList list_;
};

// "kind cause@event->effect@event +latency" per step, one line each.
std::string describe(const std::vector<CausalStep>& steps) {
  std::ostringstream out;
  for (const CausalStep& s : steps)
    out << cause_kind_name(s.kind) << ' ' << s.cause << '@' << s.cause_event << "->" << s.effect << '@'
        << s.effect_event << " +" << s.latency() << '\n';
  return out.str();
}

// main (0) spawns a timer thread 1 and a bind 2 waiting on it; the loop's
// timer wakes 1, which resolves itself; 2 reads it and resolves.
Trace timer_then_bind() {
  Trace t;
  t.add(0, RecordHead::spawn, 0, 1)        // 1
      .add(0, RecordHead::spawn, 0, 2)     // 2
      .add(1, RecordHead::wait, 2, 1)      // 3
      .add(5, RecordHead::switch_, -1)     // 4
      .add(10, RecordHead::notify, -1, 1)  // 5  the timer fires
      .add(12, RecordHead::resolve, 1, 1)  // 6
      .add(12, RecordHead::read, 2, 1)     // 7
      .add(13, RecordHead::resolve, 2, 2); // 8
  return t;
}

}  // namespace

TEST_CASE("why walks from a resolve back through the read to the timer") {
  const Trace t = timer_then_bind();
  CHECK(describe(why(t.events(), 8)) ==
        "read 1@6->2@8 +1\n"
        "notify -1@5->1@6 +2\n");
}

TEST_CASE("why starts from the actor of the record asked about") {
  const Trace t = timer_then_bind();
  // Record 6 is thread 1 resolving itself: woken by the timer.
  CHECK(describe(why(t.events(), 6)) == "notify -1@5->1@6 +2\n");
  // The spawns of main have no earlier cause: main is a root.
  CHECK(why(t.events(), 1).empty());
  // Unknown ids and records without a thread give nothing.
  CHECK(why(t.events(), 99).empty());
  CHECK(why(t.events(), 4).empty());  // switch to -1
}

TEST_CASE("why follows a wait to the resolve that came after it") {
  Trace t;
  t.add(0, RecordHead::spawn, 0, 1)        // 1
      .add(0, RecordHead::spawn, 0, 2)     // 2
      .add(1, RecordHead::wait, 2, 1)      // 3  2 waits on 1
      .add(4, RecordHead::notify, -1, 1)   // 4  io for 1
      .add(6, RecordHead::resolve, 1, 1)   // 5  1 resolved (by itself)
      .add(9, RecordHead::counter, 2, 7);  // 6  2 acts, with no read recorded
  CHECK(describe(why(t.events(), 6)) ==
        "wait 1@5->2@6 +3\n"
        "notify -1@4->1@5 +2\n");
}

TEST_CASE("why prefers the latest cause and goes up through spawns") {
  Trace t;
  t.add(0, RecordHead::notify, -1, 0)      // 1  main started by the loop
      .add(2, RecordHead::spawn, 0, 3)     // 2  main spawns 3
      .add(3, RecordHead::notify, 5, 3)    // 3  an earlier notify to 3 from 5...
      .add(4, RecordHead::notify, 0, 3)    // 4  ...and a later one from main
      .add(8, RecordHead::resolve, 3, 3);  // 5
  CHECK(describe(why(t.events(), 5)) ==
        "notify 0@4->3@5 +4\n"
        "notify -1@1->0@4 +4\n");
  // Without the notifies, the spawn is the cause.
  Trace s;
  s.add(0, RecordHead::notify, -1, 0).add(2, RecordHead::spawn, 0, 3).add(8, RecordHead::resolve, 3, 3);
  CHECK(describe(why(s.events(), 3)) ==
        "spawn 0@2->3@3 +6\n"
        "notify -1@1->0@2 +2\n");
}

TEST_CASE("why treats a merge group as one thread") {
  Trace t;
  t.add(0, RecordHead::spawn, 0, 3)        // 1
      .add(1, RecordHead::notify, 7, 3)    // 2  7 notifies 3 before 3 merges into 4
      .add(2, RecordHead::merge, 3, 4)     // 3
      .add(5, RecordHead::resolve, 4, 4);  // 4  4 acts: 3's notify explains it
  const auto path = why(t.events(), 4);
  REQUIRE(!path.empty());
  CHECK(describe({path.front()}) == "notify 7@2->4@4 +4\n");
}

TEST_CASE("why stops at a record met twice and at its step limit") {
  Trace t;  // 1 and 2 notify each other: a cycle of causes in time order
  t.add(0, RecordHead::notify, 2, 1).add(1, RecordHead::notify, 1, 2).add(2, RecordHead::notify, 2, 1);
  const auto path = why(t.events(), 3);
  CHECK(describe(path) ==
        "notify 1@2->2@3 +1\n"
        "notify 2@1->1@2 +1\n");  // 2@1 has no earlier cause for 2
  CHECK(why(timer_then_bind().events(), 8, 1).size() == 1);
}

TEST_CASE("caused finds the readers of what a record resolved") {
  const Trace t = timer_then_bind();
  // Thread 1's resolve (6) lets 2 go on (its read, 7).
  CHECK(describe(caused(t.events(), 6)) == "read 1@6->2@7 +0\n");
  // From the start of main: both spawns reach their child's first act (for
  // 2, the switch that hands it control; main's notify reaches the same
  // record and is not counted twice).
  Trace s;
  s.add(0, RecordHead::spawn, 0, 1)         // 1
      .add(0, RecordHead::spawn, 0, 2)      // 2
      .add(1, RecordHead::notify, 0, 2)     // 3  main notifies 2
      .add(2, RecordHead::switch_, 2)       // 4
      .add(3, RecordHead::resolve, 2, 2)    // 5  2 acts
      .add(4, RecordHead::read, 1, 2)       // 6  1 reads 2
      .add(5, RecordHead::resolve, 1, 1);   // 7
  CHECK(describe(caused(s.events(), 1)) ==
        "spawn 0@1->1@6 +4\n"
        "spawn 0@2->2@4 +2\n");
  // From 2's resolve: 1 reads it.
  CHECK(describe(caused(s.events(), 5)) == "read 2@5->1@6 +1\n");
  CHECK(caused(s.events(), 1, 1).size() == 1);
}

TEST_CASE("a question about a thread starts at its last record by then") {
  const Trace t = timer_then_bind();
  CHECK(last_record_of(t.events(), 2, 12) == 7);   // the read, not 1's resolve at the same time
  CHECK(last_record_of(t.events(), 2, 11) == 3);   // the wait
  CHECK(last_record_of(t.events(), 2, 100) == 8);  // its own resolve
  CHECK(last_record_of(t.events(), 1, 100) == 6);
  CHECK_FALSE(last_record_of(t.events(), 2, 0));   // it had done nothing yet (main spawned it)
  CHECK_FALSE(last_record_of(t.events(), -1, 100));  // the scheduler is not a thread
  CHECK(describe(why(t.events(), *last_record_of(t.events(), 2, 100))) ==
        "read 1@6->2@8 +1\nnotify -1@5->1@6 +2\n");
}
