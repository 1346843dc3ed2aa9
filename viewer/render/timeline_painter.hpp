// timeline_painter.hpp — draws the timeline of a TimelineData onto any
// QPainter (a widget, a QImage, an SVG): the one painting code behind
// skein-view and `skein render`.
//
// The rule that keeps a frame under 16 ms at any zoom on any trace size:
// the work is bounded by the canvas, not the trace. Every layer walks its
// sorted array from the first item in view, and whenever an item is
// narrower than a pixel it jumps by binary search to the first item of the
// next pixel column, so each row costs O(width log n) at most. Lines and
// running spans are rasterised into per-column coverage first and drawn as
// runs of rectangles; a column holding more than a few arrows gets one
// density mark in the strip under the ruler instead of its arrows.
// Labels are drawn only on threads wide enough to carry one.
//
// Layers, bottom to top: canvas and row stripes, idle and GC bands, grid,
// selection, highlighted threads (summary, search, anomaly), thread lines
// and running spans, failure bars, pending arrowheads, arrows,
// missing-notification markers, the causal path, labels, ruler, counter
// lanes, legend.
#pragma once

#include <QPainter>

#include "viewer/core/timeline_data.hpp"
#include "viewer/core/timeline_view.hpp"

namespace skein {

struct TimelinePaintOptions {
  bool legend = true;
};

void paint_timeline(QPainter& painter, const TimelineData& data, const TimelineViewState& view,
                    const TimelineGeometry& geometry, const TimelinePaintOptions& options = {});

}  // namespace skein
