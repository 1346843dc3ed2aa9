// store_queries_test.cpp — the queries SCHEMA.md documents for the viewer
// (threads, records and activations in a time window; a thread's edges and
// activations) return exactly what a full scan returns, on a generated
// trace of realistic shape; and the store's reader of the activations
// (activations_table.hpp) reads, forwards and back, what the tests' own
// decoder reads (packed_activations.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "recorder/store/activations_table.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

namespace {

std::string generated_trace(std::uint64_t records) {
  samples::SyntheticOptions options;
  options.records = records;
  return samples::synthetic_trace_text(options);
}

std::string with(std::string sql, std::int64_t a, std::int64_t b) {
  for (std::size_t at; (at = sql.find(":a")) != std::string::npos;) sql.replace(at, 2, std::to_string(a));
  for (std::size_t at; (at = sql.find(":b")) != std::string::npos;) sql.replace(at, 2, std::to_string(b));
  return sql;
}

// SCHEMA.md's block queries, word for word.
const std::string kThreadBlocks =
    "SELECT b.id, b.first_activation, b.activations FROM threads t JOIN activation_blocks b "
    "ON b.id BETWEEN (t.first_activation - 1) / 1024 + 1 AND (t.last_activation - 1) / 1024 + 1 "
    "WHERE t.id = ";
const std::string kWindowBlocks =
    "WITH first(id) AS (SELECT coalesce("
    "(SELECT max(min(first_activation) - 1, 1) FROM event_blocks "
    "WHERE end >= :a AND start <= :b AND first_activation > 0), "
    "(SELECT max(last_activation) FROM event_blocks WHERE start <= :b))), "
    "last(id) AS (SELECT max(last_activation) FROM event_blocks WHERE start <= :b) "
    "SELECT id, first_activation, activations FROM activation_blocks "
    "WHERE id BETWEEN (SELECT (id - 1) / 1024 + 1 FROM first) AND (SELECT (id - 1) / 1024 + 1 FROM last) "
    "ORDER BY id";

// The activations of the blocks `blocks_sql` selects (id, first_activation,
// activations), decoded by the test's decoder into TEMP table `picked`, then
// those `where` keeps, as query() prints activations rows.
std::string in_blocks(const std::string& db, const std::string& blocks_sql, const std::string& where) {
  auto opened = SqliteDatabase::open_for_update(db);
  REQUIRE(opened.ok());
  sqlite3* h = opened.value().handle();
  test::packed_exec(h, "CREATE TEMP TABLE picked(id INTEGER PRIMARY KEY, event, thread, start, end)");
  auto blocks = opened.value().prepare(blocks_sql);
  REQUIRE(blocks.ok());
  auto insert = opened.value().prepare("INSERT INTO picked VALUES (?1, ?2, ?3, ?4, ?5)");
  REQUIRE(insert.ok());
  std::int64_t previous = 0;
  const Status read = blocks.value().for_each_row([&](SqliteStatement& row) -> Status {
    // Consecutive blocks, each once.
    CHECK((previous == 0 || row.int64(0) == previous + 1));
    previous = row.int64(0);
    for (const test::PackedActivation& a : test::unpack_activations(std::string(row.blob(2)), row.int64(1))) {
      insert.value().bind(1, a.id);
      insert.value().bind(2, a.event);
      insert.value().bind(3, a.thread);
      insert.value().bind(4, a.start);
      insert.value().bind(5, a.end);
      if (Status s = insert.value().run(); !s.ok()) return s;
    }
    return {};
  });
  REQUIRE(read.ok());
  std::string out;
  const Status listed = opened.value().for_each_row("SELECT * FROM picked WHERE " + where + " ORDER BY id",
                                                    [&](SqliteStatement& row) {
                                                      for (int c = 0; c < 5; ++c)
                                                        out += (c > 0 ? "|" : "") + std::string(row.text(c));
                                                      out += '\n';
                                                    });
  REQUIRE(listed.ok());
  return out;
}

}  // namespace

