// edge_bins_test.cpp — the edges per bin (edge_bins.hpp) against brute
// force: each stored level counts every time in the bin that floor((t -
// origin) / 2^shift) gives, times before the origin and times that go back
// included; the levels are consecutive, the finest the first sparse enough
// (or the counter's own when that one is), the coarsest the first narrow
// enough; the table reads back by window, and a damaged or foreign one is
// refused or passed over.
#include "recorder/store/edge_bins.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "recorder/store/derived_tables.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

// Floor division by 2^shift, by division (not by the shift the code uses).
std::int64_t floor_bin(TimeNs t, TimeNs origin, int shift) {
  const std::int64_t b = std::int64_t{1} << shift;
  const std::int64_t d = t - origin;
  return d >= 0 ? d / b : -((-d + b - 1) / b);
}

std::vector<EdgeBin> brute_force(const std::vector<TimeNs>& times, TimeNs origin, int shift) {
  std::map<std::int64_t, std::int64_t> bins;
  for (const TimeNs t : times) ++bins[floor_bin(t, origin, shift)];
  std::vector<EdgeBin> out;
  for (const auto& [b, n] : bins) out.push_back(EdgeBin{b, n});
  return out;
}

std::int64_t bin_range(const std::vector<EdgeBin>& bins) { return bins.back().bin - bins.front().bin + 1; }

// Every property of the levels chosen for `times`, checked by brute force.
void check_levels(const std::vector<TimeNs>& times) {
  EdgeBinCounter counter;
  for (const TimeNs t : times) counter.add(t);
  const EdgeBins out = counter.finish();
  CHECK(out.edges == times.size());
  if (times.empty()) {
    CHECK(out.levels.empty());
    return;
  }
  const TimeNs origin = times.front();
  CHECK(out.origin == origin);
  // The counter's finest shift is the least that keeps each side under the
  // limit.
  const int counted = counter.finest_shift();
  const auto fits = [&](int shift) {
    for (const TimeNs t : times) {
      const std::int64_t b = floor_bin(t, origin, shift);
      if (b >= std::int64_t(kEdgeBinsFinestLimit) || b < -std::int64_t(kEdgeBinsFinestLimit)) return false;
    }
    return true;
  };
  CHECK(fits(counted));
  if (counted > 0) CHECK_FALSE(fits(counted - 1));
  if (out.levels.empty()) {
    // None sparse enough, up to the last shift.
    CHECK(brute_force(times, origin, 62).size() * kEdgesPerStoredBin > times.size());
    return;
  }
  const int finest = out.levels.front().shift;
  CHECK(finest >= counted);
  for (std::size_t k = 0; k < out.levels.size(); ++k) {
    const EdgeBinLevel& level = out.levels[k];
    INFO("shift " << level.shift);
    CHECK(level.shift == finest + static_cast<int>(k));
    CHECK(level.bins == brute_force(times, origin, level.shift));
    if (k + 1 < out.levels.size()) CHECK(bin_range(level.bins) > kEdgeBinsCoarsestSpan);
  }
  CHECK(out.levels.front().bins.size() * kEdgesPerStoredBin <= times.size());
  if (finest > counted) CHECK(brute_force(times, origin, finest - 1).size() * kEdgesPerStoredBin > times.size());
  const EdgeBinLevel& coarsest = out.levels.back();
  CHECK((bin_range(coarsest.bins) <= kEdgeBinsCoarsestSpan || coarsest.shift == 62));
}

}  // namespace

TEST_CASE("Edge bins count every edge in its power-of-two bin at each level stored") {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 80; ++trial) {
    const TimeNs origin = std::uniform_int_distribution<TimeNs>(0, 1'000'000)(rng);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, trial % 4 == 0 ? 200 : 30'000)(rng);
    // Steps: a few ns (dense), spread over a span of up to a few seconds,
    // or hours apart (the counter doubles its bins often).
    const TimeNs step = trial % 3 == 0 ? 3 : trial % 3 == 1 ? 50'000 : 10'000'000'000;
    std::vector<TimeNs> times;
    TimeNs t = origin;
    for (std::size_t i = 0; i < n; ++i) {
      // Now and then back, before the origin too; now and then a burst.
      const int shape = static_cast<int>(rng() % 20);
      if (shape == 0)
        t = std::max<TimeNs>(0, t - static_cast<TimeNs>(rng() % static_cast<std::uint64_t>(step * 40)));
      else if (shape > 3)
        t += static_cast<TimeNs>(rng() % static_cast<std::uint64_t>(step));
      times.push_back(std::min(t, kMaxTime));
    }
    INFO("trial " << trial << ": " << n << " edges, steps up to " << step << " ns");
    check_levels(times);
  }
}

TEST_CASE("Edge bins at the limits: none, too few to store, and times from 0 to kMaxTime") {
  check_levels({});
  // 63 edges can never have one bin per 64 edges; 64 at one time have.
  check_levels(std::vector<TimeNs>(63, 5));
  {
    EdgeBinCounter few;
    for (int i = 0; i < 63; ++i) few.add(5);
    CHECK(few.finish().levels.empty());
    EdgeBinCounter enough;
    for (int i = 0; i < 64; ++i) enough.add(5);
    const EdgeBins bins = enough.finish();
    REQUIRE(bins.levels.size() == 1);
    CHECK(bins.levels[0].shift == 0);
    CHECK(bins.levels[0].bins == std::vector<EdgeBin>{{0, 64}});
  }
  // The whole range of times, from the middle: bins far on both sides.
  std::vector<TimeNs> times;
  for (int i = 0; i < 5'000; ++i) times.push_back(kMaxTime / 2);
  times.push_back(0);
  times.push_back(kMaxTime);
  for (int i = 0; i < 5'000; ++i) times.push_back(static_cast<TimeNs>(i) * (kMaxTime / 5'000));
  check_levels(times);
}

