// activity_overview.cpp — run_time_histogram() finds each row's first
// activation in range by binary search (they are sorted and disjoint), adds
// an activation's partial end bins directly and counts the bins it covers
// whole in a difference array, so a long one costs O(1); a final sweep adds
// those, every sum saturating. build() clamps the span to record.hpp's
// limits, takes bin_ns = ceil(span / kMaxBins) and keeps prefix sums, which
// cumulative_at() interpolates inside a bin. Columns are differences of
// successive edges, so they add up to the total.
#include "viewer/timeline/activity_overview.hpp"

#include <algorithm>
#include <cmath>

#include "recorder/format/checked_arithmetic.hpp"

namespace skein {

std::vector<std::int64_t> run_time_histogram(const TimelineData& data, TimeNs origin, TimeNs bin_ns,
                                             std::size_t bins) {
  std::vector<std::int64_t> hist(bins, 0);
  // Defensive: an origin outside the format's limits would let s - origin
  // below overflow.
  if (bins == 0 || bin_ns <= 0 || !is_valid_time(origin)) return hist;
  // Bins an activation covers completely get bin_ns each; counting them
  // in a difference array keeps a long activation O(1), not O(its bins).
  std::vector<std::int64_t> full(bins + 1, 0);
  // Saturating: bins past INT64_MAX lie beyond every activation anyway.
  const TimeNs limit = saturating_add(origin, saturating_mul(static_cast<TimeNs>(bins), bin_ns));
  for (const TimelineRow& row : data.rows) {
    // The row's activations are sorted and disjoint: skip those before origin.
    auto it = std::partition_point(row.activations.begin(), row.activations.end(),
                                   [&](const TimelineActivation& a) { return a.end <= origin; });
    for (; it != row.activations.end() && it->start < limit; ++it) {
      const TimeNs s = std::max(it->start, origin);
      const TimeNs e = std::min(it->end, limit);
      if (e <= s) continue;
      const auto b0 = static_cast<std::size_t>((s - origin) / bin_ns);
      const auto b1 = static_cast<std::size_t>((e - 1 - origin) / bin_ns);  // the bin of the last ns
      // s - origin < bins * bin_ns: the bin edges below are within [origin, limit].
      if (b0 == b1) {
        hist[b0] = saturating_add(hist[b0], e - s);
        continue;
      }
      hist[b0] = saturating_add(hist[b0], origin + static_cast<TimeNs>(b0 + 1) * bin_ns - s);
      hist[b1] = saturating_add(hist[b1], e - (origin + static_cast<TimeNs>(b1) * bin_ns));
      full[b0 + 1] += 1;
      full[b1] -= 1;
    }
  }
  // Rows' activations overlap only in a damaged or hand-made trace; then a
  // bin's run time may pass INT64_MAX, and is held there.
  std::int64_t covering = 0;
  for (std::size_t k = 0; k < bins; ++k) {
    covering += full[k];
    hist[k] = saturating_add(hist[k], saturating_mul(covering, bin_ns));
  }
  return hist;
}

ActivityOverview ActivityOverview::build(const TimelineData& data) {
  ActivityOverview o;
  // Within record.hpp's limits, as the store's open guarantees for a
  // loaded trace: then span + max_bins and every bin edge fit in 64 bits.
  o.first_ = std::clamp(data.first_time, TimeNs{0}, kMaxTime);
  o.end_ = std::clamp(data.end_time, o.first_, kMaxTime);
  const TimeNs span = o.end_ - o.first_;
  if (span <= 0) return o;
  const auto max_bins = static_cast<TimeNs>(kMaxBins);
  o.bin_ns_ = (span + max_bins - 1) / max_bins;
  const auto bins = static_cast<std::size_t>((span + o.bin_ns_ - 1) / o.bin_ns_);
  const std::vector<std::int64_t> hist = run_time_histogram(data, o.first_, o.bin_ns_, bins);
  o.cumulative_.assign(bins + 1, 0);
  for (std::size_t k = 0; k < bins; ++k) o.cumulative_[k + 1] = saturating_add(o.cumulative_[k], hist[k]);
  return o;
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
