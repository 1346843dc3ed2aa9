// lint_mutation_test.cpp — recall of the lints by mutation
// (mutation_oracle.hpp: the oracle comes from the removed record, not from
// the lints) on complete traces made here: generated ones
// (cooperative_trace.hpp, several seeds) and hand-written ones. Each
// trace is first checked complete (no finding: precision), then removals
// of resolves, notifies and merges must be reported where the removal says
// in >= 99% of cases. The rates are printed. The hand-written traces are
// small enough to remove every cause, and their candidates are counted by
// hand: one of each kind, and a poll loop whose `external` notify explains
// what it hands off (viewer/analysis/LINTS.md, "Hand-offs after polling").
#include <catch2/catch.hpp>
#include <cstdio>

#include "tests/viewer/cooperative_trace.hpp"
#include "tests/viewer/lint_test_support.hpp"
#include "tests/viewer/mutation_oracle.hpp"

using namespace skein;

namespace {

constexpr std::uint64_t kSeed = 20141018;
constexpr std::size_t kRemovals = 200;

// Reports of removals, and candidates, per kind: "resolve 4/4 of 4 notify
// 1/1 of 1 merge 2/2 of 2".
std::string summary(const std::vector<test::MutationRecall>& rows) {
  std::string out;
  for (const auto& r : rows) {
    if (!out.empty()) out += " ";
    out += r.kind + " " + std::to_string(r.reported) + "/" + std::to_string(r.removals) + " of " +
           std::to_string(r.candidates);
  }
  return out;
}

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
  // Each trace runs out of causes after a few hundred resolves (its fibers
  // finish); four seeds give at least 600 removed resolves in all.
  std::size_t resolves_removed = 0;
  for (const std::uint64_t seed : {1u, 2u, 3u, 4u}) {
    const std::string trace = test::CooperativeTrace(seed).generate(400);
    INFO("seed " << seed);
    const TraceEventList list = events_of(trace);
    LintOptions options;
    options.rules = {LintRuleId::missing_notification};
    const LintReport clean = lint_events(list.events(), options);
    CHECK(test::finding_lines(clean.findings) == "");

    const auto rows = test::mutation_recall(list.events(), {}, kRemovals, kSeed + seed);
    WARN("recall by mutation, generated trace seed " << seed << " (" << list.events().size()
                                                     << " records): " << summary(rows));
    REQUIRE(rows.size() == 3);
    resolves_removed += rows[0].removals;
    for (const auto& r : rows) {
      INFO(r.kind);
      for (const auto& m : r.misses) INFO("missed: " << m);
      CHECK(static_cast<double>(r.reported) >= 0.99 * static_cast<double>(r.removals));
    }
  }
  CHECK(resolves_removed >= 3 * kRemovals);
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
  // The resolve of 5 (read by fiber 1 when it is switched back) and of 3
  // (read by 4's callback); nobody reads 4, 1 or 2. The notify of 2, its
  // only wake-up before its switch back. No merges.
  CHECK(summary(test::mutation_recall(list.events(), {}, 100, kSeed)) == "resolve 2/2 of 2 notify 1/1 of 1 merge 0/0 of 0");
}

