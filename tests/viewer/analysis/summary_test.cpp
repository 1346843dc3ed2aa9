// summary_test.cpp — `skein summary`'s numbers (viewer/analysis/summary.hpp) on
// three threads whose figures are worked out by hand:
//
//   thread  label  kind  site  created  resolved      lifetime  run
//   1       a      bind  1     0 ms     1 ms ok       1 ms      0.1 ms
//   2       a      bind  1     0.5 ms   3.5 ms fail   3 ms      0.3 ms
//   3       -      task  -     1 ms     pending       4 ms      0.6 ms   (the trace ends at 5 ms)
//
// Group a: 40% of the 1 ms of run time; lifetimes 1, 3 ms: avg 2, stddev 1;
// runs 0.1, 0.3 ms: avg 0.2, stddev 0.1. All: lifetimes avg 8/3 = 2.667,
// stddev sqrt(((1-8/3)^2 + (3-8/3)^2 + (4-8/3)^2) / 3) = 1.247; runs avg
// 1/3 = 0.333, stddev sqrt(((0.1-1/3)^2 + (0.3-1/3)^2 + (0.6-1/3)^2) / 3) =
// 0.205.
#include <catch2/catch.hpp>

#include "viewer/analysis/summary.hpp"

using namespace skein;

namespace {

std::vector<StoredThread> threads() {
  StoredThread t1;
  t1.id = 1;
  t1.label = "a";
  t1.kind = "bind";
  t1.site = 1;
  t1.created = 0;
  t1.resolved = 1'000'000;
  t1.outcome = "ok";
  t1.run_time = 100'000;
  StoredThread t2 = t1;
  t2.id = 2;
  t2.created = 500'000;
  t2.resolved = 3'500'000;
  t2.outcome = "fail";
  t2.run_time = 300'000;
  StoredThread t3;
  t3.id = 3;
  t3.kind = "task";
  t3.created = 1'000'000;
  t3.run_time = 600'000;
  return {t1, t2, t3};
}

const std::vector<StoredSite> kSites = {{1, "a.cpp", 3, "f"}};
constexpr TimeNs kEnd = 5'000'000;

const char* const kHeader =
    "% time    total ms  threads failures   life min   life avg   life max life stddev   run min    run avg"
    "    run max run stddev  ";
const char* const kRule =
    "------ ----------- -------- -------- ---------- ---------- ---------- ---------- ---------- ---------- "
    "---------- ----------  ----------------\n";
const char* const kNote =
    "(times in ms; total: the group's run time; lifetime: created to resolved, or to the trace's end when pending)\n";

}  // namespace

