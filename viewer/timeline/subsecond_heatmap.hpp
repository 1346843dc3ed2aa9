// subsecond_heatmap.hpp — a subsecond-offset heat map in the manner of
// Netflix's FlameScope: time is cut into columns of one unit (a second),
// each column into `rows` cells by the offset within it, and a cell's
// colour is the activity in it. Reading down a column and then on to the
// next one reads time in order, so bursts, periodic work (a timer every
// 100 ms draws a horizontal line) and idle stretches stand out in a trace
// far too long for the timeline to show at once. No Qt.
//
// Activity: a cell's run time (activity_overview.hpp: the overlap of every
// activation with the cell, exact, in ns); `busy` is that over the cell's
// length, and colour scales with run time over the busiest cell's, as
// FlameScope scales sample counts.
//
// The unit: FlameScope's columns are seconds with 50 rows of 20 ms. A
// trace shorter than kMinColumns seconds would be a handful of columns, so
// choose_unit() takes the largest of 1 s, 100 ms, 10 ms, ... 1 µs that the
// trace spans at least kMinColumns times (a 3 s trace gets columns of
// 100 ms, rows of 2 ms; a 200 ms one columns of 10 ms, rows of 200 µs),
// and caption() says so. A trace longer than kMaxColumns seconds gets
// columns of 10 s, 100 s, ..., so that the cells stay at most kMaxCells
// however long it is. Rows stay 50 (every unit divides by 50 exactly,
// so cells are a whole number of ns).
//
// Layout: column c, row r is [first + c * unit + r * cell, + cell), row 0 at
// the top (offset 0 within the column). Columns start at the trace's first
// record, time 0 as the user sees it.
//
// Selection, as in FlameScope: a drag from one cell to another selects the
// time from the start of the earlier cell to the end of the later one (in
// time order, whichever end the drag started from), clamped to the trace.
//
// Cost: O(cells) to build from the cells the import stored (the default
// unit and rows of a loaded trace), else O(activations + cells) (one exact
// histogram of cells);
// geometry and selection are O(1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recorder/store/run_time_bins.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

struct HeatmapCell {
  int column = 0;
  int row = 0;
  friend bool operator==(const HeatmapCell&, const HeatmapCell&) = default;
};

struct HeatmapRange {
  TimeNs t0 = 0;
  TimeNs t1 = 0;
  friend bool operator==(const HeatmapRange&, const HeatmapRange&) = default;
};

class SubsecondHeatmap {
 public:
  // The choice is the store's (recorder/store/run_time_bins.hpp), which
  // keeps the cells of that default: the import stores them.
  static constexpr int kRows = kSubsecondRows;
  static constexpr TimeNs kSecond = kSubsecondSecond;
  static constexpr TimeNs kMinUnit = kSubsecondMinUnit;  // 1 µs: cells of 20 ns
  static constexpr TimeNs kMinColumns = kSubsecondMinColumns;
  // Memory is bounded by these, never by the trace's span: at most
  // kMaxCells cells (8 bytes each), and choose_unit() gives at most
  // kMaxColumns columns (kRows rows each).
  static constexpr std::size_t kMaxCells = kSubsecondMaxCells;
  static constexpr TimeNs kMaxColumns = kSubsecondMaxColumns;

  SubsecondHeatmap() = default;
  // The unit chosen by choose_unit() for the trace's span. The cells come
  // from those the import stored (data.subsecond) when the load read them
  // and they are cut as this map's; else from the activations.
  [[nodiscard]] static SubsecondHeatmap build(const TimelineData& data);
  // An explicit unit (a multiple of `rows`, > 0) and row count (1 to
  // kMaxCells). A unit that would make more than kMaxCells cells is raised
  // to the least multiple of `rows` that makes at most that many.
  [[nodiscard]] static SubsecondHeatmap build(const TimelineData& data, TimeNs unit, int rows);
  // The largest power of ten ns from 1 s down to 1 µs that `span` covers
  // at least kMinColumns times (1 µs when none does); for a span longer
  // than kMaxColumns seconds, the least of 10 s, 100 s, ... that it covers
  // at most kMaxColumns times.
  [[nodiscard]] static TimeNs choose_unit(TimeNs span);

