// row_spans.hpp — each timeline row's lines and running spans, in row order
// and at levels of detail: what a frame draws of one row in a time window,
// read as a few packed chunks instead of the row's threads and activations
// one by one, and for a busy row at a wide zoom, instead of all of them.
// The import builds the table (`row_spans`, SCHEMA.md) from the threads,
// their rows (thread_layout.hpp) and the activations; the timeline reads
// it by row and window.
//
// Two layers a row:
//   - running: the row's activations as the timeline places them (in start
//     order, each clipped to start no earlier than the one before ends, so
//     they are sorted and disjoint; viewer/timeline/timeline_data.hpp);
//   - lines: the row's threads, created to resolved (to the trace's end
//     while pending), by start;
// and two rows below 0 for the bands drawn across every row (idle and gc),
// as runs on the running layer.
// Level 0 holds each one exactly, with its thread. A coarser level k has a
// bucket of row_span_bucket(span, k) ns and holds:
//   - runs: the items merged wherever the gap between them is shorter than
//     the bucket, with no thread;
//   - on the lines layer, the threads kept whole: those at least
//     kWholeThreadBuckets buckets long, and every pending one; and for the
//     short failed threads merged into runs, the first and the last failed
//     end in each bucket (failure marks).
// Why runs draw the same picture: at a zoom of p ns a pixel with bucket
// b <= p, two items merged had a gap under a pixel, so no pixel column lies
// wholly between them: the columns the run covers are exactly those its
// members cover (the painter marks a column for any part of an item in it,
// render/timeline_painter.cpp). A thread wide enough for a label (36 px,
// at least 36 b ns) is kept whole, so it keeps its text. The failure bars
// too: the painter draws one in each column that holds a failed end, and a
// bucket meets at most two columns, so a column holds a failed end of a
// bucket exactly when it holds the bucket's first (the bucket straddles
// its right edge, or lies within it) or its last (the bucket straddles
// its left edge, or the window's).
//
// Invariants of the table (row_spans_test.cpp checks each against a brute
// force):
//   - per (row, layer, level), chunks numbered by `seq` from 0, each of at
//     most kRowSpanChunkEntries entries in start order; `start` is the
//     first entry's start and `reach` the latest end of any entry up to
//     the chunk's last: both rise with seq, so the chunks meeting [a, b]
//     are those from the first whose reach is >= a, until one starts
//     after b;
//   - level 0 exists for every row with a thread or an activation; a level
//     k > 0 exists only where the last one stored below it held more than
//     kRowSpanSmallRow entries and k has fewer than three quarters of them.
// A chunk's blob, for each entry: varint(start - previous start; the first
// entry's is its difference from the chunk's `start`, 0), varint(end -
// start), varint(zigzag(thread - previous thread) << 4 | outcome << 2 |
// kind), with the previous thread 0 at a chunk's start and left as it was
// by a run.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/run_time_bins.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "recorder/store/varint.hpp"

namespace skein {

enum class RowSpanLayer : std::uint8_t { running = 0, lines = 1 };
enum class RowSpanKind : std::uint8_t { item = 0, run = 1, failure = 2 };
// A line item's outcome, numbered as the timeline's ThreadOutcome.
enum class RowSpanOutcome : std::uint8_t { ok = 0, fail = 1, cancel = 2, pending = 3 };

inline constexpr int kRowSpanLevels = 7;  // 0, exact; 1 to 6, coarser by 4 each
inline constexpr std::size_t kRowSpanChunkEntries = 128;
inline constexpr std::size_t kRowSpanSmallRow = 1024;
inline constexpr TimeNs kWholeThreadBuckets = 32;

// The bucket of level k for a trace `span` ns long: 0 (exact) for level 0;
// else span / 4^(12 - k), rounded up, at least 1: level 6 is 4,096 buckets
// across the trace, a whole-trace frame's pixels at most.
[[nodiscard]] TimeNs row_span_bucket(TimeNs span, int level);
// The coarsest level whose bucket is at most `ns_per_px` (0 when none).
[[nodiscard]] int row_span_level_for(TimeNs span, double ns_per_px);

struct RowSpan {
  TimeNs start = 0;
  TimeNs end = 0;
  ThreadId thread = 0;  // item and failure; 0 for a run
  RowSpanKind kind = RowSpanKind::item;
  RowSpanOutcome outcome = RowSpanOutcome::ok;  // lines' items and failures; ok otherwise
  friend bool operator==(const RowSpan&, const RowSpan&) = default;
};

// The table is kRowSpansTable (derived_tables.hpp).

// The import's input: every thread with its row, and the activations in
// the order the store numbers them (start order).
struct RowSpanThread {
  ThreadId id = 0;
  TimeNs start = 0;
  TimeNs end = 0;  // at least start
  std::int32_t row = 0;
  RowSpanOutcome outcome = RowSpanOutcome::ok;
};
struct RowSpanActivation {
  ThreadId thread = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};
// The activations as the import keeps them until the threads are placed:
// packed, about 6 bytes each instead of 24 (each a varint of its start
// less the previous one's, zigzagged; of its end less its start,
// zigzagged, as an end before the start is kept as given; and of its
// thread less the previous one's, zigzagged).
class ActivationLog {
 public:
  void add(ThreadId thread, TimeNs start, TimeNs end) {
    put_varint(bytes_, zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(start) -
                                                        static_cast<std::uint64_t>(previous_start_))));
    put_varint(bytes_, zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(end) -
                                                        static_cast<std::uint64_t>(start))));
    put_varint(bytes_, zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(thread) -
                                                        static_cast<std::uint64_t>(previous_thread_))));
    previous_start_ = start;
    previous_thread_ = thread;
    ++count_;
  }
  [[nodiscard]] std::size_t size() const { return count_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_.size(); }
  // Calls fn(thread, start, end) for each, in the order added.
  template <class Fn>
  void for_each(Fn&& fn) const {
    std::size_t at = 0;
    TimeNs start = 0;
    ThreadId thread = 0;
    for (std::size_t i = 0; i < count_; ++i) {
      std::uint64_t d = 0, length = 0, t = 0;
      // Written by add(): every varint is whole.
      (void)read_varint(bytes_, at, d);
      (void)read_varint(bytes_, at, length);
      (void)read_varint(bytes_, at, t);
      start = static_cast<TimeNs>(static_cast<std::uint64_t>(start) + static_cast<std::uint64_t>(unzigzag(d)));
      thread =
          static_cast<ThreadId>(static_cast<std::uint64_t>(thread) + static_cast<std::uint64_t>(unzigzag(t)));
      fn(thread, start,
         static_cast<TimeNs>(static_cast<std::uint64_t>(start) + static_cast<std::uint64_t>(unzigzag(length))));
    }
  }

 private:
  std::string bytes_;
  std::size_t count_ = 0;
  TimeNs previous_start_ = 0;
  ThreadId previous_thread_ = 0;
};

