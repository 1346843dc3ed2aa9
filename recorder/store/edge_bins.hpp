// edge_bins.hpp — how many edges (the records the timeline draws as
// arrows: spawn, wait, read, notify and resolve, with a time) fall in each
// time bin, at a few levels: what a frame at a wide zoom needs for its
// density strip, and to find the few columns sparse enough for their
// arrows, without reading every record. The import counts them as it
// parses (`edge_bins`, SCHEMA.md); the timeline reads them by window.
//
// Bins: at shift s a bin is 2^s ns, and bin b is [origin + b * 2^s,
// origin + (b + 1) * 2^s), where the origin is the first edge's time (meta
// `edge_bins_origin`); a time before it (a clock that went back) has a
// negative bin. Powers of two nest: bin b at shift s + 1 is bins 2b and
// 2b + 1 at shift s, so the counter keeps only the finest and the coarser
// levels are sums.
//
// Counting (EdgeBinCounter): one array of counts from the origin on and
// one before it, at the finest shift that keeps each under
// kEdgeBinsFinestLimit bins; a time past that doubles the bins (pairs
// merged). One shift and one increment an edge.
//
// Which levels are stored (meta `edge_bins_finest` and
// `edge_bins_coarsest`, every shift between them):
//   - the finest is the first, from the counter's, whose bins with an edge
//     number at most one in kEdgesPerStoredBin of the edges: any finer and
//     a window's bins would cost about what its records do;
//   - the coarsest is the first from there whose bins, first to last, are
//     at most kEdgeBinsCoarsestSpan (a frame wider than that reads them
//     all and adds them up);
//   - none when no level is sparse enough (fewer than kEdgesPerStoredBin
//     edges): a frame reads so few edges one by one.
// Only bins with an edge have a row. A frame of p ns a pixel reads the
// coarsest stored shift with 2^s <= p: each column then holds a whole bin
// or more, and a window of w columns at most 2w bins, or
// kEdgeBinsCoarsestSpan.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

inline constexpr std::size_t kEdgeBinsFinestLimit = std::size_t{1} << 20;
inline constexpr std::uint64_t kEdgesPerStoredBin = 64;
inline constexpr std::int64_t kEdgeBinsCoarsestSpan = 4096;

// Whether a record of this head, with a time, is an edge the timeline
// draws (viewer/timeline/timeline_data.cpp reads exactly these).
[[nodiscard]] constexpr bool is_edge_head(RecordHead head) {
  switch (head) {
    case RecordHead::spawn:
    case RecordHead::wait:
    case RecordHead::read:
    case RecordHead::notify:
    case RecordHead::resolve: return true;
    default: return false;
  }
}

struct EdgeBin {
  std::int64_t bin = 0;
  std::int64_t count = 0;
  friend bool operator==(const EdgeBin&, const EdgeBin&) = default;
};
struct EdgeBinLevel {
  int shift = 0;
  std::vector<EdgeBin> bins;  // by bin, each with a count of at least 1
};
struct EdgeBins {
  TimeNs origin = 0;
  std::uint64_t edges = 0;
  std::vector<EdgeBinLevel> levels;  // finest first, shifts consecutive; empty: none stored
};

class EdgeBinCounter {
 public:
  // Times within record.hpp's limits ([0, kMaxTime]).
  void add(TimeNs t) {
    if (edges_++ == 0) origin_ = t;
    const TimeNs d = t - origin_;
    if (d >= 0) {
      count(after_, static_cast<std::uint64_t>(d));
    } else {
      count(before_, static_cast<std::uint64_t>(-1 - d));
    }
  }
  [[nodiscard]] std::uint64_t edges() const { return edges_; }
  [[nodiscard]] int finest_shift() const { return shift_; }
  // The levels to store (above).
  [[nodiscard]] EdgeBins finish() const;

 private:
  // after_[i] is bin i; before_[i] is bin -1 - i: at shift s, a time d ns
  // before the origin (d > 0) is in bin floor(-d / 2^s) = -1 - ((d - 1) >> s).
  void count(std::vector<std::uint64_t>& side, std::uint64_t offset) {
    std::uint64_t i = offset >> shift_;
    while (i >= kEdgeBinsFinestLimit) {
      coarsen();
      i = offset >> shift_;
    }
    if (i >= side.size()) side.resize(static_cast<std::size_t>(i) + 1);
    ++side[static_cast<std::size_t>(i)];
  }
  void coarsen();

  TimeNs origin_ = 0;
  int shift_ = 0;
  std::uint64_t edges_ = 0;
  std::vector<std::uint64_t> after_;
  std::vector<std::uint64_t> before_;
};

// Writes a fresh edge_bins (kEdgeBinsTable, derived_tables.hpp) and its
// meta keys inside the caller's transaction; with no level, an empty table
// and the origin alone (so a reader knows the edges are few, not
// uncounted).
[[nodiscard]] Status write_edge_bins(SqliteDatabase& db, const EdgeBins& bins);

// The stored levels of one database, and their reading by window.
class EdgeBinReader {
 public:
  // nullopt when the database has no edge_bins of ours or no origin for it
  // (an older Skein's); an error when its meta keys are out of range.
  [[nodiscard]] static Result<std::optional<EdgeBinReader>> open(SqliteDatabase& db);

  [[nodiscard]] TimeNs origin() const { return origin_; }
  // Whether any level is stored (none: the edges are fewer than
  // kEdgesPerStoredBin).
  [[nodiscard]] bool empty() const { return finest_ > coarsest_; }
  [[nodiscard]] int finest() const { return finest_; }
  [[nodiscard]] int coarsest() const { return coarsest_; }
  // The coarsest stored shift whose bins are at most `ns_per_px` ns;
  // nullopt when even the finest is wider (read the window's edges one by
  // one) or none is stored.
  [[nodiscard]] std::optional<int> shift_for(double ns_per_px) const;
  // The bin of time t at `shift`, and where a bin starts.
  [[nodiscard]] std::int64_t bin_of(TimeNs t, int shift) const;
  [[nodiscard]] TimeNs bin_start(std::int64_t bin, int shift) const;
  // The bins with an edge at `shift` (a stored one) that meet [from, to],
  // by bin. A row that is not two integers, or a count below 1, fails
  // naming it.
  [[nodiscard]] Result<std::vector<EdgeBin>> read(int shift, TimeNs from, TimeNs to) const;

 private:
  EdgeBinReader(SqliteDatabase& db, TimeNs origin, int finest, int coarsest)
      : db_(&db), origin_(origin), finest_(finest), coarsest_(coarsest) {}
  SqliteDatabase* db_;
  TimeNs origin_;
  int finest_;
  int coarsest_;
};

}  // namespace skein