TEST_CASE("mutation: the notify that tells a poller what it found is reported when removed") {
  // A poll loop (blockread --missing-notify --annotate): the loop's turns
  // are binds on pauses, continued by merges (2, then 7, then 9); after two
  // empty turns the backend (5) sets a flag and notifies the poller's
  // current thread, which then resolves B.read (3). Its wake-up is its own
  // yield's; the notify is what explains the resolve.
  const std::string loop =
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
      "(read 2300 2 1)\n"
      "(spawn 2400 6 2 pause)\n"
      "(spawn 2500 7 2 bind)\n"
      "(wait 2600 7 6)\n"
      "(merge 2700 2 7)\n"
      "(switch 3000 -1)\n"
      "(notify 3100 -1 6 yield)\n"
      "(resolve 3200 6 -1 ok)\n"
      "(read 3300 7 6)\n"
      "(spawn 3400 8 7 pause)\n"
      "(spawn 3500 9 7 bind)\n"
      "(wait 3600 9 8)\n"
      "(merge 3700 7 9)\n"
      "(switch 4000 -1)\n"
      "(notify 4100 -1 4 timer)\n"
      "(resolve 4200 4 -1 ok)\n"
      "(read 4300 5 4)\n"
      "(notify 4350 5 9 external)\n"  // the fix
      "(resolve 4400 5 5 ok)\n"
      "(switch 5000 -1)\n"
      "(notify 5100 -1 8 yield)\n"
      "(resolve 5200 8 -1 ok)\n"
      "(read 5300 9 8)\n"
      "(resolve 5400 3 9 ok)\n"
      "(resolve 5500 9 9 ok)\n"
      "(switch 5600 -1)\n"
      "(end 6000)\n";
  // The same poller as a fiber (10) blocked on its pauses: the switch back
  // to it is its pause's, the notify still explains the resolve.
  const std::string fiber =
      "(skein-trace 1)\n"
      "(spawn 1000 10 0 fiber)\n"
      "(spawn 1100 3 0 task)\n"
      "(spawn 1200 4 0 sleep)\n"
      "(spawn 1300 5 0 bind)\n"
      "(wait 1400 5 4)\n"
      "(switch 2000 -1)\n"
      "(switch 2100 10)\n"
      "(spawn 2200 11 10 pause)\n"
      "(wait 2300 10 11)\n"
      "(switch 2400 -1)\n"
      "(notify 2500 -1 11 yield)\n"
      "(resolve 2600 11 -1 ok)\n"
      "(switch 2700 10)\n"
      "(read 2800 10 11)\n"
      "(spawn 2900 12 10 pause)\n"
      "(wait 3000 10 12)\n"
      "(switch 3100 -1)\n"
      "(notify 3200 -1 4 timer)\n"
      "(resolve 3300 4 -1 ok)\n"
      "(read 3400 5 4)\n"
      "(notify 3500 5 10 external)\n"  // the fix
      "(resolve 3600 5 5 ok)\n"
      "(switch 3700 -1)\n"
      "(notify 3800 -1 12 yield)\n"
      "(resolve 3900 12 -1 ok)\n"
      "(switch 4000 10)\n"
      "(read 4100 10 12)\n"
      "(resolve 4200 3 10 ok)\n"
      "(resolve 4300 10 10 ok)\n"
      "(switch 4400 -1)\n"
      "(end 5000)\n";
  struct Case {
    const std::string& trace;
    std::string recall;
  };
  // Every cause is found when removed. Resolves read by another thread:
  // the four pauses' and the sleep's in the loop (1, 6, 4, 8), three in
  // the fiber (11, 4, 12); the last pause's too, where the notify explains
  // the poller's wake-up as well: its read of a pause nobody resolved is
  // reported. The external notify: its removal leaves the resolve of 3
  // with no cause. The loop's two merges: without either, part of the
  // loop has no resolve and is left pending.
  const Case cases[] = {{loop, "resolve 4/4 of 4 notify 1/1 of 1 merge 2/2 of 2"},
                        {fiber, "resolve 3/3 of 3 notify 1/1 of 1 merge 0/0 of 0"}};
  for (const Case& c : cases) {
    const std::string& trace = c.trace;
    INFO(trace);
    const TraceEventList list = events_of(trace);
    LintOptions options;
    options.rules = {LintRuleId::missing_notification};
    CHECK(test::finding_lines(lint_events(list.events(), options).findings) == "");
    CHECK(summary(test::mutation_recall(list.events(), {}, 100, kSeed)) == c.recall);
    // The external notify is one of the causes, and its removal is found
    // at the poller's resolve of thread 3.
    bool notify_removed = false;
    for (const TraceEvent& e : list.events()) {
      if (e.head != RecordHead::notify || e.text != "external") continue;
      std::vector<TraceEvent> mutated;
      for (const TraceEvent& kept : list.events())
        if (kept.id != e.id) mutated.push_back(kept);
      const LintReport report = lint_events(mutated, options);
      REQUIRE(report.findings.size() == 1);
      CHECK(report.findings[0].thread == (&trace == &loop ? 9 : 10));
      CHECK(report.findings[0].suspect == std::optional<ThreadId>(5));
      CHECK(report.findings[0].message.find(" resolved thread 3 with no recorded cause") != std::string::npos);
      notify_removed = true;
    }
    CHECK(notify_removed);
  }
}
