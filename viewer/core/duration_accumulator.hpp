// duration_accumulator.hpp — min / avg / max / population stddev of a set
// of durations, accumulated one at a time: `skein summary` (summary.cpp)
// and the viewer's Summary dock (timeline_summary.cpp) both use it, so the
// two give the same doubles for the same threads.
//
// Invariant: stats() of no durations is all zeros; the variance is clamped
// at 0, since rounding can make sum_squares/n - avg^2 a hair below it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "viewer/core/summary.hpp"

namespace skein {

struct DurationAccumulator {
  std::uint64_t n = 0;
  double sum = 0;
  double sum_squares = 0;
  double min = 0;
  double max = 0;

  void add(double v) {
    if (n == 0 || v < min) min = v;
    if (n == 0 || v > max) max = v;
    ++n;
    sum += v;
    sum_squares += v * v;
  }
  [[nodiscard]] DurationStats stats() const {
    DurationStats s;
    if (n == 0) return s;
    s.min = min;
    s.max = max;
    s.avg = sum / static_cast<double>(n);
    const double variance = std::max(0.0, sum_squares / static_cast<double>(n) - s.avg * s.avg);
    s.stddev = std::sqrt(variance);
    return s;
  }
};

}  // namespace skein
