// highlight_band.hpp — where the viewer's GUI tests look for the band a
// highlight draws behind a thread's row: that row's area over [from, to]
// (record times), inside the band's margins, in the widget's pixels; an
// empty rectangle when the row is not among the rows on screen.
#pragma once

#include <QRect>
#include <cstdint>

#include "viewer/app/timeline_widget.hpp"

namespace skein::test {

// `thread` indexes the widget's data (the view it shows).
inline QRect highlight_band(const TimelineWidget& timeline, std::uint32_t thread, double from, double to) {
  const TimelineViewState& v = timeline.view();
  const TimelineGeometry g = timeline.geometry_now();
  const auto slot = v.slot_of(timeline.data()->threads[thread].row);
  if (!slot) return {};
  const double top = g.row_top(*slot, v.row_offset);
  const int x0 = int(v.mapping.x_of(from)) + 2, x1 = int(v.mapping.x_of(to)) - 2;
  return QRect(x0, int(top) + 5, x1 - x0, TimelineGeometry::kRowHeight - 10);
}

}  // namespace skein::test
