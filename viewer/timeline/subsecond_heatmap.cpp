// subsecond_heatmap.cpp — choose_unit() first multiplies 1 s by ten until
// the span needs at most kMaxColumns columns, then divides by ten down to
// 1 µs while the span holds fewer than kMinColumns units. build() clamps
// the times to record.hpp's limits, the rows to [1, kMaxCells] and the unit
// to at least the rows, and raises a unit that would exceed kMaxCells cells.
// Column-major cells are consecutive in time, so one run_time_histogram()
// with cell-sized bins fills them all; the busiest cell is found once.
// Cell ranges saturate, so no cell index can overflow a time.
#include "viewer/timeline/subsecond_heatmap.hpp"

#include <algorithm>
#include <cmath>

#include "recorder/format/checked_arithmetic.hpp"

#include "viewer/timeline/activity_overview.hpp"
#include "viewer/timeline/time_ruler.hpp"

namespace skein {

namespace {

// ceil(span / unit) for span >= 0, unit > 0, with no overflow.
TimeNs columns_for(TimeNs span, TimeNs unit) { return span == 0 ? 0 : (span - 1) / unit + 1; }

// The trace's times held to record.hpp's limits (a loaded trace keeps them).
TimeNs clamped_first(const TimelineData& data) { return std::clamp(data.first_time, TimeNs{0}, kMaxTime); }
TimeNs clamped_end(const TimelineData& data) {
  return std::clamp(data.end_time, clamped_first(data), kMaxTime);
}

}  // namespace

TimeNs SubsecondHeatmap::choose_unit(TimeNs span) { return subsecond_unit(std::max<TimeNs>(span, 0)); }

SubsecondHeatmap SubsecondHeatmap::build(const TimelineData& data) {
  return build(data, choose_unit(clamped_end(data) - clamped_first(data)), kRows, data.subsecond);
}

SubsecondHeatmap SubsecondHeatmap::build(const TimelineData& data, TimeNs unit, int rows) {
  return build(data, unit, rows, std::nullopt);
}

SubsecondHeatmap SubsecondHeatmap::build(const TimelineData& data, TimeNs unit, int rows,
                                         const std::optional<StoredActivity>& stored) {
  SubsecondHeatmap m;
  m.first_ = clamped_first(data);
  m.end_ = clamped_end(data);
  m.rows_ = std::clamp(rows, 1, static_cast<int>(kMaxCells));
  m.unit_ = std::clamp<TimeNs>(unit, m.rows_, kMaxTime);
  const TimeNs span = m.end_ - m.first_;
  if (span <= 0) return m;
  // At most kMaxCells cells, whatever the span: a unit too small for that
  // is raised to the least multiple of rows that is not.
  const auto max_columns = static_cast<TimeNs>(kMaxCells / static_cast<std::size_t>(m.rows_));
  if (columns_for(span, m.unit_) > max_columns) {
    const TimeNs needed = columns_for(span, max_columns);
    m.unit_ = columns_for(needed, m.rows_) * m.rows_;
  }
  const TimeNs cell = m.cell_ns();
  // Whole columns covering the span: the last one may reach past the end.
  m.columns_ = static_cast<int>(columns_for(span, m.unit_));
  const auto cells = static_cast<std::size_t>(m.columns_) * static_cast<std::size_t>(m.rows_);
  // Column-major cells are consecutive in time: one histogram of cells,
  // the import's when it cut the same cells.
  if (stored && stored->binning.first == m.first_ && stored->binning.bin_ns == cell &&
      stored->binning.bins == cells && stored->run_ns.size() == cells)
    m.cells_ = stored->run_ns;
  else
    m.cells_ = run_time_histogram(data, m.first_, cell, cells);
  for (std::int64_t v : m.cells_) m.max_ = std::max(m.max_, v);
  return m;
}

std::int64_t SubsecondHeatmap::run_ns(HeatmapCell c) const {
  if (c.column < 0 || c.column >= columns_ || c.row < 0 || c.row >= rows_) return 0;
  return cells_[static_cast<std::size_t>(c.column) * static_cast<std::size_t>(rows_) + static_cast<std::size_t>(c.row)];
}

double SubsecondHeatmap::busy(HeatmapCell c) const {
  return static_cast<double>(run_ns(c)) / static_cast<double>(cell_ns());
}

double SubsecondHeatmap::level(HeatmapCell c) const {
  return max_ > 0 ? static_cast<double>(run_ns(c)) / static_cast<double>(max_) : 0;
}

HeatmapRange SubsecondHeatmap::cell_range(HeatmapCell c) const {
  // Saturating: a cell far outside the grid is asked for by no one, but
  // must not overflow.
  const TimeNs t0 = saturating_add(
      first_, saturating_add(saturating_mul(c.column, unit_), saturating_mul(c.row, cell_ns())));
  return {t0, saturating_add(t0, cell_ns())};
}

std::optional<HeatmapCell> SubsecondHeatmap::cell_at_time(double t) const {
  const double offset = t - static_cast<double>(first_);
  if (offset < 0 || columns_ == 0) return std::nullopt;
  const auto k = static_cast<std::int64_t>(std::floor(offset / static_cast<double>(cell_ns())));
  if (k >= static_cast<std::int64_t>(columns_) * rows_) return std::nullopt;
  return HeatmapCell{static_cast<int>(k / rows_), static_cast<int>(k % rows_)};
}

HeatmapRange SubsecondHeatmap::selection(HeatmapCell a, HeatmapCell b) const {
  HeatmapRange ra = cell_range(a), rb = cell_range(b);
  if (rb.t0 < ra.t0) std::swap(ra, rb);
  HeatmapRange r{std::clamp(ra.t0, first_, end_), std::clamp(rb.t1, first_, end_)};
  return r;
}

bool SubsecondHeatmap::cell_in(HeatmapCell cell, HeatmapRange range) const {
  const HeatmapRange c = cell_range(cell);
  return c.t0 >= range.t0 && c.t0 < range.t1;
}

std::string SubsecondHeatmap::caption() const {
  const auto unit = static_cast<double>(unit_);
  const std::string cells = "columns of " + format_ruler_time(unit, unit) + ", rows of " +
                            format_ruler_time(static_cast<double>(cell_ns()), static_cast<double>(cell_ns()));
  if (unit_ == kSecond) return cells + ": offset within the second";
  if (unit_ != choose_unit(end_ - first_)) return cells + " (offset within the column)";
  if (unit_ > kSecond) {
    const double limit = static_cast<double>(kMaxColumns) * unit / 10;
    return "trace longer than " + format_ruler_time(limit, limit) + ": " + cells + " (offset within the column)";
  }
  const double limit = static_cast<double>(kMinColumns) * unit * 10;
  return "trace shorter than " + format_ruler_time(limit, limit) + ": " + cells + " (offset within the column)";
}

HeatmapGeometry HeatmapGeometry::fit(const SubsecondHeatmap& map, double left, double top, double width,
                                     double height) {
  HeatmapGeometry g;
  g.left = left;
  g.top = top;
  g.columns = map.columns();
  g.rows = map.rows();
  if (g.columns > 0) g.cell_w = std::max(width, 0.0) / g.columns;
  if (g.rows > 0) g.cell_h = std::max(height, 0.0) / g.rows;
  return g;
}

std::optional<HeatmapCell> HeatmapGeometry::cell_at(double x, double y) const {
  if (cell_w <= 0 || cell_h <= 0) return std::nullopt;
  const double c = std::floor((x - left) / cell_w), r = std::floor((y - top) / cell_h);
  if (c < 0 || r < 0 || c >= columns || r >= rows) return std::nullopt;
  return HeatmapCell{static_cast<int>(c), static_cast<int>(r)};
}

HeatmapCell HeatmapGeometry::nearest_cell(double x, double y) const {
  if (cell_w <= 0 || cell_h <= 0 || columns == 0 || rows == 0) return {};
  const double c = std::clamp(std::floor((x - left) / cell_w), 0.0, static_cast<double>(columns - 1));
  const double r = std::clamp(std::floor((y - top) / cell_h), 0.0, static_cast<double>(rows - 1));
  return HeatmapCell{static_cast<int>(c), static_cast<int>(r)};
}

}  // namespace skein
