// run_time_bins.hpp — run time per time bin, exact: the sum over
// activations of their overlap with each bin. One implementation for the
// import, which stores the whole trace's histogram (`activity_bins`,
// SCHEMA.md) so that the viewer's overview strip never walks every
// activation, and for the viewer's own histograms of a loaded trace
// (viewer/timeline/activity_overview.hpp, subsecond_heatmap.hpp).
//
// RunTimeHistogram: bin k is [origin + k * bin_ns, origin + (k + 1) *
// bin_ns); an activation's partial end bins are added directly, the bins it
// covers whole counted in a difference array, so a long one costs O(1);
// finish() sweeps those in. Every sum saturates at INT64_MAX (rows'
// activations overlap only in a damaged or hand-made trace). Activations
// outside [origin, origin + bins * bin_ns) are cut off. Memory is O(bins):
// the caller sizes them.
//
// activity_binning(): the bins of the whole trace: first_time to end_time
// held to record.hpp's limits, bin_ns = ceil(span / kActivityMaxBins), so
// at most kActivityMaxBins bins, every edge within 64 bits. The import
// also stores the subsecond heat map's cells (subsecond_binning()), from
// the same activations.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

class RunTimeHistogram {
 public:
  // Empty (every add ignored) unless bins > 0, bin_ns > 0 and origin a
  // valid time.
  RunTimeHistogram(TimeNs origin, TimeNs bin_ns, std::size_t bins);

  [[nodiscard]] TimeNs origin() const { return origin_; }
  // The end of the last bin (saturated).
  [[nodiscard]] TimeNs limit() const { return limit_; }
  void add(TimeNs start, TimeNs end);
  // The run time of each bin; the histogram is empty after.
  [[nodiscard]] std::vector<std::int64_t> finish();

 private:
  TimeNs origin_ = 0;
  TimeNs bin_ns_ = 1;
  TimeNs limit_ = 0;
  std::vector<std::int64_t> hist_;
  std::vector<std::int64_t> full_;
};

inline constexpr std::size_t kActivityMaxBins = 65536;

struct ActivityBinning {
  TimeNs first = 0;
  TimeNs end = 0;
  TimeNs bin_ns = 1;
  std::size_t bins = 0;  // 0 when the trace spans no time
};
[[nodiscard]] ActivityBinning activity_binning(TimeNs first_time, TimeNs end_time);

// The cells of the subsecond heat map (viewer/timeline/subsecond_heatmap.hpp)
// of a trace of [first_time, end_time]: columns of subsecond_unit(span)
// from first_time, each cut into kSubsecondRows cells of unit / rows ns;
// bin k is cell k in column-major order, so the cells are consecutive in
// time and one histogram fills them. The unit is the largest of 1 s,
// 100 ms, ... 1 µs that the span covers at least kSubsecondMinColumns
// times (1 µs when none does); a span of more than kSubsecondMaxColumns
// seconds gets 10 s, 100 s, ..., the least that it covers at most
// kSubsecondMaxColumns times. So there are at most kSubsecondMaxCells
// cells, whatever the span, and every unit divides by the rows exactly.
inline constexpr int kSubsecondRows = 50;
inline constexpr TimeNs kSubsecondSecond = 1'000'000'000;
inline constexpr TimeNs kSubsecondMinUnit = 1'000;
inline constexpr TimeNs kSubsecondMinColumns = 5;
inline constexpr std::size_t kSubsecondMaxCells = 1'000'000;
inline constexpr TimeNs kSubsecondMaxColumns = static_cast<TimeNs>(kSubsecondMaxCells) / kSubsecondRows;
[[nodiscard]] TimeNs subsecond_unit(TimeNs span);
[[nodiscard]] ActivityBinning subsecond_binning(TimeNs first_time, TimeNs end_time);

// The stored histogram: `activity_bins` (kActivityBinsTable, derived_tables.hpp)
// holds the bins with run time, by number, and meta's `activity_bin_ns`
// their width; the import writes both, inside its transaction.
[[nodiscard]] Status write_activity_bins(SqliteDatabase& db, const ActivityBinning& binning,
                                         const std::vector<std::int64_t>& run_ns);

struct StoredActivity {
  ActivityBinning binning;
  std::vector<std::int64_t> run_ns;  // binning.bins of them
};
// Reads the stored histogram of a trace of [first_time, end_time] (as its
// meta gives them). nullopt when there is none of ours, or when its bin
// width is not the one activity_binning() gives for those times (a table
// of another trace or Skein). A bin out of range, or a run time below 0 or
// past its bin's length times `rows` (no more than every row running
// through it), fails naming the row.
[[nodiscard]] Result<std::optional<StoredActivity>> read_activity_bins(SqliteDatabase& db,
                                                                       TimeNs first_time,
                                                                       TimeNs end_time,
                                                                       std::int64_t rows);

// The same for the heat map's cells: `subsecond_bins` (kSubsecondBinsTable)
// and meta's `subsecond_bin_ns`, cut by subsecond_binning().
[[nodiscard]] Status write_subsecond_bins(SqliteDatabase& db, const ActivityBinning& binning,
                                          const std::vector<std::int64_t>& run_ns);
[[nodiscard]] Result<std::optional<StoredActivity>> read_subsecond_bins(SqliteDatabase& db,
                                                                        TimeNs first_time,
                                                                        TimeNs end_time,
                                                                        std::int64_t rows);

}  // namespace skein
