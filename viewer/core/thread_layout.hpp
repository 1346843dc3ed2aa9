// thread_layout.hpp — which row of the timeline each thread is drawn on.
// Plain code over plain structs: no Qt, no SQL (layout_cache.hpp stores the
// result in the trace database; timeline_data.hpp reads it back).
//
// The algorithm, in the order it decides:
//   1. Merge chains. A thread that tail-merges (threads.merged_into) and the
//      thread it merged into are one *chain*: the chain is one occupant of
//      one row, so the continuation is drawn horizontally on the
//      predecessor's row, as the 2014 MirageOS viewer drew "tail-recursive"
//      calls. Chains are the connected components of the merge relation.
//   2. A chain's span is [earliest creation, latest end] of its members
//      (end: resolution, or the trace's end for a pending thread). Its
//      *head* is the member created first (ties: the smaller id); the
//      chain's parent is the head's parent.
//   3. Chains are placed in order of (start, head id). Each goes to the
//      first row at or below its parent's row (row 0 when the parent is the
//      scheduler, absent, or not placed yet) that is free at its start:
//      a row is free at t when every chain on it ended before t. Rows are
//      reused as soon as they are free, so a long trace does not grow a
//      staircase of rows. The "first free row at or below" question is
//      answered by an interval index over rows (a segment tree of each
//      row's busy-until time), O(log rows) per chain.
//
// Invariants of the result (thread_layout_test.cpp checks each):
//   - no two chains overlap in time on one row (touching is an overlap:
//     a chain must start strictly after the previous one on its row ended);
//   - every member of a chain has the chain's row;
//   - a chain's row is >= its parent's row whenever the parent was placed
//     first;
//   - the result depends only on the input set, not its order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "recorder/record.hpp"

namespace skein {

struct LayoutThread {
  ThreadId id = 0;
  std::optional<ThreadId> parent;
  TimeNs start = 0;  // created
  TimeNs end = 0;    // resolved, or the trace's end when pending; >= start
  std::optional<ThreadId> merged_into;
};

struct ThreadLayout {
  std::vector<std::int32_t> rows;         // rows[i] is the row of threads[i]
  std::vector<std::uint32_t> chain_head;  // chain_head[i]: index of the head of i's chain
  std::int32_t row_count = 0;
};

[[nodiscard]] ThreadLayout layout_threads(std::span<const LayoutThread> threads);
// Step 1 and 2 alone: each thread's chain head (for a layout read from the
// cache, which stores rows only).
[[nodiscard]] std::vector<std::uint32_t> merge_chain_heads(std::span<const LayoutThread> threads);

}  // namespace skein
