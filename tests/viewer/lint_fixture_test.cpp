// lint_fixture_test.cpp — the lints on the real 2014 MirageOS traces
// (SKEIN_FIXTURES, default ../shared/fixtures/mirage; skipped, exit 77,
// when absent):
//   - precision: no missing-notification finding on log-x86.sexp and
//     log-x86-v0.sexp, which are complete by the rule;
//   - recall, by mutation (mutation_recall.hpp): 300 removals of a causal
//     record per trace, fixed seed, >= 99% reported at the reacting thread
//     (the rate is printed);
//   - what every rule says on the three traces, net.ctf included, exactly
//     (viewer/LINTS.md explains each figure).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "recorder/trace_import.hpp"
#include "tests/recorder/fixture_path.hpp"
#include "tests/support/store_query.hpp"
#include "tests/viewer/lint_test_support.hpp"
#include "tests/viewer/mutation_recall.hpp"

using namespace skein;

namespace {

constexpr std::uint64_t kSeed = 20141018;
constexpr std::size_t kRemovals = 300;

struct Expected {
  const char* file;
  // Findings per rule, in LintRuleId order: missing-notification,
  // unread-failure, pending-at-end, late-notify, blocking-activation,
  // self-wake.
  std::array<std::uint64_t, kLintRuleCount> counts;
  bool complete;  // by the missing-notification rule
};

const Expected kFixtures[] = {
    {"log-x86.sexp", {0, 0, 66, 0, 0, 0}, true},
    {"log-x86-v0.sexp", {0, 0, 290, 0, 0, 0}, true},
    {"net.ctf", {0, 0, 231, 0, 0, 0}, true},
};

}  // namespace

TEST_CASE("lint fixtures: what each rule reports on the three 2014 traces") {
  for (const Expected& e : kFixtures) {
    const std::string path = test::fixture_path(e.file);
    if (path.empty()) return;
    INFO(e.file);
    test::TempDir dir;
    const std::string db = dir.file("f.db");
    ImportOptions import_options;
    import_options.sync = false;
    REQUIRE(import_trace(path, db, import_options).ok());
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto report = lint_store(store.value(), {});
    REQUIRE(report.ok());
    CHECK(report.value().counts == e.counts);
    if (e.complete) {
      for (const LintFinding& f : report.value().findings)
        CHECK(f.rule != LintRuleId::missing_notification);
    }
  }
}

TEST_CASE("lint fixtures: recall of missing-notification by mutation") {
  for (const char* file : {"log-x86.sexp", "log-x86-v0.sexp", "net.ctf"}) {
    const std::string path = test::fixture_path(file);
    if (path.empty()) return;
    INFO(file);
    test::TempDir dir;
    const std::string db = dir.file("f.db");
    ImportOptions import_options;
    import_options.sync = false;
    REQUIRE(import_trace(path, db, import_options).ok());
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto events = load_trace_events(store.value().database());
    REQUIRE(events.ok());
    const test::RecallResult r = test::mutation_recall(events.value().events(), kRemovals, kSeed);
    WARN("missing-notification recall on " << file << ": " << r.reported << " of " << r.removals
                                           << " removals reported (" << 100.0 * r.rate() << "%), from "
                                           << r.candidates << " causal records");
    for (const auto& m : r.misses) INFO("missed: " << m);
    CHECK(r.removals == kRemovals);
    CHECK(r.rate() >= 0.99);
  }
}
