// sqlite_read_cost.hpp — what a read costs on one connection, whatever the
// machine's speed: SQLite's virtual-machine steps, in thousands (a progress
// handler called every 1,000), and the pages it read from the file (the
// page cache's misses; open the store afresh before a read to count them
// all). Tests bound a read's work with these where a time would be noise.
#pragma once

#include <sqlite3.h>

#include <cstdint>

#include "recorder/store/trace_store.hpp"

namespace skein::test {

struct ReadCost {
  std::uint64_t thousand_steps = 0;
  int pages = 0;
};

template <class Read>
ReadCost read_cost(TraceStore& store, Read&& read) {
  ReadCost cost;
  sqlite3* handle = store.database().handle();
  int pages = 0, highest = 0;
  sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &pages, &highest, /*reset=*/1);
  sqlite3_progress_handler(
      handle, 1000,
      [](void* count) {
        ++*static_cast<std::uint64_t*>(count);
        return 0;
      },
      &cost.thousand_steps);
  read();
  sqlite3_progress_handler(handle, 0, nullptr, nullptr);
  sqlite3_db_status(handle, SQLITE_DBSTATUS_CACHE_MISS, &cost.pages, &highest, 0);
  return cost;
}

}  // namespace skein::test
