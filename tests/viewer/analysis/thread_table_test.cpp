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
