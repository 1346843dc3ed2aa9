// bulk_insert_test.cpp — RowidBulkInsert (bulk_insert.hpp) stores every row
// under its own key whatever the keys: dense runs that SQLite numbers,
// gaps, negative keys, keys below rows already in the table, and the
// largest rowid, after which SQLite numbers at random. The oracle is the
// table read back by rowid, against the rows as given.
#include "recorder/store/bulk_insert.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <random>

#include "recorder/store/sqlite_database.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::TempDir;

namespace {

struct Row {
  std::int64_t key;
  std::int64_t value;
};

// Inserts `rows` into t(k INTEGER PRIMARY KEY, v) after `before`; returns
// the error, or "" and the table read back in `stored`.
std::string insert(const std::vector<Row>& before, const std::vector<Row>& rows,
                   std::map<std::int64_t, std::int64_t>& stored) {
  TempDir dir;
  auto db = SqliteDatabase::create_for_bulk_load(dir.file("b.db"));
  REQUIRE(db.ok());
  REQUIRE(db.value().exec("CREATE TABLE t(k INTEGER PRIMARY KEY, v INTEGER NOT NULL)").ok());
  for (const Row& r : before)
    REQUIRE(db.value()
                .exec("INSERT INTO t VALUES (" + std::to_string(r.key) + ", " +
                      std::to_string(r.value) + ")")
                .ok());
  auto bulk = RowidBulkInsert::prepare(db.value(), "t", "k", "(v)", 1);
  REQUIRE(bulk.ok());
  const Status s = bulk.value().insert(
      std::span<const Row>(rows), [](const Row& r) { return r.key; },
      [](SqliteStatement& q, int p, const Row& r) { q.bind(p, r.value); });
  if (!s.ok()) return s.error().to_string();
  auto read = db.value().prepare("SELECT k, v FROM t ORDER BY k");
  REQUIRE(read.ok());
  stored.clear();
  for (;;) {
    auto step = read.value().step();
    REQUIRE(step.ok());
    if (!step.value()) break;
    stored.emplace(read.value().int64(0), read.value().int64(1));
  }
  return "";
}

std::vector<Row> rows_of(const std::vector<std::int64_t>& keys, std::int64_t salt) {
  std::vector<Row> rows;
  // Wrapping arithmetic: keys reach the largest rowid.
  for (const std::int64_t k : keys)
    rows.push_back(Row{k, static_cast<std::int64_t>(static_cast<std::uint64_t>(k) * 7 +
                                                    static_cast<std::uint64_t>(salt))});
  return rows;
}

void check_stored(const std::vector<Row>& before, const std::vector<Row>& rows) {
  std::map<std::int64_t, std::int64_t> expected;
  for (const Row& r : before) expected[r.key] = r.value;
  for (const Row& r : rows) expected[r.key] = r.value;
  std::map<std::int64_t, std::int64_t> stored;
  REQUIRE(insert(before, rows, stored).empty());
  CHECK(stored == expected);
}

}  // namespace

TEST_CASE("rowid bulk insert: every row under its own key, numbered by SQLite or not") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  struct Case {
    const char* name;
    std::vector<std::int64_t> before;
    std::vector<std::int64_t> keys;
  };
  std::vector<std::int64_t> dense;
  for (std::int64_t k = 1; k <= 100; ++k) dense.push_back(k);
  std::vector<std::int64_t> from_zero{0};
  for (std::int64_t k = 1; k <= 70; ++k) from_zero.push_back(k);
  const std::vector<Case> cases = {
      {"nothing", {}, {}},
      {"dense from 1, more than a statement's rows", {}, dense},
      {"0 then dense", {}, from_zero},
      {"negative keys, then gaps", {}, {-9, -8, -7, -3, 0, 1, 2, 3, 10, 11, 12, 40, 41}},
      {"below the rows already there", {1, 2, 100}, {3, 4, 5, 101, 102, 200}},
      {"after a negative largest key", {-20, -10}, {-9, -8, -7, -5}},
      {"one row", {}, {1}},
      {"at the largest rowid", {}, {kMax - 3, kMax - 2, kMax - 1, kMax}},
      {"beside the largest rowid", {kMax}, {1, 2, 3, 4}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    check_stored(rows_of(c.before, 1), rows_of(c.keys, 2));
  }
}

TEST_CASE("rowid bulk insert: random sorted keys, mostly dense") {
  std::mt19937_64 rng(17);
  for (int round = 0; round < 20; ++round) {
    std::vector<std::int64_t> keys;
    std::int64_t k = static_cast<std::int64_t>(rng() % 5) - 2;
    for (int i = 0; i < 300; ++i) {
      keys.push_back(k);
      k += (rng() % 8 == 0) ? 1 + static_cast<std::int64_t>(rng() % 50) : 1;
    }
    INFO("round " << round);
    check_stored({}, rows_of(keys, round));
  }
}

TEST_CASE("rowid bulk insert: a key given twice is refused, numbered or not") {
  std::map<std::int64_t, std::int64_t> stored;
  CHECK_THAT(insert({}, rows_of({1, 2, 3, 3}, 0), stored), Catch::Contains("UNIQUE"));
  CHECK_THAT(insert({}, rows_of({1, 2, 3, 2}, 0), stored), Catch::Contains("UNIQUE"));
  CHECK_THAT(insert(rows_of({5}, 0), rows_of({5, 6}, 0), stored), Catch::Contains("UNIQUE"));
}
