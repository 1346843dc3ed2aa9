// activity_overview.cpp — run_time_histogram() finds each row's first
// activation in range by binary search (they are sorted and disjoint) and
// adds them to the store's exact histogram (recorder/store/run_time_bins.hpp:
// partial end bins directly, whole bins in a difference array, every sum
// saturating). build() takes the bins activity_binning() gives (the span
// held to record.hpp's limits, bin_ns = ceil(span / kMaxBins)), which the
// import stores too, and keeps prefix sums, which cumulative_at()
// interpolates inside a bin. Columns are differences of
// successive edges, so they add up to the total.
#include "viewer/timeline/activity_overview.hpp"

#include <algorithm>
#include <cmath>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/run_time_bins.hpp"

namespace skein {

std::vector<std::int64_t> run_time_histogram(const TimelineData& data, TimeNs origin, TimeNs bin_ns,
                                             std::size_t bins) {
  RunTimeHistogram hist(origin, bin_ns, bins);
  if (!is_valid_time(origin) || bin_ns <= 0) return std::vector<std::int64_t>(bins, 0);
  for (const TimelineRow& row : data.rows) {
    // The row's activations are sorted and disjoint: skip those before origin.
    auto it = std::partition_point(row.activations.begin(), row.activations.end(),
                                   [&](const TimelineActivation& a) { return a.end <= origin; });
    for (; it != row.activations.end() && it->start < hist.limit(); ++it) hist.add(it->start, it->end);
  }
  return hist.finish();
}

ActivityOverview ActivityOverview::from_histogram(const ActivityBinning& binning,
                                                   const std::vector<std::int64_t>& hist) {
  ActivityOverview o;
  o.first_ = binning.first;
  o.end_ = binning.end;
  if (binning.bins == 0 || hist.size() != binning.bins) return o;
  o.bin_ns_ = binning.bin_ns;
  o.cumulative_.assign(binning.bins + 1, 0);
  for (std::size_t k = 0; k < binning.bins; ++k) o.cumulative_[k + 1] = saturating_add(o.cumulative_[k], hist[k]);
  return o;
}

ActivityOverview ActivityOverview::build(const TimelineData& data) {
  const ActivityBinning binning = activity_binning(data.first_time, data.end_time);
  if (binning.bins == 0) return from_histogram(binning, {});
  return from_histogram(binning, run_time_histogram(data, binning.first, binning.bin_ns, binning.bins));
}

double ActivityOverview::cumulative_at(double t) const {
  if (cumulative_.empty() || t <= static_cast<double>(first_)) return 0;
  const double pos = (t - static_cast<double>(first_)) / static_cast<double>(bin_ns_);
  const std::size_t bins = cumulative_.size() - 1;
  if (pos >= static_cast<double>(bins)) return static_cast<double>(cumulative_.back());
  const auto k = static_cast<std::size_t>(pos);
  const double inside = pos - static_cast<double>(k);
  const auto lo = static_cast<double>(cumulative_[k]);
  const auto hi = static_cast<double>(cumulative_[k + 1]);
  return lo + inside * (hi - lo);
}

std::vector<OverviewColumn> ActivityOverview::columns(int width) const {
  std::vector<OverviewColumn> out;
  if (width <= 0 || empty()) return out;
  out.resize(static_cast<std::size_t>(width));
  const OverviewMapping m{static_cast<double>(first_), static_cast<double>(end_), static_cast<double>(width)};
  double densest = 0;
  double before = 0;
  for (int x = 0; x < width; ++x) {
    OverviewColumn& c = out[static_cast<std::size_t>(x)];
    c.t0 = m.t_of(x);
    c.t1 = x + 1 == width ? static_cast<double>(end_) : m.t_of(x + 1);
    const double after = cumulative_at(c.t1);
    c.run_ns = after - before;
    before = after;
    c.density = c.t1 > c.t0 ? c.run_ns / (c.t1 - c.t0) : 0;
    densest = std::max(densest, c.density);
  }
  if (densest > 0)
    for (OverviewColumn& c : out) c.level = c.density / densest;
  return out;
}

namespace {

OverviewWindow clamped(double t0, double t1, double first, double end) {
  const double length = t1 - t0;
  if (length >= end - first) {
    const double centre = (first + end) / 2;
    return {centre - length / 2, centre + length / 2};
  }
  if (t0 < first) return {first, first + length};
  if (t1 > end) return {end - length, end};
  return {t0, t1};
}

}  // namespace

OverviewWindow OverviewWindow::centred_at(double t, double first, double end) const {
  const double half = (t1 - t0) / 2;
  return clamped(t - half, t + half, first, end);
}

OverviewWindow OverviewWindow::moved_by(double dt, double first, double end) const {
  return clamped(t0 + dt, t1 + dt, first, end);
}

}  // namespace skein
