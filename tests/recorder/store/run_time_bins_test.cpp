// run_time_bins_test.cpp — the exact run-time histogram (run_time_bins.hpp)
// against brute force, nanosecond by nanosecond; its table written and read
// back; and a damaged or foreign table refused or passed over.
#include "recorder/store/run_time_bins.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "recorder/store/derived_tables.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

TEST_CASE("RunTimeHistogram gives each bin the nanoseconds of every activation in it") {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    const TimeNs origin = std::uniform_int_distribution<TimeNs>(0, 50)(rng);
    const TimeNs bin_ns = std::uniform_int_distribution<TimeNs>(1, 17)(rng);
    const std::size_t bins = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    RunTimeHistogram h(origin, bin_ns, bins);
    std::vector<std::int64_t> want(bins, 0);
    for (int k = std::uniform_int_distribution<int>(0, 12)(rng); k > 0; --k) {
      const TimeNs s = std::uniform_int_distribution<TimeNs>(0, 800)(rng);
      const TimeNs e = s + std::uniform_int_distribution<TimeNs>(-3, 400)(rng);
      h.add(s, e);
      for (TimeNs t = s; t < e; ++t)  // the ns [t, t + 1)
        if (t >= origin && t < origin + static_cast<TimeNs>(bins) * bin_ns)
          ++want[static_cast<std::size_t>((t - origin) / bin_ns)];
    }
    INFO("origin " << origin << " bin " << bin_ns << " bins " << bins);
    CHECK(h.finish() == want);
  }
}

