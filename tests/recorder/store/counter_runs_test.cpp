// counter_runs_test.cpp — the counters table's rows gathered in sorted
// runs of bounded size (counter_runs.hpp): every record in exactly one run,
// each run sorted by (name, time, value, event), no run past its bound.
#include <catch2/catch.hpp>

#include <string>
#include <tuple>
#include <vector>

#include "recorder/store/counter_runs.hpp"

using namespace skein;

namespace {

std::string row_text(const CounterRun& run, const CounterRow& r) {
  return std::string(run.names.get(r.name)) + "@" + std::to_string(r.time) + "=" + std::to_string(r.value) + "#" +
         std::to_string(r.event);
}

}  // namespace

TEST_CASE("bounded memory: counter rows come in sorted runs of bounded size, each record in one") {
  constexpr std::size_t kMax = 4096;  // bytes: about a hundred rows a run
  CounterRuns runs(kMax);
  std::vector<std::unique_ptr<CounterRun>> taken;
  const char* const names[] = {"tx", "rx", "queue"};
  constexpr int kRecords = 1000;
  for (int i = 1; i <= kRecords; ++i) {
    // Time goes back once (record 500), and values repeat at one time.
    const TimeNs time = i == 500 ? 3 : 10 * (i / 2);
    runs.add(names[i % 3], time, (i * 7) % 5, i);
    if (i % 64 == 0)
      for (auto& run : runs.take_full()) taken.push_back(std::move(run));
  }
  for (auto& run : runs.finish()) taken.push_back(std::move(run));
  REQUIRE(taken.size() > 5);

  std::vector<bool> seen(kRecords + 1, false);
  std::size_t rows = 0;
  for (const auto& run : taken) {
    CHECK(run->rows.size() * sizeof(CounterRow) <= kMax);
    for (std::size_t k = 0; k < run->rows.size(); ++k) {
      const CounterRow& r = run->rows[k];
      REQUIRE(r.event >= 1);
      REQUIRE(r.event <= kRecords);
      CHECK_FALSE(seen[static_cast<std::size_t>(r.event)]);
      seen[static_cast<std::size_t>(r.event)] = true;
      CHECK(run->names.get(r.name) == names[r.event % 3]);
      if (k == 0) continue;
      const CounterRow& p = run->rows[k - 1];
      const auto key = [&](const CounterRow& x) {
        return std::make_tuple(std::string(run->names.get(x.name)), x.time, x.value, x.event);
      };
      INFO(row_text(*run, p) << " before " << row_text(*run, r));
      CHECK(key(p) < key(r));
    }
    rows += run->rows.size();
  }
  CHECK(rows == static_cast<std::size_t>(kRecords));
}

TEST_CASE("bounded memory: a trace whose counters fit in one run gets one run, sorted") {
  CounterRuns runs;
  runs.add("b", 5, 1, 1);
  runs.add("a", 6, 2, 2);
  runs.add("b", 4, 3, 3);
  CHECK(runs.take_full().empty());
  auto last = runs.finish();
  REQUIRE(last.size() == 1);
  std::vector<std::string> rows;
  for (const CounterRow& r : last[0]->rows) rows.push_back(row_text(*last[0], r));
  CHECK(rows == std::vector<std::string>{"a@6=2#2", "b@4=3#3", "b@5=1#1"});
}
