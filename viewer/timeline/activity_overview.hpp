// activity_overview.hpp — how busy the program was, over the whole trace:
// the data of the overview strip above the timeline (and, through
// run_time_histogram(), of the subsecond heat map). No Qt.
//
// Definitions:
//   - run time in a window: the sum over all activations of their overlap
//     with the window (the same run time as `skein summary`'s, cut to the
//     window). Activations of different rows add up; in a cooperative
//     trace only one thread runs at a time, so this is at most the
//     window's length;
//   - a column's density: its run time over its length, the fraction of
//     the column during which some thread ran (1 = always running);
//   - a column's level: its density over the densest column's, in [0, 1]:
//     what the strip draws as bar height, so that a trace that is busy
//     5% of the time still shows its shape.
//
// Design: build once, resample per width. ActivityOverview::build() walks
// every activation once, O(activations + bins), into an exact histogram
// of run time over at most kMaxBins bins of a whole number of ns each
// (1 ns a bin when the trace is shorter than kMaxBins ns), and keeps its
// prefix sums. The import stores that histogram (`activity_bins`,
// recorder/store/run_time_bins.hpp), and the loader reads it: the strip
// then comes from_histogram(), reading no activation at all, and equal to
// build(). columns(width) then costs O(width): a column's run time is
// the difference of the cumulative run time at its two edges, exact at bin
// edges and linear inside a bin (so exact everywhere when bins are 1 ns).
//
// Times: build() holds first_time and end_time to record.hpp's limits
// (0 to kMaxTime, which a loaded trace already keeps), so no bin edge
// overflows, and the bins number at most kMaxBins whatever the span.
//
// Invariants: cumulative.size() == bins + 1, cumulative[0] == 0, it never
// decreases, and cumulative[k + 1] - cumulative[k] <= bin_ns * rows (no
// more run time in a bin than its length, per row).
#pragma once

#include <cstdint>
#include <vector>

#include "recorder/store/run_time_bins.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

// Run time (ns, exact) of every activation of `data` in each of `bins`
// consecutive bins of `bin_ns` ns from `origin`: bin k is [origin + k *
// bin_ns, origin + (k + 1) * bin_ns). Activations outside are cut off.
// O(activations + bins). bin_ns must be > 0 and origin a time within
// record.hpp's limits (else every bin is 0); a bin's run time is held at
// INT64_MAX. The caller sizes `bins`: memory is O(bins).
[[nodiscard]] std::vector<std::int64_t> run_time_histogram(const TimelineData& data, TimeNs origin, TimeNs bin_ns,
                                                           std::size_t bins);

struct OverviewColumn {
  double t0 = 0;        // the column's time range, ns (store times)
  double t1 = 0;
  double run_ns = 0;    // run time in [t0, t1)
  double density = 0;   // run_ns / (t1 - t0)
  double level = 0;     // density / the densest column's density; 0 when none ran
};

class ActivityOverview {
 public:
  static constexpr std::size_t kMaxBins = kActivityMaxBins;

  ActivityOverview() = default;
  // From every activation of `data`.
  [[nodiscard]] static ActivityOverview build(const TimelineData& data);
  // From a histogram of binning.bins bins, as the import stores it
  // (TimelineData::activity): equal to build() on the trace it was made
  // from. Empty when the sizes differ.
  [[nodiscard]] static ActivityOverview from_histogram(const ActivityBinning& binning,
                                                       const std::vector<std::int64_t>& hist);

  [[nodiscard]] TimeNs first_time() const { return first_; }
  [[nodiscard]] TimeNs end_time() const { return end_; }
  [[nodiscard]] TimeNs bin_ns() const { return bin_ns_; }
  [[nodiscard]] std::size_t bins() const { return cumulative_.empty() ? 0 : cumulative_.size() - 1; }
  [[nodiscard]] bool empty() const { return end_ <= first_; }
  // Run time from first_time() to t (clamped to the trace).
  [[nodiscard]] double cumulative_at(double t) const;
  // Run time in [t0, t1).
  [[nodiscard]] double run_time(double t0, double t1) const { return cumulative_at(t1) - cumulative_at(t0); }
  // The whole trace, first_time() to end_time(), in `width` equal columns.
  [[nodiscard]] std::vector<OverviewColumn> columns(int width) const;

 private:
  TimeNs first_ = 0;
  TimeNs end_ = 0;
  TimeNs bin_ns_ = 1;
  std::vector<std::int64_t> cumulative_;  // run time before each bin edge
};

// The x axis of the overview: the whole trace across `width` pixels.
struct OverviewMapping {
  double first = 0;  // ns at x == 0
  double end = 0;    // ns at x == width
  double width = 0;

  [[nodiscard]] double x_of(double t) const { return end > first ? (t - first) / (end - first) * width : 0; }
  [[nodiscard]] double t_of(double x) const { return width > 0 ? first + x / width * (end - first) : first; }
};

// A visible window [t0, t1] on the overview, and what the strip's gestures
// make of it. Each result keeps the window's length and lies within
// [first, end] when it fits there (a longer window is centred on the trace).
struct OverviewWindow {
  double t0 = 0;
  double t1 = 0;

  // The window centred on t: a click on the strip.
  [[nodiscard]] OverviewWindow centred_at(double t, double first, double end) const;
  // The window moved by dt: a drag of the marked window.
  [[nodiscard]] OverviewWindow moved_by(double dt, double first, double end) const;
};

}  // namespace skein
