// store_queries_test.cpp — the queries SCHEMA.md documents for the viewer
// (threads, records and activations in a time window; a thread's edges and
// activations) return exactly what a full scan returns, on a generated
// trace of realistic shape.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
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
    CHECK(query(db, with("SELECT a.* FROM event_blocks b JOIN activations a ON a.id BETWEEN b.first_activation "
                         "AND b.last_activation WHERE b.end >= :a AND b.start <= :b AND a.start BETWEEN :a AND :b "
                         "UNION SELECT * FROM (SELECT * FROM activations WHERE id <= (SELECT "
                         "max(last_activation) FROM event_blocks WHERE start <= :a) AND start <= :a ORDER BY id "
                         "DESC LIMIT 1) WHERE end > :a ORDER BY 1",
                         a, b)) ==
          query(db, with("SELECT * FROM activations WHERE start BETWEEN :a AND :b OR (start < :a AND end > :a) "
                         "ORDER BY id",
                         a, b)));
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
    CHECK(query(db, "SELECT a.* FROM threads t JOIN activations a ON a.id BETWEEN t.first_activation AND "
                    "t.last_activation WHERE t.id = " + t + " AND a.thread = " + t) ==
          query(db, "SELECT * FROM activations WHERE thread = " + t + " ORDER BY id"));
    CHECK(query(db, "SELECT count(*) FROM threads t JOIN activations a ON a.id BETWEEN t.first_activation AND "
                    "t.last_activation WHERE t.id = " + t + " AND a.thread = " + t) != "0\n");
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