TEST_CASE("summary: groups by label with hand-computed figures") {
  const Summary s = summarize(threads(), kSites, kEnd, SummaryGrouping::label);
  REQUIRE(s.rows.size() == 2);
  const SummaryRow& a = s.rows[1];
  CHECK(a.name == "a");
  CHECK(a.percent_time == Approx(40.0));
  CHECK(a.run_time == 400'000);
  CHECK(a.threads == 2);
  CHECK(a.failures == 1);
  CHECK(a.lifetime.min == 1e6);
  CHECK(a.lifetime.avg == Approx(2e6));
  CHECK(a.lifetime.max == 3e6);
  CHECK(a.lifetime.stddev == Approx(1e6));
  CHECK(a.run.avg == Approx(2e5));
  CHECK(a.run.stddev == Approx(1e5));
  CHECK(s.rows[0].name == "(no label)");
  CHECK(s.rows[0].lifetime.avg == Approx(4e6));  // pending: until the trace's end
  CHECK(s.rows[0].lifetime.stddev == 0);
  CHECK(s.total.lifetime.stddev == Approx(1247.219e3).epsilon(1e-6));
  CHECK(s.total.run.stddev == Approx(205480.47).epsilon(1e-6));

  CHECK(
      render_summary(s, SummaryGrouping::label) ==
      std::string(kHeader) + "label\n" + kRule +
          " 60.00       0.600        1        0      4.000      4.000      4.000      0.000      0.600      0.600"
          "      0.600      0.000  (no label)\n"
          " 40.00       0.400        2        1      1.000      2.000      3.000      1.000      0.100      0.200"
          "      0.300      0.100  a\n" +
          kRule +
          "100.00       1.000        3        1      1.000      2.667      4.000      1.247      0.100      0.333"
          "      0.600      0.205  total\n" +
          kNote);
}

TEST_CASE("summary: groups by kind and by site") {
  const Summary kind = summarize(threads(), kSites, kEnd, SummaryGrouping::kind);
  REQUIRE(kind.rows.size() == 2);
  CHECK(kind.rows[0].name == "task");
  CHECK(kind.rows[1].name == "bind");
  const Summary site = summarize(threads(), kSites, kEnd, SummaryGrouping::site);
  REQUIRE(site.rows.size() == 2);
  CHECK(site.rows[0].name == "(no site)");
  CHECK(site.rows[1].name == "f (a.cpp:3)");
  CHECK(site.rows[1].threads == 2);
}

TEST_CASE("summary: --sort orders rows, numbers largest first, names alphabetically") {
  const auto names = [](const Summary& s) {
    std::vector<std::string> out;
    for (const auto& r : s.rows) out.push_back(r.name);
    return out;
  };
  using V = std::vector<std::string>;
  CHECK(names(summarize(threads(), kSites, kEnd, SummaryGrouping::label, SummaryColumn::threads)) ==
        V{"a", "(no label)"});
  CHECK(names(summarize(threads(), kSites, kEnd, SummaryGrouping::label, SummaryColumn::failures)) ==
        V{"a", "(no label)"});
  CHECK(names(summarize(threads(), kSites, kEnd, SummaryGrouping::label, SummaryColumn::life_max)) ==
        V{"(no label)", "a"});
  CHECK(names(summarize(threads(), kSites, kEnd, SummaryGrouping::label, SummaryColumn::run_stddev)) ==
        V{"a", "(no label)"});
  CHECK(names(summarize(threads(), kSites, kEnd, SummaryGrouping::label, SummaryColumn::name)) ==
        V{"(no label)", "a"});
  CHECK(summary_column_from_name("life-avg") == SummaryColumn::life_avg);
  CHECK(summary_column_from_name("seconds") == SummaryColumn::time);
  CHECK(summary_column_from_name("total") == SummaryColumn::time);
  CHECK_FALSE(summary_column_from_name("bogus"));
  CHECK(summary_grouping_from_name("site") == SummaryGrouping::site);
  CHECK_FALSE(summary_grouping_from_name("thread"));
}

TEST_CASE("summary: --duration lists the threads that lived or ran longer, by creation") {
  const auto longer = threads_longer_than(threads(), kEnd, 2'500'000);
  REQUIRE(longer.size() == 2);
  CHECK(longer[0].id == 2);
  CHECK(longer[1].id == 3);
  CHECK(threads_longer_than(threads(), kEnd, 4'000'000).empty());  // "longer than": strictly
  CHECK(threads_longer_than(threads(), kEnd, 3'999'999).size() == 1);
  CHECK(render_long_threads(longer, kEnd) ==
        "    thread   created (ms)  lifetime (ms)       run (ms)  outcome  kind  label\n"
        "         2          0.500          3.000          0.300  fail     bind  a\n"
        "         3          1.000          4.000          0.600  pending  task  -\n");
  CHECK(render_long_threads({}, kEnd) ==
        "    thread   created (ms)  lifetime (ms)       run (ms)  outcome  kind  label\n(none)\n");
}

TEST_CASE("summary: an empty trace gives a total of zeros") {
  const Summary s = summarize({}, {}, 0, SummaryGrouping::label);
  CHECK(s.rows.empty());
  CHECK(s.total.threads == 0);
  CHECK(s.total.percent_time == 0);
}