  [[nodiscard]] TimeNs first_time() const { return first_; }
  [[nodiscard]] TimeNs end_time() const { return end_; }
  [[nodiscard]] TimeNs unit_ns() const { return unit_; }
  [[nodiscard]] TimeNs cell_ns() const { return unit_ / rows_; }
  [[nodiscard]] int columns() const { return columns_; }
  [[nodiscard]] int rows() const { return rows_; }
  [[nodiscard]] bool empty() const { return columns_ == 0; }
  // Seconds as FlameScope has them, or a smaller unit for a short trace.
  [[nodiscard]] bool is_subsecond() const { return unit_ < kSecond; }

  // Run time in the cell, ns; 0 outside the grid.
  [[nodiscard]] std::int64_t run_ns(HeatmapCell cell) const;
  // run_ns over the cell's length, in [0, 1] for a cooperative trace.
  [[nodiscard]] double busy(HeatmapCell cell) const;
  // run_ns over the busiest cell's, in [0, 1]: the colour scale.
  [[nodiscard]] double level(HeatmapCell cell) const;
  [[nodiscard]] std::int64_t max_run_ns() const { return max_; }

  // The cell's time range [t0, t1) (not clamped to the trace).
  [[nodiscard]] HeatmapRange cell_range(HeatmapCell cell) const;
  // The cell holding time t; nullopt outside [first, first + columns * unit).
  [[nodiscard]] std::optional<HeatmapCell> cell_at_time(double t) const;
  // A drag from cell `a` to cell `b`: from the earlier cell's start to the
  // later cell's end, clamped to [first_time, end_time].
  [[nodiscard]] HeatmapRange selection(HeatmapCell a, HeatmapCell b) const;
  // Whether the cell lies in [t0, t1) (for drawing a selection).
  [[nodiscard]] bool cell_in(HeatmapCell cell, HeatmapRange range) const;

  // "columns of 1 s, rows of 20 ms: offset within the second", or, for a
  // short trace, "trace shorter than 5 s: columns of 100 ms, rows of 2 ms
  // (offset within the column)".
  [[nodiscard]] std::string caption() const;

 private:
  // build() with `stored` cells to take when they are cut as this map's.
  [[nodiscard]] static SubsecondHeatmap build(const TimelineData& data, TimeNs unit, int rows,
                                              const std::optional<StoredActivity>& stored);
  TimeNs first_ = 0;
  TimeNs end_ = 0;
  TimeNs unit_ = kSecond;
  int rows_ = kRows;
  int columns_ = 0;
  std::int64_t max_ = 0;
  std::vector<std::int64_t> cells_;  // column-major: cells_[column * rows + row], in time order
};

// Where the grid goes in a widget: cells of cell_w x cell_h from (left, top).
struct HeatmapGeometry {
  double left = 0;
  double top = 0;
  double cell_w = 0;
  double cell_h = 0;
  int columns = 0;
  int rows = 0;

  // The grid filling [left, left + width) x [top, top + height).
  [[nodiscard]] static HeatmapGeometry fit(const SubsecondHeatmap& map, double left, double top, double width,
                                           double height);
  [[nodiscard]] double x_of(int column) const { return left + column * cell_w; }
  [[nodiscard]] double y_of(int row) const { return top + row * cell_h; }
  // The cell under (x, y); nullopt outside the grid.
  [[nodiscard]] std::optional<HeatmapCell> cell_at(double x, double y) const;
  // The nearest cell to (x, y), for drags that leave the grid.
  [[nodiscard]] HeatmapCell nearest_cell(double x, double y) const;
};

}  // namespace skein
