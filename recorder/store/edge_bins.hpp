// edge_bins.hpp — how many edges (the records the timeline draws as
// arrows: spawn, wait, read, notify, resolve, with a time) fall in each
// time bin, at the coarse levels of the rows' spans (row_spans.hpp): what a
// frame at a wide zoom needs for its density strip, and to find the few
// columns sparse enough for their arrows, without reading every record.
// The import counts them (`edge_bins`, SCHEMA.md).
//
// Bins: level k's bucket is row_span_bucket(span, k), bin b is
// [origin + b * bucket, + bucket), origin the trace's first_time as meta
// gives it; a time before the origin (a clock that went back) has a
// negative bin. Only bins with an edge have a row.
//
// Which levels: level 6 (4,096 buckets across the trace) whenever there is
// an edge; a finer level k only while its bins with an edge number at most
// one in kEdgeBinsSparseness of the edges: past that, reading the records
// of a window costs about as much as its bins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "recorder/store/varint.hpp"

namespace skein {

inline constexpr std::size_t kEdgeBinsSparseness = 8;

// The edges' times as the import keeps them until the end: zigzagged
// varints of each time less the one before, about 1 to 3 bytes each.
class EdgeTimeLog {
 public:
  void add(TimeNs t);
  [[nodiscard]] std::size_t size() const { return count_; }
  // Calls fn(time) for each, in the order added.
  template <class Fn>
  void for_each(Fn&& fn) const;

 private:
  std::string bytes_;
  std::size_t count_ = 0;
  TimeNs previous_ = 0;
};

struct EdgeBin {
  std::int64_t bin = 0;
  std::int64_t count = 0;
  friend bool operator==(const EdgeBin&, const EdgeBin&) = default;
};
struct EdgeBinLevel {
  int level = 0;
  std::vector<EdgeBin> bins;  // by bin, each with a count of at least 1
};

// The levels worth storing, coarsest first.
[[nodiscard]] std::vector<EdgeBinLevel> build_edge_bins(const EdgeTimeLog& times, TimeNs origin,
                                                        TimeNs span);

// Writes a fresh edge_bins (kEdgeBinsTable, derived_tables.hpp) inside the
// caller's transaction.
[[nodiscard]] Status write_edge_bins(SqliteDatabase& db, const std::vector<EdgeBinLevel>& levels);

// The bins of `level` from `first` to `last` (bin numbers), by bin;
// nullopt when the database has no edge_bins of ours or not that level. A
// count below 1 fails naming the row.
[[nodiscard]] Result<std::optional<std::vector<EdgeBin>>> read_edge_bins(SqliteDatabase& db,
                                                                         int level,
                                                                         std::int64_t first,
                                                                         std::int64_t last);

template <class Fn>
void EdgeTimeLog::for_each(Fn&& fn) const {
  std::size_t at = 0;
  TimeNs t = 0;
  for (std::size_t i = 0; i < count_; ++i) {
    std::uint64_t d = 0;
    // Written by add(): every varint is whole.
    (void)read_varint(bytes_, at, d);
    t = static_cast<TimeNs>(static_cast<std::uint64_t>(t) +
                            static_cast<std::uint64_t>(unzigzag(d)));
    fn(t);
  }
}

}  // namespace skein
