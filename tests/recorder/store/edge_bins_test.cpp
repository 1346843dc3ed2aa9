// edge_bins_test.cpp — the edges per bin (edge_bins.hpp) against brute
// force: every level stored counts each time in the bin floor((t - origin)
// / bucket) gives, times before the origin and times that go back
// included; level 6 is always stored and a finer level only while its bins
// are at most one in eight of the edges; the table reads back as written,
// and a damaged or foreign one is refused or passed over.
#include "recorder/store/edge_bins.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <random>

#include "recorder/store/row_spans.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

std::vector<EdgeBin> brute_force(const std::vector<TimeNs>& times, TimeNs origin, TimeNs bucket) {
  std::map<std::int64_t, std::int64_t> bins;
  for (const TimeNs t : times)
    ++bins[static_cast<std::int64_t>(std::floor(double(t - origin) / double(bucket)))];
  std::vector<EdgeBin> out;
  for (const auto& [b, n] : bins) out.push_back(EdgeBin{b, n});
  return out;
}

}  // namespace

TEST_CASE("edge bins count every edge in its bin at each level stored, coarsest first") {
  std::mt19937_64 rng(8);
  for (int trial = 0; trial < 60; ++trial) {
    const TimeNs origin = std::uniform_int_distribution<TimeNs>(0, 1'000)(rng);
    const TimeNs span = std::uniform_int_distribution<TimeNs>(1, 50'000'000)(rng);
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 20'000)(rng);
    std::vector<TimeNs> times;
    EdgeTimeLog log;
    TimeNs t = origin;
    for (std::size_t i = 0; i < n; ++i) {
      // Mostly forward, clustered or spread; now and then back, before the
      // origin too.
      const int shape = static_cast<int>(rng() % 20);
      if (shape == 0)
        t = std::max<TimeNs>(0, t - static_cast<TimeNs>(rng() % 2'000));
      else
        t += trial % 2 == 0 ? static_cast<TimeNs>(rng() % 3)
                            : static_cast<TimeNs>(rng() % (span / 1'000 + 1));
      times.push_back(t);
      log.add(t);
    }
    INFO("trial " << trial << ": " << n << " edges over " << span << " ns");
    const std::vector<EdgeBinLevel> levels = build_edge_bins(log, origin, span);
    REQUIRE(!levels.empty());
    CHECK(levels.front().level == 6);
    int previous = 7;
    for (const EdgeBinLevel& level : levels) {
      CHECK(level.level == previous - 1);
      previous = level.level;
      CHECK(level.bins == brute_force(times, origin, row_span_bucket(span, level.level)));
      if (level.level < 6) CHECK(level.bins.size() * kEdgeBinsSparseness <= n);
    }
    // The next finer level, not stored, was not sparse enough.
    if (previous > 1) {
      const auto finer = brute_force(times, origin, row_span_bucket(span, previous - 1));
      CHECK(finer.size() * kEdgeBinsSparseness > n);
    }
  }
  CHECK(build_edge_bins(EdgeTimeLog{}, 0, 100).empty());
}

TEST_CASE(
    "The stored edges per bin read back by range, and a damaged or foreign table is refused or "
    "passed over") {
  TempDir dir;
  auto db = SqliteDatabase::create_for_bulk_load(dir.file("e.db"));
  REQUIRE(db.ok());
  SqliteDatabase& d = db.value();
  std::vector<EdgeBinLevel> levels(2);
  levels[0].level = 6;
  levels[0].bins = {{-2, 1}, {0, 5}, {7, 2}};
  levels[1].level = 5;
  levels[1].bins = {{0, 8}};
  REQUIRE(d.exec("BEGIN").ok());
  REQUIRE(write_edge_bins(d, levels).ok());
  REQUIRE(d.exec("COMMIT").ok());
  auto all = read_edge_bins(d, 6, -10, 10);
  REQUIRE(all.ok());
  REQUIRE(all.value().has_value());
  CHECK(*all.value() == levels[0].bins);
  auto some = read_edge_bins(d, 6, 0, 6);
  REQUIRE(some.ok());
  CHECK(*some.value() == std::vector<EdgeBin>{{0, 5}});
  auto absent = read_edge_bins(d, 4, 0, 6);
  REQUIRE(absent.ok());
  CHECK_FALSE(absent.value().has_value());

  REQUIRE(d.exec("UPDATE edge_bins SET count = 0 WHERE level = 6 AND bin = 7").ok());
  auto bad = read_edge_bins(d, 6, 0, 10);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().to_string().find("damaged Skein database: edge_bins row (6, 7): count 0") !=
        std::string::npos);

  REQUIRE(d.exec("DROP TABLE edge_bins").ok());
  REQUIRE(d.exec("CREATE TABLE edge_bins(level, bin, count, mine)").ok());
  auto foreign = read_edge_bins(d, 6, 0, 10);
  REQUIRE(foreign.ok());
  CHECK_FALSE(foreign.value().has_value());
}
