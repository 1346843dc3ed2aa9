// duration_accumulator.hpp — min / avg / max / population stddev of a set
// of durations, accumulated one at a time, and a summary row's group of
// threads built on it: `skein summary` (summary.cpp) and the viewer's
// Summary dock (timeline_summary.cpp) both use them, so the two give the
// same doubles for the same threads.
//
// Invariant: stats() of no durations is all zeros; the variance is clamped
// at 0, since rounding can make sum_squares/n - avg^2 a hair below it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include "recorder/format/checked_arithmetic.hpp"
#include "viewer/analysis/summary.hpp"

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

// The threads of one summary row (a label, kind or site, or the total).
struct SummaryGroup {
  TimeNs run_time = 0;
  std::uint64_t failures = 0;
  DurationAccumulator lifetime;
  DurationAccumulator run;

  void add(double thread_lifetime, TimeNs thread_run_time, bool failed) {
    run_time = saturating_add(run_time, thread_run_time);  // held at INT64_MAX
    failures += failed ? 1 : 0;
    lifetime.add(thread_lifetime);
    run.add(static_cast<double>(thread_run_time));
  }
  // The row, with its share of `total_run` (the total's run time).
  [[nodiscard]] SummaryRow row(std::string name, TimeNs total_run) const {
    SummaryRow r;
    r.name = std::move(name);
    r.run_time = run_time;
    r.percent_time =
        total_run > 0 ? 100.0 * static_cast<double>(run_time) / static_cast<double>(total_run) : 0.0;
    r.threads = lifetime.n;
    r.failures = failures;
    r.lifetime = lifetime.stats();
    r.run = run.stats();
    return r;
  }
};

}  // namespace skein
