// time_mapping.cpp — see time_mapping.hpp.
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
