// row_extents.hpp — each timeline row's extent: its first thread's start,
// its latest end, how many threads it holds and how many of them failed.
// What folding asks of a row before anything on it is read: a frame of the
// whole trace shows every row that holds a thread except the start-up ones
// (viewer/timeline/timeline_view.hpp, RowFolding), and those are decided by
// a row's latest end and whether any of its threads failed. The import
// writes the table (`row_extents`, SCHEMA.md) with layout_v2 and row_spans,
// from the same threads, so the three agree; whoever writes layout_v2 again
// drops it.
//
// A thread's span is the timeline's: created to resolved, or to the
// trace's end while pending, and never ending before it starts
// (RowSpanThread, row_spans.hpp).
//
// Invariants of the table (read_row_extents() checks each, and refuses a
// table that breaks one): one row per layout row with a thread, keyed by
// the row, 0 <= row < meta `layout_rows`; first_start <= last_end, both
// times; 1 <= threads; 0 <= failed <= threads.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/row_spans.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

struct RowExtent {
  std::int32_t row = 0;
  TimeNs first_start = 0;
  TimeNs last_end = 0;
  std::int64_t threads = 0;
  std::int64_t failed = 0;
  friend bool operator==(const RowExtent&, const RowExtent&) = default;
};

// The extents of the rows that hold a thread, by row. A thread with no row
// (row < 0, which the layout never gives) is left out.
[[nodiscard]] std::vector<RowExtent> build_row_extents(const std::vector<RowSpanThread>& threads);

// Writes a fresh row_extents (kRowExtentsTable, derived_tables.hpp) inside
// the caller's transaction.
[[nodiscard]] Status write_row_extents(SqliteDatabase& db, const std::vector<RowExtent>& extents);

// Every row's extent, by row; nullopt when the database has no row_extents
// of ours (an older Skein's) or no layout_rows in meta. A row that breaks
// an invariant above fails naming it.
[[nodiscard]] Result<std::optional<std::vector<RowExtent>>> read_row_extents(SqliteDatabase& db);

}  // namespace skein
