// lint_mutation_test.cpp — recall of `missing-notification` by mutation
// (mutation_recall.hpp) on complete traces made here: generated ones
// (cooperative_trace.hpp, several seeds) and a hand-written one. Each
// trace is first checked complete (no finding: precision), then at least
// 200 removals of a causal record each must be reported at the reacting
// thread in >= 99% of cases. The rate is printed.
#include <catch2/catch.hpp>
#include <cstdio>

#include "tests/viewer/cooperative_trace.hpp"
#include "tests/viewer/lint_test_support.hpp"
#include "tests/viewer/mutation_recall.hpp"

using namespace skein;

namespace {

constexpr std::uint64_t kSeed = 20141018;
constexpr std::size_t kRemovals = 200;

TraceEventList events_of(const std::string& trace) {
  test::TempDir dir;
  const std::string db = dir.file("t.db");
  const auto imported = test::import_text(trace, db);
  INFO(imported.error.to_string());
  REQUIRE(imported.ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto events = load_trace_events(store.value().database());
  REQUIRE(events.ok());
  return std::move(events).value();
}

}  // namespace

TEST_CASE("mutation: generated cooperative traces are complete, and removals are reported") {
  for (const std::uint64_t seed : {1u, 2u, 3u}) {
    const std::string trace = test::CooperativeTrace(seed).generate(400);
    INFO("seed " << seed);
    const TraceEventList list = events_of(trace);
    LintOptions options;
    options.rules = {LintRuleId::missing_notification};
    const LintReport clean = lint_events(list.events(), options);
    CHECK(test::finding_lines(clean.findings) == "");

    const test::RecallResult r = test::mutation_recall(list.events(), kRemovals, kSeed + seed);
    WARN("missing-notification recall, generated trace seed " << seed << " (" << list.events().size()
                                                              << " records): " << r.reported << " of "
                                                              << r.removals << " removals reported ("
                                                              << 100.0 * r.rate() << "%)");
    for (const auto& m : r.misses) INFO("missed: " << m);
    CHECK(r.removals >= kRemovals);
    CHECK(r.rate() >= 0.99);
  }
}

TEST_CASE("mutation: each causal record of a hand-written trace is missed when removed") {
  // Both kinds of cause: resolves read by callbacks (in the loop and in a
  // fiber), a resolve a fiber waits on, and a notify hand-over.
  const std::string trace =
      "(skein-trace 1)\n"
      "(spawn 100 1 0 fiber)\n"
      "(spawn 200 2 0 fiber)\n"
      "(spawn 300 3 0 sleep)\n"
      "(spawn 400 4 0 bind)\n"
      "(wait 500 4 3)\n"
      "(switch 600 -1)\n"
      "(switch 700 1)\n"
      "(spawn 800 5 1 wait)\n"
      "(wait 900 1 5)\n"
      "(switch 1000 -1)\n"
      "(switch 1100 2)\n"
      "(resolve 1200 5 2 ok)\n"      // 1 may run again
      "(label 1300 2 \"take\")\n"
      "(switch 1400 -1)\n"
      "(idle 1500)\n"
      "(notify 1600 -1 3 timer)\n"
      "(resolve 1700 3 -1 ok)\n"     // 4's callback runs
      "(read 1800 4 3)\n"
      "(resolve 1900 4 4 ok)\n"
      "(switch 2000 -1)\n"
      "(switch 2100 1)\n"
      "(read 2200 1 5)\n"
      "(notify 2300 1 2 mailbox)\n"  // 2 may run again
      "(resolve 2400 1 1 ok)\n"
      "(switch 2500 -1)\n"
      "(switch 2600 2)\n"
      "(resolve 2700 2 2 ok)\n"
      "(end 2800)\n";
  const TraceEventList list = events_of(trace);
  LintOptions options;
  options.rules = {LintRuleId::missing_notification};
  CHECK(test::finding_lines(lint_events(list.events(), options).findings) == "");
  const test::RecallResult r = test::mutation_recall(list.events(), 100, kSeed);
  // The resolve of 5 (fiber 1's switch back), of 3 (4's callback) and the
  // notify of 2 (its switch back); nobody reacts to 4's resolve.
  CHECK(r.candidates == 3);
  CHECK(r.removals == r.candidates);
  CHECK(r.reported == r.removals);
  for (const auto& m : r.misses) FAIL_CHECK("missed: " << m);
}
