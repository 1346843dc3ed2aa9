// rtree_bulk_load_test.cpp — the packed R*Tree (rtree_bulk_load.hpp) is a
// valid SQLite R*Tree (rtreecheck) and answers window queries exactly as a
// scan would, for sizes around the node capacity (51 cells) and its square,
// and for times large enough that floats round them.
#include <catch2/catch.hpp>
#include <random>
#include <set>

#include "recorder/store/rtree_bulk_load.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

namespace {

// Ids: 0 sparse (every third), 1 dense from 1 (the rowid table's rows are
// numbered by SQLite then), 2 dense runs between gaps, from a negative id.
std::int64_t entry_id(std::size_t i, int ids) {
  const auto n = static_cast<std::int64_t>(i);
  if (ids == 0) return n * 3 + 1;
  if (ids == 1) return n + 1;
  return n - 40 + (n / 100) * 7;
}

std::vector<RtreeEntry> random_entries(std::size_t n, double scale, std::uint64_t seed, int ids = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> start(0, scale);
  std::exponential_distribution<double> length(100.0 / scale);
  std::vector<RtreeEntry> out;
  for (std::size_t i = 0; i < n; ++i) {
    const double lo = std::floor(start(rng));
    out.push_back(RtreeEntry{entry_id(i, ids), lo, lo + std::floor(length(rng))});
  }
  return out;
}

std::string build(const std::string& path, const std::vector<RtreeEntry>& entries) {
  auto db = SqliteDatabase::create_for_bulk_load(path);
  REQUIRE(db.ok());
  REQUIRE(db.value().exec("CREATE VIRTUAL TABLE spans USING rtree(id, lo, hi)").ok());
  const Status s = bulk_load_rtree(db.value(), "spans", entries);
  return s.ok() ? "" : s.error().to_string();
}

}  // namespace

TEST_CASE("rtree bulk load: valid trees that answer window queries like a scan") {
  const auto [n, scale] = GENERATE(table<std::size_t, double>({{0, 1e6},
                                                                {1, 1e6},
                                                                {51, 1e6},
                                                                {52, 1e6},
                                                                {2601, 1e6},
                                                                {2602, 1e6},
                                                                {6000, 1e6},
                                                                {3000, 1e15}}));
  const int ids = GENERATE(0, 1, 2);
  INFO(n << " entries over " << scale << " ns, ids " << ids);
  TempDir dir;
  const std::string path = dir.file("r.db");
  const auto entries = random_entries(n, scale, n + 7, ids);
  REQUIRE(build(path, entries).empty());
  CHECK(query(path, "SELECT rtreecheck('spans')") == "ok\n");
  CHECK(query(path, "SELECT count(*) FROM spans") == std::to_string(n) + "\n");

  auto db = SqliteDatabase::open_untrusted(path);
  REQUIRE(db.ok());
  auto q = db.value().prepare("SELECT id FROM spans WHERE hi >= ?1 AND lo <= ?2");
  REQUIRE(q.ok());
  std::mt19937_64 rng(n);
  std::uniform_real_distribution<double> at(0, scale);
  for (int window = 0; window < 40; ++window) {
    const double a = std::floor(at(rng));
    const double b = a + std::floor(at(rng) / 50);
    std::set<std::int64_t> expected;
    for (const RtreeEntry& e : entries)
      if (e.high >= a && e.low <= b) expected.insert(e.id);
    std::set<std::int64_t> found;  // the R*Tree's answer, then the exact check
    q.value().bind(1, a);
    q.value().bind(2, b);
    std::set<std::int64_t> candidates;
    for (;;) {
      auto row = q.value().step();
      REQUIRE(row.ok());
      if (!row.value()) break;
      candidates.insert(q.value().int64(0));
    }
    q.value().reset();
    for (const RtreeEntry& e : entries)
      if (candidates.count(e.id) != 0 && e.high >= a && e.low <= b) found.insert(e.id);
    INFO("window " << a << " to " << b);
    CHECK(found == expected);  // nothing missed despite float rounding
  }
}

TEST_CASE("rtree bulk load: an id given twice is refused") {
  TempDir dir;
  CHECK_THAT(build(dir.file("d.db"), {{1, 0, 1}, {1, 2, 3}}), Catch::Contains("id 1 given twice"));
}

TEST_CASE("rtree bulk load: times floats cannot hold are rounded outwards, so exact windows still match") {
  // Odd integers above 2^24 have no float: to nearest they round down half
  // the time (losing a maximum) and up half the time (losing a minimum).
  std::vector<RtreeEntry> entries;
  for (std::int64_t i = 0; i < 200; ++i) {
    const double t = static_cast<double>((std::int64_t{1} << 24) + 2 * i + 1);
    entries.push_back(RtreeEntry{i + 1, t, t});
  }
  TempDir dir;
  const std::string path = dir.file("f.db");
  REQUIRE(build(path, entries).empty());
  CHECK(query(path, "SELECT rtreecheck('spans')") == "ok\n");
  for (const RtreeEntry& e : entries) {
    const std::string t = std::to_string(static_cast<std::int64_t>(e.low));
    INFO("entry " << e.id << " at " << t);
    CHECK_THAT(query(path, "SELECT id FROM spans WHERE hi >= " + t + " AND lo <= " + t),
               Catch::Contains(std::to_string(e.id) + "\n"));
  }
}

TEST_CASE("rtree bulk load: rtree_node_bytes is the node size SQLite chooses for each page size") {
  for (int page : {512, 1024, 4096, 8192, 16384, 65536}) {
    INFO("page size " << page);
    TempDir dir;
    auto db = SqliteDatabase::create_for_bulk_load(dir.file("p.db"), page);
    REQUIRE(db.ok());
    REQUIRE(db.value().exec("CREATE VIRTUAL TABLE spans USING rtree(id, lo, hi)").ok());
    auto size = db.value().query_int("SELECT length(data) FROM spans_node WHERE nodeno = 1");
    REQUIRE(size.ok());
    CHECK(static_cast<std::size_t>(size.value()) == rtree_node_bytes(static_cast<std::size_t>(page)));
  }
}

TEST_CASE("rtree bulk load: a tree packed for other nodes is refused") {
  TempDir dir;
  auto db = SqliteDatabase::create_for_bulk_load(dir.file("m.db"), 16384);
  REQUIRE(db.ok());
  REQUIRE(db.value().exec("CREATE VIRTUAL TABLE spans USING rtree(id, lo, hi)").ok());
  auto packed = pack_rtree({{1, 0, 1}}, 448);
  REQUIRE(packed.ok());
  const Status s = write_rtree(db.value(), "spans", packed.value());
  CHECK_THAT(s.error().to_string(), Catch::Contains("has nodes of 820 bytes, not the 448"));
}
