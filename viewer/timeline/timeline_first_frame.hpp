// timeline_first_frame.hpp — the first frame of a trace (the whole trace
// fitted to the canvas, as a viewer opens it) read from the levels of
// detail the import stores, not from the whole trace: what skein-view
// draws within a moment of opening a database of any size, while the
// whole load goes on behind it. It costs what the frame shows: the rows
// on screen at the frame's level, one counter sample a column, and the
// edges of the columns sparse enough to need them.
//
// The frame equals what the whole load draws at the same size, pixel for
// pixel (timeline_first_frame_test.cpp holds it to that), because each
// part is read so as to give the painter the same columns:
//   - which rows show: at the fitted window every row that holds a thread
//     is alive and has a creation in view, so folding (timeline_view.hpp,
//     RowFolding::quiet) folds only the start-up rows, and those are told
//     by a row's latest end and failures alone (row_extents.hpp);
//   - the rows on screen: each layer from row_spans at the coarsest level
//     within a pixel (row_spans.hpp says why its runs, kept threads and
//     failure marks mark the same columns); a kept thread and a failure
//     mark are read whole from `threads`, with their row text;
//   - idle and gc bands: rows kIdleBandRow and kGcBandRow of row_spans,
//     at the same level;
//   - the edges: each column's count from edge_bins (bins of at most a
//     quarter of a column, where stored) where the bins within it already
//     reach kFullDensityEdges (the shade is full), and where a
//     bin straddles its edge or it is too sparse for that, by reading the
//     column's edges one by one (which also gives the arrows of the
//     columns with at most kMaxArrowsPerColumn);
//   - the counters (at most kMaxCounterLanes lanes): the sample in force at
//     each column's right edge, one seek a column, which is all the
//     painter reads of them; their scale from counter_ranges.
//
// No frame (nullopt) when the store lacks a part (an older Skein's
// database: no row_extents, row_spans, edge_bins or counter_ranges), when
// its parts do not agree with its meta (stale), when a row's first thread
// starts outside the window (folding could not be told from the extents),
// or when the edges to read one by one would exceed the limit: the caller
// then waits for the whole load, as before. A damaged part fails naming
// it.
//
// The data holds what this frame draws and no more: it is not refolded,
// searched or picked from (its threads are those drawn whole, its rows
// off screen empty). The view comes with it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein {

struct TimelineFirstFrame {
  TimelineData data;
  TimelineViewState view;
  // The canvas it was read for; and the edges in each of its pixel columns
  // (TimelinePaintOptions::edge_density).
  int width = 0;
  int height = 0;
  std::vector<float> edge_density;
  // What it read, for the tests and the benchmark: edges one by one, and
  // threads from `threads`.
  std::int64_t edges_read = 0;
  std::int64_t threads_read = 0;
};

struct FirstFrameLimits {
  // The most edges read one by one (an estimate from edge_bins, before
  // reading): past it, no frame. A million edges decode in about a tenth
  // of a second; a trace with that many in columns below a full shade is
  // one of a few million records, whose whole load is under a second.
  std::int64_t edges = std::int64_t{1} << 20;
};

// The frame of a canvas `width` x `height` pixels (TimelineGeometry).
[[nodiscard]] Result<std::optional<TimelineFirstFrame>> load_timeline_first_frame(TraceStore& store, int width,
                                                                                  int height,
                                                                                  const FirstFrameLimits& limits = {});

}  // namespace skein
