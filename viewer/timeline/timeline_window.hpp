// timeline_window.hpp — a TimelineData of one time window, read from the
// store without reading the whole trace: what `skein render --from --to`
// draws, and the same picture load_timeline() gives for that window.
//
// What the window holds:
//   - the threads alive in [from, to] (the thread_spans R*Tree), on the
//     rows layout_v2 gives them: only the rows that hold one, in the
//     layout's order, and the count of the others (rows_elsewhere, from
//     meta layout_rows), which folding counts as folded. The window is for
//     a view that folds (RowFolding::empty or quiet, as `skein render`
//     draws): one that folds nothing would show those rows, empty;
//   - the threads an edge or a finding in reach of the window names,
//     though not alive in it (an edge to a thread that ended drew to its
//     row): they are never drawn themselves, being outside the window;
//   - the activations overlapping the window: the store's activations are
//     in start order and disjoint (one thread runs at a time), so they are
//     the ones starting in the window's event blocks and the one before;
//   - the edges with a time in the window; the idle bands and gc bands that
//     reach into it (the events are read from the last activation start
//     before the window, or `longest_gc` before it, whichever is earlier);
//   - every counter by name with its samples in the window and the last
//     one before it, and its minimum and maximum over the whole trace (a
//     lane's scale: counter_ranges, which the import writes; read from
//     every sample in a database without it);
//   - the stored findings within a window's width of it, through the block
//     index of their ids (finding_blocks, SCHEMA.md).
// Merge chains are not followed (each thread is its own chain's head):
// nothing drawn without a selection reads them.
//
// No window (nullopt) when the store cannot give one equal to the whole
// load's picture: a window wider than kStartupFoldWindow of the trace
// (start-up rows are then folded by a rule over whole rows), a database
// whose layout_v2 or meta lacks what is read here (an older Skein's), or a
// thread alive in the window with no row. The caller then loads the whole
// trace.
#pragma once

#include <optional>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

[[nodiscard]] Result<std::optional<TimelineData>> load_timeline_window(TraceStore& store, TimeNs from, TimeNs to);

}  // namespace skein