TEST_CASE("activity_binning cuts the trace into at most 65,536 whole-ns bins that cover it") {
  for (const auto& [first, end] : std::vector<std::pair<TimeNs, TimeNs>>{{0, 0},
                                                                         {5, 3},
                                                                         {0, 1},
                                                                         {10, 65'546},
                                                                         {0, 65'537},
                                                                         {7, 1'000'000'007},
                                                                         {0, kMaxTime},
                                                                         {-5, kMaxTime + 9}}) {
    const ActivityBinning b = activity_binning(first, end);
    INFO(first << " to " << end);
    CHECK(b.first == std::clamp<TimeNs>(first, 0, kMaxTime));
    if (b.end <= b.first) {
      CHECK(b.bins == 0);
      continue;
    }
    CHECK(b.bins <= kActivityMaxBins);
    CHECK(static_cast<TimeNs>(b.bins) * b.bin_ns >= b.end - b.first);
    CHECK(static_cast<TimeNs>(b.bins - 1) * b.bin_ns < b.end - b.first);
    CHECK(b.bin_ns == (b.end - b.first + 65'535) / 65'536);
  }
}

namespace {

struct Db {
  TempDir dir;
  std::optional<SqliteDatabase> db;
  Db() {
    auto d = SqliteDatabase::create_for_bulk_load(dir.file("a.db"));
    REQUIRE(d.ok());
    db.emplace(std::move(d).value());
    REQUIRE(db->exec("CREATE TABLE meta(key TEXT PRIMARY KEY, value)").ok());
  }
};

}  // namespace

TEST_CASE("The stored run time per bin reads back as written, the empty bins as 0") {
  Db d;
  const ActivityBinning b = activity_binning(100, 100 + 1'000'003);
  std::vector<std::int64_t> run(b.bins, 0);
  run[0] = 3;
  run[7] = b.bin_ns;
  run[b.bins - 1] = 1;
  REQUIRE(d.db->exec("BEGIN").ok());
  REQUIRE(write_activity_bins(*d.db, b, run).ok());
  REQUIRE(d.db->exec("COMMIT").ok());
  auto rows = d.db->query_int("SELECT count(*) FROM activity_bins");
  REQUIRE(rows.ok());
  CHECK(rows.value() == 3);
  auto read = read_activity_bins(*d.db, 100, 100 + 1'000'003, 1);
  REQUIRE(read.ok());
  REQUIRE(read.value().has_value());
  CHECK(read.value()->run_ns == run);
  CHECK(read.value()->binning.bin_ns == b.bin_ns);

  SECTION("another trace's times: a different bin width, passed over") {
    auto other = read_activity_bins(*d.db, 100, 100 + 9'000'003, 1);
    REQUIRE(other.ok());
    CHECK_FALSE(other.value().has_value());
  }
  SECTION("a run time past its bin on every row, refused") {
    REQUIRE(d.db->exec("UPDATE activity_bins SET run_ns = run_ns + 1 WHERE bin = 7").ok());
    auto bad = read_activity_bins(*d.db, 100, 100 + 1'000'003, 1);
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().to_string().find("damaged Skein database: activity_bins row 7: run time") !=
          std::string::npos);
    // On two rows, two bins' worth is possible.
    auto two = read_activity_bins(*d.db, 100, 100 + 1'000'003, 2);
    CHECK(two.ok());
  }
  SECTION("a bin past the last, or of the wrong type, refused") {
    REQUIRE(
        d.db->exec("INSERT INTO activity_bins VALUES (" + std::to_string(b.bins) + ", 1)").ok());
    CHECK_FALSE(read_activity_bins(*d.db, 100, 100 + 1'000'003, 1).ok());
  }
  SECTION("a negative run time, refused") {
    REQUIRE(d.db->exec("UPDATE activity_bins SET run_ns = -1 WHERE bin = 0").ok());
    CHECK_FALSE(read_activity_bins(*d.db, 100, 100 + 1'000'003, 1).ok());
  }
  SECTION("a table of that name not ours, passed over") {
    REQUIRE(d.db->exec("DROP TABLE activity_bins").ok());
    REQUIRE(d.db->exec("CREATE TABLE activity_bins(bin, run_ns, mine)").ok());
    auto foreign = read_activity_bins(*d.db, 100, 100 + 1'000'003, 1);
    REQUIRE(foreign.ok());
    CHECK_FALSE(foreign.value().has_value());
  }
}

TEST_CASE("The heat map's cells: cut as the heat map cuts them, stored and read back, a damaged one refused") {
  // 3.2 ms holds 1 ms fewer than five times and 100 µs thirty-two times:
  // columns of 100 µs, 50 cells of 2 µs each, 32 columns.
  const ActivityBinning b = subsecond_binning(1'000, 1'000 + 3'200'000);
  CHECK(subsecond_unit(3'200'000) == 100'000);
  CHECK(b.first == 1'000);
  CHECK(b.bin_ns == 2'000);
  CHECK(b.bins == 32u * 50u);
  // A span of exactly five units takes that unit; a longer than 20,000
  // seconds one, the least power of ten seconds that gives at most 20,000
  // columns.
  CHECK(subsecond_unit(5'000'000) == 1'000'000);
  CHECK(subsecond_unit(4'999'999) == 100'000);
  CHECK(subsecond_unit(20'000 * kSubsecondSecond) == kSubsecondSecond);
  CHECK(subsecond_unit(20'000 * kSubsecondSecond + 1) == 10 * kSubsecondSecond);
  CHECK(subsecond_unit(0) == kSubsecondMinUnit);
  CHECK(subsecond_binning(7, 7).bins == 0);

  Db d;
  std::vector<std::int64_t> run(b.bins, 0);
  run[0] = 5;
  run[b.bins - 1] = b.bin_ns;
  REQUIRE(d.db->exec("BEGIN").ok());
  REQUIRE(write_subsecond_bins(*d.db, b, run).ok());
  REQUIRE(d.db->exec("COMMIT").ok());
  auto read = read_subsecond_bins(*d.db, 1'000, 1'000 + 3'200'000, 1);
  REQUIRE(read.ok());
  REQUIRE(read.value().has_value());
  CHECK(read.value()->run_ns == run);
  // The whole trace's bins are another table, absent here.
  auto activity = read_activity_bins(*d.db, 1'000, 1'000 + 3'200'000, 1);
  REQUIRE(activity.ok());
  CHECK_FALSE(activity.value().has_value());
  REQUIRE(d.db->exec("UPDATE subsecond_bins SET run_ns = run_ns + 1 WHERE bin = " + std::to_string(b.bins - 1)).ok());
  auto bad = read_subsecond_bins(*d.db, 1'000, 1'000 + 3'200'000, 1);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().to_string().find("damaged Skein database: subsecond_bins row " + std::to_string(b.bins - 1) +
                                     ": run time") != std::string::npos);
}
