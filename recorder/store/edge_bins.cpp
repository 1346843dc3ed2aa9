// edge_bins.cpp — counting the edges per bin at every level in one pass
// over their times, and the table (edge_bins.hpp).
#include "recorder/store/edge_bins.hpp"

#include <algorithm>
#include <array>

#include "recorder/store/bulk_insert.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/row_spans.hpp"

namespace skein {

void EdgeTimeLog::add(TimeNs t) {
  put_varint(bytes_, zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(t) -
                                                      static_cast<std::uint64_t>(previous_))));
  previous_ = t;
  ++count_;
}

namespace {

// Floor division: a time before the origin has a negative bin.
std::int64_t bin_of(TimeNs t, TimeNs origin, TimeNs bucket) {
  const TimeNs d = t - origin;  // both within the format's limits
  return d >= 0 ? d / bucket : -((-d + bucket - 1) / bucket);
}

}  // namespace

std::vector<EdgeBinLevel> build_edge_bins(const EdgeTimeLog& times, TimeNs origin, TimeNs span) {
  std::vector<EdgeBinLevel> out;
  if (times.size() == 0) return out;
  constexpr int kFinest = 1;
  constexpr int kLevels = kRowSpanLevels - kFinest;  // levels 1 to 6
  std::array<TimeNs, kLevels> bucket{};
  std::array<EdgeBinLevel, kLevels> levels;
  for (int k = 0; k < kLevels; ++k) {
    levels[static_cast<std::size_t>(k)].level = k + kFinest;
    bucket[static_cast<std::size_t>(k)] = row_span_bucket(span, k + kFinest);
  }
  // Times come mostly in order: a bin's edges are then consecutive, and
  // counted as a run; a time that went back starts a run of its own,
  // merged below.
  bool ordered = true;
  times.for_each([&](TimeNs t) {
    for (std::size_t k = 0; k < static_cast<std::size_t>(kLevels); ++k) {
      std::vector<EdgeBin>& bins = levels[k].bins;
      const std::int64_t b = bin_of(t, origin, bucket[k]);
      if (!bins.empty() && bins.back().bin == b) {
        ++bins.back().count;
        continue;
      }
      if (!bins.empty() && b < bins.back().bin) ordered = false;
      bins.push_back(EdgeBin{b, 1});
    }
  });
  for (EdgeBinLevel& level : levels) {
    if (!ordered) {
      std::sort(level.bins.begin(), level.bins.end(),
                [](const EdgeBin& a, const EdgeBin& b) { return a.bin < b.bin; });
      std::vector<EdgeBin> merged;
      for (const EdgeBin& b : level.bins) {
        if (!merged.empty() && merged.back().bin == b.bin)
          merged.back().count += b.count;
        else
          merged.push_back(b);
      }
      level.bins = std::move(merged);
    }
  }
  // Coarsest first: level 6 always, finer ones while sparse enough.
  for (int k = kLevels - 1; k >= 0; --k) {
    EdgeBinLevel& level = levels[static_cast<std::size_t>(k)];
    if (k < kLevels - 1 && level.bins.size() * kEdgeBinsSparseness > times.size()) break;
    out.push_back(std::move(level));
  }
  return out;
}

Status write_edge_bins(SqliteDatabase& db, const std::vector<EdgeBinLevel>& levels) {
  if (Status s = replace_derived_rows(db, kEdgeBinsTable); !s.ok()) return s;
  auto insert = BulkInsert::prepare(db, "edge_bins(level, bin, count)", 3);
  if (!insert) return insert.error();
  for (const EdgeBinLevel& level : levels) {
    const std::int64_t k = level.level;
    if (Status s = insert.value().insert(std::span<const EdgeBin>(level.bins),
                                         [k](SqliteStatement& q, int p, const EdgeBin& b) {
                                           q.bind(p, k);
                                           q.bind(p + 1, b.bin);
                                           q.bind(p + 2, b.count);
                                         });
        !s.ok())
      return s;
  }
  return {};
}

Result<std::optional<std::vector<EdgeBin>>> read_edge_bins(SqliteDatabase& db, int level,
                                                           std::int64_t first, std::int64_t last) {
  using Bins = std::optional<std::vector<EdgeBin>>;
  if (!defines_derived_table(db, kEdgeBinsTable)) return Bins();
  {
    auto has = db.prepare("SELECT 1 FROM edge_bins WHERE level = ?1 LIMIT 1");
    if (!has) return has.error();
    has.value().bind(1, static_cast<std::int64_t>(level));
    auto row = has.value().step();
    if (!row) return row.error();
    if (!row.value()) return Bins();
  }
  auto q = db.prepare(
      "SELECT bin, count FROM edge_bins WHERE level = ?1 AND bin BETWEEN ?2 AND ?3 ORDER BY bin");
  if (!q) return q.error();
  q.value().bind(1, static_cast<std::int64_t>(level));
  q.value().bind(2, first);
  q.value().bind(3, last);
  std::vector<EdgeBin> bins;
  Status failed;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    if (row.storage(0) != SqliteStatement::Storage::integer ||
        row.storage(1) != SqliteStatement::Storage::integer || row.int64(1) < 1) {
      failed =
          file_error(db.name(), "damaged Skein database: edge_bins row (" + std::to_string(level) +
                                    ", " + row.quoted(0) + "): count " + row.quoted(1));
      return false;
    }
    bins.push_back(EdgeBin{row.int64(0), row.int64(1)});
    return true;
  });
  if (!walked.ok()) return walked.error();
  if (!failed.ok()) return failed.error();
  return Bins(std::move(bins));
}

}  // namespace skein
