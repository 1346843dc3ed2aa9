// timeline_navigation.cpp — every move edits a copy of the mapping, then
// limit_window() applies the two rules: rule 1 caps ns_per_px and restores
// the anchor's time, rule 2 is one clamp of start between bounds that
// cannot cross. Pans and at_end() anchor at the canvas's centre; at_end()
// leaves the right margin the fitted view has, kFitMargin / (1 + 2 ×
// kFitMargin) of the window. reveal_window() works in the window's own
// times, t_of(0) to t_of(width), and leaves the limiting to the caller.
#include "viewer/timeline/timeline_navigation.hpp"

#include <algorithm>

namespace skein {

TimeWindow fitted_window(TimeNs first_time, TimeNs end_time) {
  const double from = static_cast<double>(first_time);
  const double to = static_cast<double>(std::max(end_time, first_time + 1));
  const double pad = (to - from) * kFitMargin;
  return TimeWindow{from - pad, to + pad};
}

void limit_window(TimeMapping& m, const TimeWindow& fitted, double width, double anchor_x) {
  if (!(width > 0) || !(fitted.span() > 0)) return;
  // Rule 1: no wider than the fitted window, around the anchor.
  const double widest = std::max(fitted.span() / width, TimeMapping::kMinNsPerPx);
  if (m.ns_per_px > widest) {
    const double anchor = m.t_of(anchor_x);
    m.ns_per_px = widest;
    m.start = anchor - anchor_x * m.ns_per_px;
  }
  // Rule 2: the window [start, start + span] overlaps the fitted window by
  // `shown` at least. The bounds never cross: 2 * shown <= span + fitted.
  const double span = m.ns_per_px * width;
  const double shown = kMinTraceShown * std::min(span, fitted.span());
  m.start = std::clamp(m.start, fitted.from + shown - span, fitted.to - shown);
}

TimeMapping zoomed(const TimeMapping& m, const TimeWindow& fitted, double width, double x, double factor) {
  TimeMapping out = m;
  out.zoom_at(x, factor);
  limit_window(out, fitted, width, x);
  return out;
}

TimeMapping panned(const TimeMapping& m, const TimeWindow& fitted, double width, double fraction) {
  TimeMapping out = m;
  out.start += fraction * m.ns_per_px * width;
  limit_window(out, fitted, width, width / 2);
  return out;
}

TimeMapping at_end(const TimeMapping& m, TimeNs end_time, const TimeWindow& fitted, double width) {
  TimeMapping out = m;
  const double span = m.ns_per_px * width;
  const double margin = span * kFitMargin / (1 + 2 * kFitMargin);
  out.start = static_cast<double>(end_time) + margin - span;
  limit_window(out, fitted, width, width / 2);
  return out;
}

std::optional<TimeWindow> reveal_window(const TimeMapping& m, double width, TimeNs start, TimeNs end) {
  const double t0 = m.t_of(0), t1 = m.t_of(width);
  const double window = t1 - t0;
  const double s = static_cast<double>(start), e = static_cast<double>(std::max(end, start));
  const double d = std::max(e - s, 1.0);
  const double centre = (s + e) / 2;
  const bool inside = s >= t0 && e <= t1;
  if (inside && d >= kRevealSmallest * window) return std::nullopt;
  if (d > kRevealLargest * window) return TimeWindow{s - kRevealMargin * d, e + kRevealMargin * d};
  double span = window;
  if (d < kRevealSmallest * window) span = std::min(window, std::max(d / kRevealFill, kRevealMinSpanNs));
  if (inside && span >= window) return std::nullopt;  // as deep as it goes, and in view
  return TimeWindow{centre - span / 2, centre + span / 2};
}

}  // namespace skein
