// thread_table_test.cpp — ThreadTable: ids that count up live in the dense
// vector, far ids in the hash map, and an id keeps its state when the dense
// range grows over it.
#include <catch2/catch.hpp>

#include "viewer/analysis/thread_table.hpp"

using namespace skein;

namespace {
struct Slot {
  int value = 0;
};
}  // namespace

TEST_CASE("thread table: dense and far ids keep their state") {
  ThreadTable<Slot> table;
  table.at(-1).value = 1;
  table.at(1'000'000'000).value = 2;  // far: the hash map
  table.at(-7).value = 3;             // not a thread id, still kept
  table.at(5000).value = 4;           // beyond the growth window from empty: the hash map for now
  for (ThreadId id = 0; id < 20000; ++id) table.at(id).value += 10;  // counting up: dense, covers 5000
  CHECK(table.find(-1)->value == 1);
  CHECK(table.find(1'000'000'000)->value == 2);
  CHECK(table.find(-7)->value == 3);
  CHECK(table.find(5000)->value == 14);  // moved into the dense range with its state
  CHECK(table.find(19999)->value == 10);
  CHECK(table.find(123'456'789) == nullptr);
  int seen = 0;
  table.for_each([&](ThreadId id, const Slot& s) {
    if (id == 5000) seen += s.value;
  });
  CHECK(seen == 14);  // an id lives in one place only
}

TEST_CASE("thread table: ids counting up stay dense past the growth limit, ids spaced to double it do not") {
  constexpr auto limit = static_cast<std::size_t>(ThreadTable<Slot>::kDenseLimit);
  SECTION("counting up, as a trace of a hundred million records numbers its threads") {
    ThreadTable<Slot> table;
    const ThreadId last = static_cast<ThreadId>(limit) + 100'000;
    for (ThreadId id = -1; id <= last; ++id) table.at(id).value = static_cast<int>(id % 1000);
    CHECK(table.dense_slots() > static_cast<std::size_t>(last));
    CHECK(table.find(last)->value == static_cast<int>(last % 1000));
    CHECK(table.find(static_cast<ThreadId>(limit))->value == static_cast<int>(limit % 1000));
  }
  SECTION("a few ids, each far enough to double the vector") {
    ThreadTable<Slot> table;
    std::size_t touched = 0;
    ThreadId id = 0;
    // Below the limit, each doubles it (the rule for ids that count up).
    while (true) {
      table.at(id).value = 1;
      ++touched;
      const std::size_t next = 2 * table.dense_slots() + 100;
      if (next + 1 >= limit) break;
      id = static_cast<ThreadId>(next);
    }
    const std::size_t slots = table.dense_slots();
    CHECK(touched < 25);
    CHECK(slots > limit / 4);
    // Past it, a vector that holds a handful of ids does not double again.
    const auto far = static_cast<ThreadId>(2 * slots + 100);
    REQUIRE(static_cast<std::size_t>(far) + 1 >= limit);
    table.at(far).value = 3;
    CHECK(table.dense_slots() == slots);
    CHECK(table.find(far)->value == 3);
    CHECK(table.find(id)->value == 1);
  }
}
