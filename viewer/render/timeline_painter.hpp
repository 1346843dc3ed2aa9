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
// Labels are drawn only on threads wide enough to carry one, elided to
// the thread's width (elided_thread_label: the id stays whole; the
// widget's tooltip has the full text). The trace's text is drawn as
// xml_characters() (recorder/export/output_escape.hpp) gives it, so that an SVG
// of the timeline is well-formed XML whatever bytes the labels hold.
//
// Layers, bottom to top: canvas and row stripes, idle and GC bands, grid,
// selection, highlighted threads (summary, search, anomaly), thread lines
// and running spans, failure bars, pending arrowheads, arrows,
// missing-notification markers, the causal path, labels, ruler, counter
// lanes, legend.
#pragma once

#include <QFontMetricsF>
#include <QPainter>
#include <string>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein {

struct TimelinePaintOptions {
  bool legend = true;
  // Pixels at the right of the rows that something covers (the widget's
  // scroll bar): labels end before them.
  double rows_right_inset = 0;
  // The edges per pixel column, when the data holds only some of them (a
  // frame read from the levels, timeline_first_frame.hpp): the density
  // strip draws these counts, and arrows are drawn for the edges the data
  // holds. Ignored unless it has one count per column.
  const std::vector<float>* edge_density = nullptr;
};

void paint_timeline(QPainter& painter, const TimelineData& data, const TimelineViewState& view,
                    const TimelineGeometry& geometry, const TimelinePaintOptions& options = {});

// The font thread labels are drawn in.
[[nodiscard]] QFont timeline_label_font();
// A thread's label as drawn in `width` pixels: "LABEL  #ID" when it fits;
// else the label cut with an ellipsis so that "…  #ID" stays whole; "#ID"
// for a thread with no label; and when not even the id fits, the whole
// text elided ("" when nothing fits).
[[nodiscard]] QString elided_thread_label(const QFontMetricsF& metrics, const std::string& label, ThreadId id,
                                          double width);

}  // namespace skein
