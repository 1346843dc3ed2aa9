// thread_layout.hpp — which row of the timeline each thread is drawn on.
// Plain code over plain structs: no Qt, no SQL. The import places every
// thread with it once (store_writer.cpp writes the rows into `layout_v2`,
// derived_tables.hpp); the viewer reads them back
// (viewer/timeline/layout_cache.hpp), and runs it itself only for a
// database without them (made by an older Skein).
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
//   3. Prominent chains. A chain is *prominent* when some member is
//      labelled (a name someone gave it) and it is long-lived: alive while
//      at least kProminentShare of all the threads are created (a creation
//      at its span's ends counts). Creations measure where the trace is
//      busy, so a loop that runs through the whole workload counts even in
//      a trace that sleeps for most of its wall time (the 2014 MirageOS
//      log-x86: `blkfront.poll` and `Process data` live through the block
//      reads, the last 25% of the time and more than half of the threads),
//      and a timer that sleeps through it does not.
//   4. Chains are placed prominent ones first, then the others, each group
//      in order of (start, head id). Each goes to the first row at or below
//      its parent's row (row 0 when the parent is the scheduler, absent, or
//      not placed yet) that is free at its start: a row is free at t when
//      every chain on it ended before t. So the prominent chains take the
//      top rows, where the first screen shows them; everything else keeps
//      the order and nesting by parent it had. Rows are reused as soon as
//      they are free, so a long trace does not grow a staircase of rows. The
//      "first free row at or below" question is answered by an interval
//      index over rows (a segment tree of each row's busy-until time),
//      O(log rows) per chain. A row busy until t is never used before t,
//      so a chain of the second group never lands on a row that a
//      prominent chain takes later.
//
// Cost: O(n log n) for n threads (sorting by id, by creation and the
// chains; a binary search and a tree walk per chain).
//
// Invariants of the result (thread_layout_test.cpp checks each):
//   - no two chains overlap in time on one row (touching is an overlap:
//     a chain must start strictly after the previous one on its row ended);
//   - every member of a chain has the chain's row;
//   - a chain's row is >= its parent's row whenever the parent was placed
//     first;
//   - on every row, each prominent chain ends before any other chain on
//     that row starts (a row the prominent chains use is theirs until the
//     last of them ends);
//   - the result depends only on the input set, not its order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "recorder/format/record.hpp"

namespace skein {

struct LayoutThread {
  ThreadId id = 0;
  std::optional<ThreadId> parent;
  TimeNs start = 0;  // created
  TimeNs end = 0;    // resolved, or the trace's end when pending; >= start
  std::optional<ThreadId> merged_into;
  bool labelled = false;  // it has a label (step 3)
};

// Step 3's share of the trace's thread creations.
inline constexpr double kProminentShare = 0.5;

struct ThreadLayout {
  std::vector<std::int32_t> rows;         // rows[i] is the row of threads[i]
  std::vector<std::uint32_t> chain_head;  // chain_head[i]: index of the head of i's chain
  std::vector<bool> prominent;            // prominent[i]: i's chain is prominent (step 3)
  std::int32_t row_count = 0;
};

[[nodiscard]] ThreadLayout layout_threads(std::span<const LayoutThread> threads);
// Step 1 and 2 alone: each thread's chain head (for a layout read from the
// cache, which stores rows only).
[[nodiscard]] std::vector<std::uint32_t> merge_chain_heads(std::span<const LayoutThread> threads);

}  // namespace skein