struct RowSpanChunk {
  std::int32_t row = 0;
  RowSpanLayer layer = RowSpanLayer::running;
  std::int32_t level = 0;
  std::int64_t seq = 0;
  TimeNs start = 0;
  TimeNs reach = 0;
  std::int64_t count = 0;
  std::string spans;
};

// One row's layer at one level, before chunking: exposed for the tests.
[[nodiscard]] std::vector<RowSpan> row_span_level(const std::vector<RowSpan>& exact,
                                                  RowSpanLayer layer, TimeNs bucket);

// Every chunk of the table, by (row, layer, level, seq). `threads` in any
// order; an activation of a thread not among them is left out. Each row's
// activations, as placed, are also added to each of `histograms`.
[[nodiscard]] std::vector<RowSpanChunk> build_row_spans(const std::vector<RowSpanThread>& threads,
                                                        const ActivationLog& activations, TimeNs span,
                                                        std::span<RunTimeHistogram> histograms = {});
[[nodiscard]] std::vector<RowSpanChunk> build_row_spans(const std::vector<RowSpanThread>& threads,
                                                        const std::vector<RowSpanActivation>& activations,
                                                        TimeNs span, std::span<RunTimeHistogram> histograms = {});

// Rows below 0 hold the trace's bands, drawn across every row, as runs on
// the running layer: kIdleBandRow the idle bands, kGcBandRow the gc ones.
inline constexpr std::int32_t kIdleBandRow = -1;
inline constexpr std::int32_t kGcBandRow = -2;
struct RowSpanBand {
  TimeNs start = 0;
  TimeNs end = 0;
  friend bool operator==(const RowSpanBand&, const RowSpanBand&) = default;
};
// The idle bands: each from an idle record's time until the next
// activation start after it (or `end_time`), overlapping ones merged.
// Sorts both inputs. The timeline's (viewer/timeline/timeline_data.hpp,
// derive_idle) and the import's.
[[nodiscard]] std::vector<RowSpanBand> idle_bands(std::vector<TimeNs>& activation_starts,
                                                  std::vector<TimeNs>& idle_starts,
                                                  TimeNs end_time);
// The chunks of the bands' rows, appended to `out`: the idle bands in
// start order, and the gc pauses in any order, which row kGcBandRow holds
// by start with those that overlap merged.
void build_band_spans(const std::vector<RowSpanBand>& idle, const std::vector<RowSpanBand>& gc,
                      TimeNs span, std::vector<RowSpanChunk>& out);

// Writes `chunks` into a fresh row_spans and meta's span, inside the
// caller's transaction.
[[nodiscard]] Status write_row_spans(SqliteDatabase& db, const std::vector<RowSpanChunk>& chunks,
                                     TimeNs span);

struct RowSpanRead {
  int level = 0;
  TimeNs bucket = 0;
  std::vector<RowSpan> spans;  // by start; those of the chunks that meet the window
};

// Reads a row's layer as a frame of [from, to] at `ns_per_px` draws it:
// from the coarsest level stored for the row whose bucket is at most
// ns_per_px. Holds its prepared statements; one per connection and thread.
class RowSpanReader {
 public:
  // nullopt when the database has no row_spans of ours (an older Skein's,
  // or a user's table of that name) or no span in meta.
  [[nodiscard]] static Result<std::optional<RowSpanReader>> open(SqliteDatabase& db);

  // A damaged chunk fails naming it and the byte.
  [[nodiscard]] Result<RowSpanRead> read(std::int32_t row, RowSpanLayer layer, TimeNs from,
                                         TimeNs to, double ns_per_px);
  [[nodiscard]] TimeNs span() const { return span_; }

 private:
  RowSpanReader(std::string database, SqliteStatement level, SqliteStatement chunks, TimeNs span)
      : database_(std::move(database)),
        level_(std::move(level)),
        chunks_(std::move(chunks)),
        span_(span) {}
  std::string database_;
  SqliteStatement level_;
  SqliteStatement chunks_;
  TimeNs span_ = 0;
};

// One chunk's entries, checked: what read() decodes (for the tests and the
// database fuzzer). `place` names the chunk in messages.
[[nodiscard]] Status decode_row_span_chunk(std::string_view blob, std::int64_t count, TimeNs start,
                                           const std::string& database, const std::string& place,
                                           std::vector<RowSpan>& out);

}  // namespace skein