TEST_CASE("The stored edges per bin read back by window, and a damaged or foreign table is refused or passed over") {
  TempDir dir;
  auto db = SqliteDatabase::create_for_bulk_load(dir.file("e.db"));
  REQUIRE(db.ok());
  SqliteDatabase& d = db.value();
  REQUIRE(d.exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value)").ok());
  {
    auto none = EdgeBinReader::open(d);
    REQUIRE(none.ok());
    CHECK_FALSE(none.value().has_value());  // an older Skein's database
  }
  EdgeBins bins;
  bins.origin = 1'000;
  bins.edges = 200;
  bins.levels = {EdgeBinLevel{2, {{-3, 1}, {0, 5}, {7, 2}, {9, 1}}}, EdgeBinLevel{3, {{-2, 1}, {0, 5}, {3, 2}, {4, 1}}}};
  REQUIRE(d.exec("BEGIN").ok());
  REQUIRE(write_edge_bins(d, bins).ok());
  REQUIRE(d.exec("COMMIT").ok());
  auto opened = EdgeBinReader::open(d);
  REQUIRE(opened.ok());
  REQUIRE(opened.value().has_value());
  const EdgeBinReader& reader = *opened.value();
  CHECK(reader.origin() == 1'000);
  CHECK(reader.finest() == 2);
  CHECK(reader.coarsest() == 3);
  // The coarsest level whose 2^shift ns is at most a pixel.
  CHECK_FALSE(reader.shift_for(3.9).has_value());
  CHECK(reader.shift_for(4) == 2);
  CHECK(reader.shift_for(7.9) == 2);
  CHECK(reader.shift_for(8) == 3);
  CHECK(reader.shift_for(1e12) == 3);
  CHECK(reader.bin_of(999, 2) == -1);
  CHECK(reader.bin_of(996, 2) == -1);
  CHECK(reader.bin_of(995, 2) == -2);
  CHECK(reader.bin_of(1'031, 3) == 3);
  CHECK(reader.bin_start(-3, 2) == 988);
  {
    auto all = reader.read(2, 0, kMaxTime);
    REQUIRE(all.ok());
    CHECK(all.value() == bins.levels[0].bins);
    // [1,000, 1,031]: bins 0 to 7 at shift 2.
    auto some = reader.read(2, 1'000, 1'031);
    REQUIRE(some.ok());
    CHECK(some.value() == std::vector<EdgeBin>{{0, 5}, {7, 2}});
    auto coarse = reader.read(3, 985, 1'000);
    REQUIRE(coarse.ok());
    CHECK(coarse.value() == std::vector<EdgeBin>{{-2, 1}, {0, 5}});
    auto unstored = reader.read(4, 0, kMaxTime);
    REQUIRE(unstored.ok());
    CHECK(unstored.value().empty());
  }
  REQUIRE(d.exec("UPDATE edge_bins SET count = 0 WHERE shift = 2 AND bin = 7").ok());
  {
    auto bad = reader.read(2, 0, kMaxTime);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().to_string().find("damaged Skein database: edge_bins row (2, 7): count 0") != std::string::npos);
  }
  REQUIRE(d.exec("UPDATE edge_bins SET count = 'x' WHERE shift = 2 AND bin = 7").ok());
  CHECK_FALSE(reader.read(2, 0, kMaxTime).ok());
  REQUIRE(d.exec("UPDATE meta SET value = 63 WHERE key = 'edge_bins_coarsest'").ok());
  {
    auto bad = EdgeBinReader::open(d);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().to_string().find("damaged Skein database: edge_bins' origin 1000 or levels 2 to 63") !=
          std::string::npos);
  }
  REQUIRE(d.exec("DELETE FROM meta WHERE key = 'edge_bins_coarsest'").ok());
  CHECK_FALSE(EdgeBinReader::open(d).ok());

  // No level stored (few edges): a reader that says so, and no rows.
  REQUIRE(d.exec("BEGIN").ok());
  REQUIRE(write_edge_bins(d, EdgeBins{.origin = 7, .edges = 3, .levels = {}}).ok());
  REQUIRE(d.exec("COMMIT").ok());
  {
    auto few = EdgeBinReader::open(d);
    REQUIRE(few.ok());
    REQUIRE(few.value().has_value());
    CHECK(few.value()->empty());
    CHECK_FALSE(few.value()->shift_for(1e15).has_value());
    auto rows = d.query_int("SELECT count(*) FROM edge_bins");
    REQUIRE(rows.ok());
    CHECK(rows.value() == 0);
  }

  REQUIRE(d.exec("DROP TABLE edge_bins").ok());
  REQUIRE(d.exec("CREATE TABLE edge_bins(shift, bin, count, mine)").ok());
  auto foreign = EdgeBinReader::open(d);
  REQUIRE(foreign.ok());
  CHECK_FALSE(foreign.value().has_value());
}
