// thread_label_lists_test.cpp — the labels of threads with several, read in
// two sizes (thread_label_lists.hpp): row texts and counts by the walk that
// skips past a thread's further labels, whole lists when asked. The
// expectations are written by hand from the trace, on both sides of
// kRowLabelsShown (3): threads of 2, 3, 4 and 50 labels interleaved with
// others, so a skip lands on the right next thread; and a table damaged
// behind the import's back, read by both.
#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "viewer/timeline/thread_label_lists.hpp"

using namespace skein;

namespace {

// Thread T labelled with N distinct texts "tT-0".."tT-(N-1)", each given
// twice (the second time changes nothing).
std::string labelled(int thread, int n) {
  std::string out = "(spawn 1 " + std::to_string(thread) + " 0 task)\n";
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < n; ++k)
      out += "(label 2 " + std::to_string(thread) + " \"t" + std::to_string(thread) + "-" + std::to_string(k) + "\")\n";
  return out;
}

std::string import(test::TempDir& dir) {
  std::string trace = "(skein-trace 1)\n";
  for (const auto& [thread, n] : std::vector<std::pair<int, int>>{{1, 2}, {2, 1}, {3, 4}, {4, 3}, {5, 50}, {6, 2}})
    trace += labelled(thread, n);
  trace += "(end 3)\n";
  const std::string db = dir.file("l.db");
  REQUIRE(test::import_text(trace, db).ok());
  return db;
}

}  // namespace

TEST_CASE("row labels: the first three and the count, whatever the number, and no row for one label") {
  test::TempDir dir;
  const std::string db = import(dir);
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto rows = read_row_labels(store.value().database());
  REQUIRE(rows.ok());
  const std::vector<std::pair<ThreadId, std::string>> expected = {
      {1, "t1-0 · t1-1"},
      {3, "t3-0 · t3-1 · t3-2 · +1 more"},
      {4, "t4-0 · t4-1 · t4-2"},
      {5, "t5-0 · t5-1 · t5-2 · +47 more"},
      {6, "t6-0 · t6-1"},
  };
  CHECK(rows.value().row_texts == expected);
  CHECK(rows.value().counts == std::unordered_map<ThreadId, std::uint32_t>{{1, 2}, {3, 4}, {4, 3}, {5, 50}, {6, 2}});

  // Whole: every thread with several, each list in order; none for the
  // thread of one label.
  auto lists = read_thread_label_lists(store.value().database());
  REQUIRE(lists.ok());
  std::map<ThreadId, std::size_t> sizes;
  for (const auto& [t, l] : lists.value()) sizes[t] = l.size();
  CHECK(sizes == std::map<ThreadId, std::size_t>{{1, 2}, {3, 4}, {4, 3}, {5, 50}, {6, 2}});
  const std::vector<std::string>& five = lists.value().at(5);
  CHECK(five.front() == "t5-0");
  CHECK(five[17] == "t5-17");
  CHECK(five.back() == "t5-49");
  CHECK(lists.value().at(4) == std::vector<std::string>{"t4-0", "t4-1", "t4-2"});
}

TEST_CASE("row labels: a damaged table is read as it is, and a bad thread id is refused") {
  test::TempDir dir;
  const std::string db = import(dir);
  SECTION("a gap in the positions counts to the last") {
    REQUIRE(test::edit_database(db, "UPDATE thread_labels SET position = 9 WHERE thread = 3 AND position = 3").empty());
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto rows = read_row_labels(store.value().database());
    REQUIRE(rows.ok());
    CHECK(rows.value().counts.at(3) == 10);
    CHECK(rows.value().row_texts[1] == std::pair<ThreadId, std::string>{3, "t3-0 · t3-1 · t3-2 · +7 more"});
  }
  SECTION("a thread left with one row has no list") {
    REQUIRE(test::edit_database(db, "DELETE FROM thread_labels WHERE thread = 1 AND position = 1").empty());
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto rows = read_row_labels(store.value().database());
    REQUIRE(rows.ok());
    CHECK_FALSE(rows.value().counts.contains(1));
    CHECK(rows.value().counts.size() == 4);
    auto lists = read_thread_label_lists(store.value().database());
    REQUIRE(lists.ok());
    CHECK_FALSE(lists.value().contains(1));
    CHECK(lists.value().size() == 4);
  }
  SECTION("a thread id out of range") {
    REQUIRE(test::edit_database(db, "UPDATE thread_labels SET thread = 'x' WHERE thread = 4").empty());
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto rows = read_row_labels(store.value().database());
    REQUIRE_FALSE(rows.ok());
    const std::string message = db + ": damaged Skein database: thread_labels row (thread 'x', position 0): "
                                     "thread is 'x' (thread ids are -9223372036854775807 to 9223372036854775807)";
    CHECK(rows.error().to_string() == message);
    auto lists = read_thread_label_lists(store.value().database());
    REQUIRE_FALSE(lists.ok());
    CHECK(lists.error().to_string() == message);
  }
}
