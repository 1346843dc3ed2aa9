// edge_bins.cpp — the counter's doubling, the levels chosen from its
// finest bins, and the table's writing and reading (edge_bins.hpp).
#include "recorder/store/edge_bins.hpp"

#include <algorithm>
#include <span>
#include <string>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/bulk_insert.hpp"
#include "recorder/store/derived_tables.hpp"

namespace skein {
namespace {

// Past this shift every time is in bin -1 or 0 (times differ by less than
// 2^62): no coarser level merges anything more.
constexpr int kLastShift = 62;

void halve(std::vector<std::uint64_t>& side) {
  const std::size_t n = (side.size() + 1) / 2;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t second = 2 * i + 1 < side.size() ? side[2 * i + 1] : 0;
    side[i] = side[2 * i] + second;
  }
  side.resize(n);
}

// The next shift's bins: bin b goes to floor(b / 2), which keeps the order.
std::vector<EdgeBin> coarser(const std::vector<EdgeBin>& bins) {
  std::vector<EdgeBin> out;
  out.reserve(bins.size() / 2 + 1);
  for (const EdgeBin& b : bins) {
    const std::int64_t up = b.bin >> 1;  // arithmetic: floor for a negative bin
    if (!out.empty() && out.back().bin == up)
      out.back().count += b.count;
    else
      out.push_back(EdgeBin{up, b.count});
  }
  return out;
}

}  // namespace

void EdgeBinCounter::coarsen() {
  ++shift_;
  halve(after_);
  halve(before_);
}

EdgeBins EdgeBinCounter::finish() const {
  EdgeBins out;
  out.origin = origin_;
  out.edges = edges_;
  if (edges_ == 0) return out;
  std::vector<EdgeBin> level;
  for (std::size_t i = before_.size(); i-- > 0;)
    if (before_[i] != 0) level.push_back(EdgeBin{-1 - static_cast<std::int64_t>(i), static_cast<std::int64_t>(before_[i])});
  for (std::size_t i = 0; i < after_.size(); ++i)
    if (after_[i] != 0) level.push_back(EdgeBin{static_cast<std::int64_t>(i), static_cast<std::int64_t>(after_[i])});
  int shift = shift_;
  while (level.size() * kEdgesPerStoredBin > edges_) {
    if (shift == kLastShift) return out;  // never sparse enough: store none
    level = coarser(level);
    ++shift;
  }
  out.levels.push_back(EdgeBinLevel{shift, level});
  while (shift < kLastShift && level.back().bin - level.front().bin + 1 > kEdgeBinsCoarsestSpan) {
    level = coarser(level);
    ++shift;
    out.levels.push_back(EdgeBinLevel{shift, level});
  }
  return out;
}

Status write_edge_bins(SqliteDatabase& db, const EdgeBins& bins) {
  if (Status s = replace_derived_rows(db, kEdgeBinsTable); !s.ok()) return s;
  if (Status s = write_meta_int(db, kEdgeBinsOriginKey, bins.origin); !s.ok()) return s;
  if (bins.levels.empty()) {
    if (Status s = delete_meta(db, kEdgeBinsFinestKey); !s.ok()) return s;
    return delete_meta(db, kEdgeBinsCoarsestKey);
  }
  if (Status s = write_meta_int(db, kEdgeBinsFinestKey, bins.levels.front().shift); !s.ok()) return s;
  if (Status s = write_meta_int(db, kEdgeBinsCoarsestKey, bins.levels.back().shift); !s.ok()) return s;
  auto insert = BulkInsert::prepare(db, "edge_bins(shift, bin, count)", 3);
  if (!insert) return insert.error();
  for (const EdgeBinLevel& level : bins.levels) {
    const std::int64_t shift = level.shift;
    if (Status s = insert.value().insert(std::span<const EdgeBin>(level.bins),
                                         [shift](SqliteStatement& q, int p, const EdgeBin& b) {
                                           q.bind(p, shift);
                                           q.bind(p + 1, b.bin);
                                           q.bind(p + 2, b.count);
                                         });
        !s.ok())
      return s;
  }
  return {};
}

Result<std::optional<EdgeBinReader>> EdgeBinReader::open(SqliteDatabase& db) {
  using Reader = std::optional<EdgeBinReader>;
  if (!defines_derived_table(db, kEdgeBinsTable)) return Reader();
  const std::optional<std::int64_t> origin = read_meta_int(db, kEdgeBinsOriginKey);
  if (!origin) return Reader();
  const std::optional<std::int64_t> finest = read_meta_int(db, kEdgeBinsFinestKey);
  const std::optional<std::int64_t> coarsest = read_meta_int(db, kEdgeBinsCoarsestKey);
  const bool none = !finest && !coarsest;
  if (!is_valid_time(*origin) ||
      (!none && (!finest || !coarsest || *finest < 0 || *finest > *coarsest || *coarsest > kLastShift)))
    return file_error(db.name(), "damaged Skein database: edge_bins' origin " + std::to_string(*origin) +
                                     " or levels " + (finest ? std::to_string(*finest) : "none") + " to " +
                                     (coarsest ? std::to_string(*coarsest) : "none"));
  if (none) return Reader(EdgeBinReader(db, *origin, 1, 0));
  return Reader(EdgeBinReader(db, *origin, static_cast<int>(*finest), static_cast<int>(*coarsest)));
}

std::optional<int> EdgeBinReader::shift_for(double ns_per_px) const {
  if (empty() || !(ns_per_px >= double(TimeNs{1} << finest_))) return std::nullopt;
  int s = finest_;
  while (s < coarsest_ && double(TimeNs{1} << (s + 1)) <= ns_per_px) ++s;
  return s;
}

std::int64_t EdgeBinReader::bin_of(TimeNs t, int shift) const {
  const TimeNs d = std::clamp<TimeNs>(t, 0, kMaxTime) - origin_;
  return d >> shift;  // arithmetic: floor for a time before the origin
}

TimeNs EdgeBinReader::bin_start(std::int64_t bin, int shift) const {
  return saturating_add(origin_, saturating_mul(bin, TimeNs{1} << shift));
}

Result<std::vector<EdgeBin>> EdgeBinReader::read(int shift, TimeNs from, TimeNs to) const {
  std::vector<EdgeBin> bins;
  if (shift < finest_ || shift > coarsest_ || from > to) return bins;
  auto q = db_->prepare("SELECT bin, count FROM edge_bins WHERE shift = ?1 AND bin BETWEEN ?2 AND ?3 ORDER BY bin");
  if (!q) return q.error();
  q.value().bind(1, static_cast<std::int64_t>(shift));
  q.value().bind(2, bin_of(from, shift));
  q.value().bind(3, bin_of(to, shift));
  Status failed;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    if (row.storage(0) != SqliteStatement::Storage::integer || row.storage(1) != SqliteStatement::Storage::integer ||
        row.int64(1) < 1) {
      failed = file_error(db_->name(), "damaged Skein database: edge_bins row (" + std::to_string(shift) + ", " +
                                           row.quoted(0) + "): count " + row.quoted(1));
      return false;
    }
    bins.push_back(EdgeBin{row.int64(0), row.int64(1)});
    return true;
  });
  if (!walked.ok()) return walked.error();
  if (!failed.ok()) return failed.error();
  return bins;
}

}  // namespace skein
