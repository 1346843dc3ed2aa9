// run_time_bins.cpp — the exact run-time histogram and its table
// (run_time_bins.hpp).
#include "recorder/store/run_time_bins.hpp"

#include <algorithm>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/bulk_insert.hpp"
#include "recorder/store/derived_tables.hpp"

namespace skein {

RunTimeHistogram::RunTimeHistogram(TimeNs origin, TimeNs bin_ns, std::size_t bins) {
  // Defensive: an origin outside the format's limits would let s - origin
  // below overflow.
  if (bins == 0 || bin_ns <= 0 || !is_valid_time(origin)) return;
  origin_ = origin;
  bin_ns_ = bin_ns;
  // Saturating: bins past INT64_MAX lie beyond every activation anyway.
  limit_ = saturating_add(origin, saturating_mul(static_cast<TimeNs>(bins), bin_ns));
  hist_.assign(bins, 0);
  full_.assign(bins + 1, 0);
}

void RunTimeHistogram::add(TimeNs start, TimeNs end) {
  if (hist_.empty()) return;
  const TimeNs s = std::max(start, origin_);
  const TimeNs e = std::min(end, limit_);
  if (e <= s) return;
  const auto b0 = static_cast<std::size_t>((s - origin_) / bin_ns_);
  const auto b1 = static_cast<std::size_t>((e - 1 - origin_) / bin_ns_);  // the bin of the last ns
  // s - origin < bins * bin_ns: the bin edges below are within [origin, limit].
  if (b0 == b1) {
    hist_[b0] = saturating_add(hist_[b0], e - s);
    return;
  }
  hist_[b0] = saturating_add(hist_[b0], origin_ + static_cast<TimeNs>(b0 + 1) * bin_ns_ - s);
  hist_[b1] = saturating_add(hist_[b1], e - (origin_ + static_cast<TimeNs>(b1) * bin_ns_));
  full_[b0 + 1] += 1;
  full_[b1] -= 1;
}

std::vector<std::int64_t> RunTimeHistogram::finish() {
  std::int64_t covering = 0;
  for (std::size_t k = 0; k < hist_.size(); ++k) {
    covering += full_[k];
    hist_[k] = saturating_add(hist_[k], saturating_mul(covering, bin_ns_));
  }
  full_.clear();
  return std::move(hist_);
}

ActivityBinning activity_binning(TimeNs first_time, TimeNs end_time) {
  ActivityBinning b;
  // Within record.hpp's limits: then span + kActivityMaxBins and every bin
  // edge fit in 64 bits.
  b.first = std::clamp(first_time, TimeNs{0}, kMaxTime);
  b.end = std::clamp(end_time, b.first, kMaxTime);
  const TimeNs span = b.end - b.first;
  if (span <= 0) return b;
  const auto max_bins = static_cast<TimeNs>(kActivityMaxBins);
  b.bin_ns = (span + max_bins - 1) / max_bins;
  b.bins = static_cast<std::size_t>((span + b.bin_ns - 1) / b.bin_ns);
  return b;
}

TimeNs subsecond_unit(TimeNs span) {
  // ceil(span / unit) for span >= 0, unit > 0, with no overflow.
  const auto columns_for = [](TimeNs s, TimeNs unit) { return s <= 0 ? 0 : (s - 1) / unit + 1; };
  TimeNs unit = kSubsecondSecond;
  while (columns_for(span, unit) > kSubsecondMaxColumns) unit *= 10;
  while (unit > kSubsecondMinUnit && span < kSubsecondMinColumns * unit) unit /= 10;
  return unit;
}

ActivityBinning subsecond_binning(TimeNs first_time, TimeNs end_time) {
  ActivityBinning b;
  b.first = std::clamp(first_time, TimeNs{0}, kMaxTime);
  b.end = std::clamp(end_time, b.first, kMaxTime);
  const TimeNs span = b.end - b.first;
  const TimeNs unit = subsecond_unit(span);
  b.bin_ns = unit / kSubsecondRows;
  if (span <= 0) return b;
  // Whole columns covering the span: the last one may reach past the end.
  const TimeNs columns = (span - 1) / unit + 1;
  b.bins = static_cast<std::size_t>(columns) * static_cast<std::size_t>(kSubsecondRows);
  return b;
}

namespace {

// One stored histogram: its table, meta's key for its width, its binning.
struct StoredBins {
  const DerivedTable& table;
  std::string_view bin_ns_key;
  ActivityBinning (*binning)(TimeNs, TimeNs);
};
const StoredBins kActivity{kActivityBinsTable, kActivityBinNsKey, activity_binning};
const StoredBins kSubsecond{kSubsecondBinsTable, kSubsecondBinNsKey, subsecond_binning};

Status write_bins(SqliteDatabase& db, const StoredBins& which, const ActivityBinning& binning,
                  const std::vector<std::int64_t>& run_ns) {
  if (Status s = replace_derived_rows(db, which.table); !s.ok()) return s;
  if (Status s = write_meta_int(db, which.bin_ns_key, binning.bin_ns); !s.ok()) return s;
  struct Bin {
    std::int64_t bin;
    std::int64_t run_ns;
  };
  std::vector<Bin> bins;
  for (std::size_t k = 0; k < run_ns.size(); ++k)
    if (run_ns[k] != 0) bins.push_back(Bin{static_cast<std::int64_t>(k), run_ns[k]});
  auto insert = RowidBulkInsert::prepare(db, std::string(which.table.name), "bin", "(run_ns)", 1);
  if (!insert) return insert.error();
  return insert.value().insert(
      std::span<const Bin>(bins), [](const Bin& b) { return b.bin; },
      [](SqliteStatement& q, int p, const Bin& b) { q.bind(p, b.run_ns); });
}

Result<std::optional<StoredActivity>> read_bins(SqliteDatabase& db, const StoredBins& which, TimeNs first_time,
                                                TimeNs end_time, std::int64_t rows) {
  if (!defines_derived_table(db, which.table)) return std::optional<StoredActivity>();
  StoredActivity out;
  out.binning = which.binning(first_time, end_time);
  if (read_meta_int(db, which.bin_ns_key) != out.binning.bin_ns) return std::optional<StoredActivity>();
  out.run_ns.assign(out.binning.bins, 0);
  auto q = db.prepare("SELECT bin, run_ns FROM " + std::string(which.table.name) + " ORDER BY bin");
  if (!q) return q.error();
  const TimeNs most = saturating_mul(out.binning.bin_ns, std::max<std::int64_t>(rows, 0));
  Status failed;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    const bool ints = row.storage(0) == SqliteStatement::Storage::integer &&
                      row.storage(1) == SqliteStatement::Storage::integer;
    const std::int64_t bin = ints ? row.int64(0) : -1;
    const std::int64_t run = ints ? row.int64(1) : -1;
    if (bin < 0 || static_cast<std::uint64_t>(bin) >= out.binning.bins || run < 0 || run > most) {
      failed = file_error(db.name(), "damaged Skein database: " + std::string(which.table.name) + " row " +
                                         row.quoted(0) + ": run time " + row.quoted(1) + " in a bin of " +
                                         std::to_string(out.binning.bin_ns) + " ns, of " +
                                         std::to_string(out.binning.bins) + " bins, on " +
                                         std::to_string(rows) + " rows");
      return false;
    }
    out.run_ns[static_cast<std::size_t>(bin)] = run;
    return true;
  });
  if (!walked.ok()) return walked.error();
  if (!failed.ok()) return failed.error();
  return std::optional<StoredActivity>(std::move(out));
}

}  // namespace

Status write_activity_bins(SqliteDatabase& db, const ActivityBinning& binning,
                           const std::vector<std::int64_t>& run_ns) {
  return write_bins(db, kActivity, binning, run_ns);
}

Result<std::optional<StoredActivity>> read_activity_bins(SqliteDatabase& db, TimeNs first_time,
                                                         TimeNs end_time, std::int64_t rows) {
  return read_bins(db, kActivity, first_time, end_time, rows);
}

Status write_subsecond_bins(SqliteDatabase& db, const ActivityBinning& binning,
                            const std::vector<std::int64_t>& run_ns) {
  return write_bins(db, kSubsecond, binning, run_ns);
}

Result<std::optional<StoredActivity>> read_subsecond_bins(SqliteDatabase& db, TimeNs first_time,
                                                          TimeNs end_time, std::int64_t rows) {
  return read_bins(db, kSubsecond, first_time, end_time, rows);
}

}  // namespace skein