TEST_CASE("documented queries: the indexes answer as a full scan does") {
  TempDir dir;
  const std::string db = dir.file("q.db");
  const auto r = test::import_text(generated_trace(30'000), db);
  REQUIRE(r.ok());
  const std::int64_t end = std::stoll(query(db, "SELECT value FROM meta WHERE key = 'end_time'"));
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int64_t> at(0, end);
  for (int i = 0; i < 12; ++i) {
    const std::int64_t a = at(rng);
    const std::int64_t b = a + at(rng) / 40;
    INFO("window " << a << " to " << b);
    CHECK(query(db, with("SELECT t.id FROM thread_spans s JOIN threads t ON t.id = s.id "
                         "WHERE s.end >= :a AND s.start <= :b AND t.created <= :b "
                         "AND coalesce(t.resolved, (SELECT value FROM meta WHERE key = 'end_time')) >= :a "
                         "ORDER BY t.id",
                         a, b)) ==
          query(db, with("SELECT id FROM threads WHERE created <= :b AND "
                         "coalesce(resolved, (SELECT value FROM meta WHERE key = 'end_time')) >= :a ORDER BY id",
                         a, b)));
    // The blocks that overlap a window hold every record in it.
    CHECK(query(db, with("SELECT e.* FROM event_blocks b JOIN events e ON e.id BETWEEN b.first_event AND "
                         "b.last_event WHERE b.end >= :a AND b.start <= :b AND e.time BETWEEN :a AND :b "
                         "ORDER BY e.id",
                         a, b)) ==
          query(db, with("SELECT * FROM events WHERE time BETWEEN :a AND :b ORDER BY id", a, b)));
    // The activation blocks SCHEMA.md's query gives hold every activation
    // that meets the window, as the test's own decoder reads them.
    CHECK(in_blocks(db, with(kWindowBlocks, a, b), "start <= " + std::to_string(b) + " AND end >= " +
                                                       std::to_string(a)) ==
          query(db, with("SELECT * FROM activations WHERE start <= :b AND end >= :a ORDER BY id", a, b)));
  }
  for (const char* id : {"1", "57", "1234", "4000"}) {
    INFO("thread " << id);
    const std::string t = id;
    // A thread's records lie in its first_event..last_event range.
    const std::string edges = query(db, "SELECT e.* FROM threads t JOIN events e ON e.id BETWEEN t.first_event AND "
                                        "t.last_event WHERE t.id = " + t + " AND " + t + " IN (e.actor, e.target) "
                                        "AND e.head IN (1, 4, 5, 6, 7, 8)");
    CHECK(edges == query(db, "SELECT * FROM events WHERE " + t + " IN (actor, target) AND head IN (1, 4, 5, 6, 7, 8) "
                             "ORDER BY id"));
    CHECK_FALSE(edges.empty());
    // A thread's activations lie in the blocks of its
    // first_activation..last_activation range.
    const std::string own = in_blocks(db, kThreadBlocks + t + " ORDER BY b.id", "thread = " + t);
    CHECK(own == query(db, "SELECT * FROM activations WHERE thread = " + t + " ORDER BY id"));
    CHECK_FALSE(own.empty());
    CHECK(query(db, "SELECT run_time FROM threads WHERE id = " + t) ==
          query(db, "SELECT coalesce(sum(end - start), 0) FROM activations WHERE thread = " + t));
  }
}

TEST_CASE("thread_labels: a generated trace's threads with several labels, as their records give them") {
  TempDir dir;
  const std::string db = dir.file("l.db");
  REQUIRE(test::import_text(generated_trace(200'000), db).ok());
  const std::string stored = query(db, "SELECT thread, label FROM thread_labels ORDER BY thread, position");
  // The generator labels some threads more than once with other texts:
  // the comparison below has rows to compare.
  CHECK(std::count(stored.begin(), stored.end(), '\n') >= 20);
  CHECK(stored == query(db, test::kThreadLabelsFromRecords));
  // SCHEMA.md's example runs, and its first row has the most labels.
  const std::string most = query(db, "SELECT count(*) AS labels FROM thread_labels GROUP BY thread "
                                     "ORDER BY labels DESC LIMIT 1");
  const std::string example = query(db, "SELECT thread, count(*) AS labels, group_concat(label, ' · ') FROM "
                                        "thread_labels GROUP BY thread ORDER BY labels DESC LIMIT 10");
  CHECK(example.find("ERROR") == std::string::npos);
  CHECK(example.substr(example.find('|') + 1).starts_with(most.substr(0, most.size() - 1) + "|"));
}

TEST_CASE("activations: the reader reads any id range, forwards and back, as the tests' decoder does") {
  TempDir dir;
  const std::string db = dir.file("a.db");
  REQUIRE(test::import_text(generated_trace(30'000), db).ok());
  const std::int64_t count = std::stoll(query(db, "SELECT count(*) FROM activations"));
  // Several blocks, the last one partial: the ranges cross their edges.
  REQUIRE(count > 3 * 1024);
  REQUIRE(count % 1024 != 0);
  REQUIRE(query(db, "SELECT value FROM meta WHERE key = 'activations'") == std::to_string(count) + "\n");
  auto opened = SqliteDatabase::open_untrusted(db);
  REQUIRE(opened.ok());
  auto reader = ActivationReader::open(opened.value());
  REQUIRE(reader.ok());
  CHECK(reader.value().count() == count);
  const auto print = [](const StoredActivation& a) {
    return std::to_string(a.id) + "|" + std::to_string(a.event) + "|" + std::to_string(a.thread) + "|" +
           std::to_string(a.start) + "|" + std::to_string(a.end) + "\n";
  };
  const std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
      {1, 1}, {1024, 1025}, {1000, 2100}, {-5, 3}, {count - 2, count + 10}, {1, count}, {2048, 2048}, {7, 6}};
  for (const auto& [first, last] : ranges) {
    INFO("activations " << first << " to " << last);
    std::string got;
    REQUIRE(reader.value().for_each(first, last, [&](const StoredActivation& a) { got += print(a); }).ok());
    CHECK(got == query(db, "SELECT * FROM activations WHERE id BETWEEN " + std::to_string(first) + " AND " +
                               std::to_string(last) + " ORDER BY id"));
  }
  for (const std::int64_t from : {std::int64_t{1}, std::int64_t{1025}, count, count + 5}) {
    INFO("backwards from " << from);
    std::string got;
    std::int64_t taken = 0;
    REQUIRE(reader.value().backward(from, [&](const StoredActivation& a) {
      got += print(a);
      return ++taken < 1500;  // stops the walk after 1,500
    }).ok());
    CHECK(got == query(db, "SELECT * FROM activations WHERE id <= " + std::to_string(from) +
                               " ORDER BY id DESC LIMIT 1500"));
  }
}
