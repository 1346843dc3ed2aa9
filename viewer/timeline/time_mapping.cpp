// time_mapping.cpp — the two mapping operations that need more than one
// line. zoom_at() takes the time under pixel x first, clamps the new scale
// to [kMinNsPerPx, kMaxNsPerPx], then moves start so that time stays at x.
// fit() treats a span under 1 ns as 1 ns and a width under 1 px as 1 px,
// so the scale is always finite before it is clamped.
#include "viewer/timeline/time_mapping.hpp"

#include <algorithm>

namespace skein {

void TimeMapping::zoom_at(double x, double factor) {
  if (!(factor > 0)) return;
  const double anchor = t_of(x);
  ns_per_px = std::clamp(ns_per_px / factor, kMinNsPerPx, kMaxNsPerPx);
  start = anchor - x * ns_per_px;
}

void TimeMapping::fit(double from, double to, double width) {
  const double span = std::max(to - from, 1.0);
  ns_per_px = std::clamp(span / std::max(width, 1.0), kMinNsPerPx, kMaxNsPerPx);
  start = from;
}

}  // namespace skein
