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

Status write_activity_bins(SqliteDatabase& db, const ActivityBinning& binning,
                           const std::vector<std::int64_t>& run_ns) {
  if (Status s = replace_derived_rows(db, kActivityBinsTable); !s.ok()) return s;
  if (Status s = write_meta_int(db, kActivityBinNsKey, binning.bin_ns); !s.ok()) return s;
  struct Bin {
    std::int64_t bin;
    std::int64_t run_ns;
  };
  std::vector<Bin> bins;
  for (std::size_t k = 0; k < run_ns.size(); ++k)
    if (run_ns[k] != 0) bins.push_back(Bin{static_cast<std::int64_t>(k), run_ns[k]});
  auto insert = RowidBulkInsert::prepare(db, "activity_bins", "bin", "(run_ns)", 1);
  if (!insert) return insert.error();
  return insert.value().insert(
      std::span<const Bin>(bins), [](const Bin& b) { return b.bin; },
      [](SqliteStatement& q, int p, const Bin& b) { q.bind(p, b.run_ns); });
}

Result<std::optional<StoredActivity>> read_activity_bins(SqliteDatabase& db, TimeNs first_time,
                                                         TimeNs end_time, std::int64_t rows) {
  if (!defines_derived_table(db, kActivityBinsTable)) return std::optional<StoredActivity>();
  StoredActivity out;
  out.binning = activity_binning(first_time, end_time);
  if (read_meta_int(db, kActivityBinNsKey) != out.binning.bin_ns) return std::optional<StoredActivity>();
  out.run_ns.assign(out.binning.bins, 0);
  auto q = db.prepare("SELECT bin, run_ns FROM activity_bins ORDER BY bin");
  if (!q) return q.error();
  const TimeNs most = saturating_mul(out.binning.bin_ns, std::max<std::int64_t>(rows, 0));
  Status failed;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    const bool ints = row.storage(0) == SqliteStatement::Storage::integer &&
                      row.storage(1) == SqliteStatement::Storage::integer;
    const std::int64_t bin = ints ? row.int64(0) : -1;
    const std::int64_t run = ints ? row.int64(1) : -1;
    if (bin < 0 || static_cast<std::uint64_t>(bin) >= out.binning.bins || run < 0 || run > most) {
      failed = file_error(db.name(), "damaged Skein database: activity_bins row " + row.quoted(0) +
                                         ": run time " + row.quoted(1) + " in a bin of " +
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

}  // namespace skein
