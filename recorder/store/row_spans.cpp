// row_spans.cpp — building, writing and reading the rows' spans
// (row_spans.hpp). The build groups the items by row with a counting sort,
// which keeps each row's items in the order given (start order), then
// derives the coarser levels of each busy row from its exact items.
#include "recorder/store/row_spans.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <tuple>
#include <unordered_map>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/bulk_insert.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/packed_blob_reader.hpp"
#include "recorder/store/varint.hpp"

namespace skein {

TimeNs row_span_bucket(TimeNs span, int level) {
  if (level <= 0) return 0;
  const int shift = 2 * (12 - std::min(level, kRowSpanLevels - 1));
  const TimeNs buckets = TimeNs{1} << shift;
  const TimeNs s = std::max<TimeNs>(span, 1);
  return std::max<TimeNs>(1, s / buckets + (s % buckets != 0 ? 1 : 0));
}

int row_span_level_for(TimeNs span, double ns_per_px) {
  int level = 0;
  for (int k = 1; k < kRowSpanLevels; ++k)
    if (double(row_span_bucket(span, k)) <= ns_per_px) level = k;
  return level;
}

std::vector<RowSpan> row_span_level(const std::vector<RowSpan>& exact, RowSpanLayer layer,
                                    TimeNs bucket) {
  std::vector<RowSpan> out;
  if (bucket <= 0) return exact;
  std::vector<RowSpan> failures;  // short failed threads' ends, the first and last per bucket
  std::optional<RowSpan> run;
  const auto close_run = [&] {
    if (run) out.push_back(*run);
    run.reset();
  };
  for (const RowSpan& s : exact) {
    const bool whole =
        layer == RowSpanLayer::lines &&
        (s.outcome == RowSpanOutcome::pending || s.end - s.start >= kWholeThreadBuckets * bucket);
    if (whole) {
      out.push_back(s);
      continue;
    }
    if (layer == RowSpanLayer::lines && s.outcome == RowSpanOutcome::fail)
      failures.push_back(
          RowSpan{s.end, s.end, s.thread, RowSpanKind::failure, RowSpanOutcome::fail});
    if (run && s.start - run->end < bucket) {
      run->end = std::max(run->end, s.end);
    } else {
      close_run();
      run = RowSpan{s.start, s.end, 0, RowSpanKind::run, RowSpanOutcome::ok};
    }
  }
  close_run();
  if (!failures.empty()) {
    std::stable_sort(failures.begin(), failures.end(),
                     [](const RowSpan& a, const RowSpan& b) { return a.start < b.start; });
    // The first and the last of each bucket's.
    for (std::size_t i = 0; i < failures.size();) {
      const TimeNs b = failures[i].start / bucket;
      std::size_t j = i + 1;
      while (j < failures.size() && failures[j].start / bucket == b) ++j;
      out.push_back(failures[i]);
      if (j - 1 > i) out.push_back(failures[j - 1]);
      i = j;
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RowSpan& a, const RowSpan& b) { return a.start < b.start; });
  return out;
}

namespace {

// Appends the spans of one (row, layer, level), in start order, as chunks
// of at most kRowSpanChunkEntries.
class ChunkWriter {
 public:
  ChunkWriter(std::int32_t row, RowSpanLayer layer, int level) {
    open_.row = row;
    open_.layer = layer;
    open_.level = level;
  }

  void add(const RowSpan& s, std::vector<RowSpanChunk>& out) {
    if (open_.count == 0) {
      open_.start = s.start;
      previous_start_ = s.start;
      previous_thread_ = 0;
    }
    reach_ = std::max(reach_, s.end);
    put_varint(open_.spans, static_cast<std::uint64_t>(s.start - previous_start_));
    put_varint(open_.spans, static_cast<std::uint64_t>(s.end - s.start));
    const ThreadId thread = s.kind == RowSpanKind::run ? previous_thread_ : s.thread;
    const std::uint64_t delta = zigzag(
        static_cast<std::int64_t>(static_cast<std::uint64_t>(thread) - static_cast<std::uint64_t>(previous_thread_)));
    put_varint(open_.spans,
               (delta << 4) | (static_cast<std::uint64_t>(s.outcome) << 2) | static_cast<std::uint64_t>(s.kind));
    previous_start_ = s.start;
    previous_thread_ = thread;
    ++items_;
    if (++open_.count == static_cast<std::int64_t>(kRowSpanChunkEntries)) finish(out);
  }

  // Closes the chunk being filled, if any.
  void finish(std::vector<RowSpanChunk>& out) {
    if (open_.count == 0) return;
    open_.reach = reach_;
    open_.seq = seq_++;
    out.push_back(std::move(open_));
    RowSpanChunk next;
    next.row = out.back().row;
    next.layer = out.back().layer;
    next.level = out.back().level;
    open_ = std::move(next);
  }

  [[nodiscard]] std::size_t items() const { return items_; }

 private:
  RowSpanChunk open_;
  TimeNs previous_start_ = 0;
  ThreadId previous_thread_ = 0;
  TimeNs reach_ = std::numeric_limits<TimeNs>::min();
  std::int64_t seq_ = 0;
  std::size_t items_ = 0;
};

void chunk_level(std::int32_t row, RowSpanLayer layer, int level, const std::vector<RowSpan>& spans,
                 std::vector<RowSpanChunk>& out) {
  ChunkWriter w(row, layer, level);
  for (const RowSpan& s : spans) w.add(s, out);
  w.finish(out);
}

// The coarser levels worth storing (row_spans.hpp) of a row whose level 0
// holds `exact`.
void chunk_coarser(std::int32_t row, RowSpanLayer layer, const std::vector<RowSpan>& exact, TimeNs span,
                   std::vector<RowSpanChunk>& out) {
  std::size_t stored = exact.size();
  for (int k = 1; k < kRowSpanLevels && stored > kRowSpanSmallRow; ++k) {
    std::vector<RowSpan> level = row_span_level(exact, layer, row_span_bucket(span, k));
    if (level.size() * 4 >= stored * 3) continue;
    stored = level.size();
    chunk_level(row, layer, k, level, out);
  }
}

// Level 0 and the coarser levels worth storing (row_spans.hpp).
void chunk_row(std::int32_t row, RowSpanLayer layer, const std::vector<RowSpan>& exact, TimeNs span,
               std::vector<RowSpanChunk>& out) {
  if (exact.empty()) return;
  chunk_level(row, layer, 0, exact, out);
  chunk_coarser(row, layer, exact, span, out);
}

}  // namespace

std::vector<RowSpanChunk> build_row_spans(const std::vector<RowSpanThread>& threads, const ActivationLog& activations,
                                          TimeNs span, std::span<RunTimeHistogram> histograms) {
  std::vector<RowSpanChunk> out;
  if (threads.empty()) return out;
  std::int32_t rows = 0;
  for (const RowSpanThread& t : threads) rows = std::max(rows, t.row + 1);

  // Thread id -> row: a dense table when the ids are dense (the runtime
  // numbers its threads from 0), else a hash map.
  ThreadId low = threads.front().id, high = threads.front().id;
  for (const RowSpanThread& t : threads) {
    low = std::min(low, t.id);
    high = std::max(high, t.id);
  }
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  std::vector<std::int32_t> dense;
  std::unordered_map<ThreadId, std::int32_t> sparse;
  if (range < 4 * static_cast<std::uint64_t>(threads.size()) + 1024) {
    dense.assign(static_cast<std::size_t>(range) + 1, -1);
    for (const RowSpanThread& t : threads)
      dense[static_cast<std::size_t>(static_cast<std::uint64_t>(t.id) -
                                     static_cast<std::uint64_t>(low))] = t.row;
  } else {
    sparse.reserve(threads.size());
    for (const RowSpanThread& t : threads) sparse.emplace(t.id, t.row);
  }
  const auto row_of = [&](ThreadId id) -> std::int32_t {
    if (!dense.empty()) {
      if (id < low || id > high) return -1;
      return dense[static_cast<std::size_t>(static_cast<std::uint64_t>(id) -
                                            static_cast<std::uint64_t>(low))];
    }
    const auto it = sparse.find(id);
    return it == sparse.end() ? -1 : it->second;
  };

  // The running layer in one pass over the activations in their order:
  // each row clips its own and writes its level 0 as they come, so that
  // nothing is copied or gathered by row. Rows busy enough for coarser
  // levels are read back from their chunks after.
  struct RunningRow {
    ChunkWriter chunks;
    TimeNs previous_end = 0;
    bool any = false;
  };
  std::vector<RunningRow> running;
  running.reserve(static_cast<std::size_t>(rows));
  for (std::int32_t r = 0; r < rows; ++r) running.push_back(RunningRow{ChunkWriter(r, RowSpanLayer::running, 0)});
  activations.for_each([&](ThreadId thread, TimeNs start, TimeNs end) {
    const std::int32_t r = row_of(thread);
    if (r < 0) return;
    RunningRow& row = running[static_cast<std::size_t>(r)];
    RowSpan s{start, end, thread, RowSpanKind::item, RowSpanOutcome::ok};
    if (row.any) s.start = std::max(s.start, row.previous_end);
    s.end = std::max(s.end, s.start);
    row.previous_end = s.end;
    row.any = true;
    row.chunks.add(s, out);
    for (RunTimeHistogram& h : histograms) h.add(s.start, s.end);
  });
  std::vector<bool> busy(static_cast<std::size_t>(rows), false);
  for (std::int32_t r = 0; r < rows; ++r) {
    RunningRow& row = running[static_cast<std::size_t>(r)];
    row.chunks.finish(out);
    busy[static_cast<std::size_t>(r)] = row.chunks.items() > kRowSpanSmallRow;
  }
  running = {};
  // The busy rows' level 0, decoded back one row at a time (their chunks
  // are in `out` in seq order, the rows' interleaved), for their coarser
  // levels.
  {
    std::vector<std::vector<std::uint32_t>> chunks_of(static_cast<std::size_t>(rows));
    for (std::size_t i = 0; i < out.size(); ++i)
      if (busy[static_cast<std::size_t>(out[i].row)])
        chunks_of[static_cast<std::size_t>(out[i].row)].push_back(static_cast<std::uint32_t>(i));
    std::vector<RowSpan> exact;
    for (std::int32_t r = 0; r < rows; ++r) {
      if (!busy[static_cast<std::size_t>(r)]) continue;
      exact.clear();
      for (const std::uint32_t i : chunks_of[static_cast<std::size_t>(r)])
        // Written above: it decodes.
        (void)decode_row_span_chunk(out[i].spans, out[i].count, out[i].start, "", "", exact);
      chunk_coarser(r, RowSpanLayer::running, exact, span, out);
    }
  }

  // The threads by row (a counting sort, keeping the order given), then by
  // start within each row (stable: ties in the order given). Threads come
  // in id order, which is mostly creation order: a row is sorted already,
  // as a rule.
  std::vector<std::uint32_t> thread_first(static_cast<std::size_t>(rows) + 1, 0);
  // (A thread with no row, row < 0, which the layout never gives, is left out.)
  for (const RowSpanThread& th : threads)
    if (th.row >= 0) ++thread_first[static_cast<std::size_t>(th.row) + 1];
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r)
    thread_first[r + 1] += thread_first[r];
  std::vector<std::uint32_t> thread_order(thread_first.back());
  {
    std::vector<std::uint32_t> fill(thread_first.begin(), thread_first.end() - 1);
    for (std::size_t i = 0; i < threads.size(); ++i)
      if (threads[i].row >= 0)
        thread_order[fill[static_cast<std::size_t>(threads[i].row)]++] =
            static_cast<std::uint32_t>(i);
  }
  const auto by_start = [&](std::uint32_t a, std::uint32_t b) {
    return threads[a].start < threads[b].start;
  };
  for (std::size_t r = 0; r < static_cast<std::size_t>(rows); ++r) {
    const auto first = thread_order.begin() + thread_first[r],
               last = thread_order.begin() + thread_first[r + 1];
    if (!std::is_sorted(first, last, by_start)) std::stable_sort(first, last, by_start);
  }

  std::vector<RowSpan> exact;
  for (std::int32_t r = 0; r < rows; ++r) {
    exact.clear();
    for (std::uint32_t k = thread_first[static_cast<std::size_t>(r)]; k < thread_first[static_cast<std::size_t>(r) + 1];
         ++k) {
      const RowSpanThread& th = threads[thread_order[k]];
      exact.push_back(RowSpan{th.start, std::max(th.end, th.start), th.id, RowSpanKind::item, th.outcome});
    }
    chunk_row(r, RowSpanLayer::lines, exact, span, out);
  }
  // By (row, layer, level, seq), as the table's key orders them.
  std::stable_sort(out.begin(), out.end(), [](const RowSpanChunk& x, const RowSpanChunk& y) {
    return std::tie(x.row, x.layer, x.level) < std::tie(y.row, y.layer, y.level);
  });
  return out;
}

std::vector<RowSpanChunk> build_row_spans(const std::vector<RowSpanThread>& threads,
                                          const std::vector<RowSpanActivation>& activations, TimeNs span,
                                          std::span<RunTimeHistogram> histograms) {
  ActivationLog log;
  for (const RowSpanActivation& a : activations) log.add(a.thread, a.start, a.end);
  return build_row_spans(threads, log, span, histograms);
}

std::vector<RowSpanBand> idle_bands(std::vector<TimeNs>& activation_starts,
                                    std::vector<TimeNs>& idle_starts, TimeNs end_time) {
  if (!std::is_sorted(activation_starts.begin(), activation_starts.end()))
    std::sort(activation_starts.begin(), activation_starts.end());
  std::sort(idle_starts.begin(), idle_starts.end());
  std::vector<RowSpanBand> bands;
  for (const TimeNs t : idle_starts) {
    const auto next = std::upper_bound(activation_starts.begin(), activation_starts.end(), t);
    const TimeNs end = next == activation_starts.end() ? end_time : *next;
    if (!bands.empty() && bands.back().end >= t) {
      bands.back().end = std::max(bands.back().end, end);
      continue;
    }
    bands.push_back(RowSpanBand{t, std::max(t, end)});
  }
  return bands;
}

void build_band_spans(const std::vector<RowSpanBand>& idle, const std::vector<RowSpanBand>& gc,
                      TimeNs span, std::vector<RowSpanChunk>& out) {
  // The gc pauses by start, those that overlap merged: a band wherever a
  // pause ran, as the timeline draws them (viewer/timeline/timeline_data.hpp).
  std::vector<RowSpanBand> pauses(gc);
  std::stable_sort(pauses.begin(), pauses.end(),
                   [](const RowSpanBand& a, const RowSpanBand& b) { return a.start < b.start; });
  std::vector<RowSpanBand> merged;
  for (const RowSpanBand& b : pauses) {
    const RowSpanBand band{b.start, std::max(b.end, b.start)};
    if (!merged.empty() && band.start <= merged.back().end) merged.back().end = std::max(merged.back().end, band.end);
    else merged.push_back(band);
  }
  for (const auto& [row, bands] : {std::pair{kIdleBandRow, &idle}, std::pair{kGcBandRow, static_cast<const std::vector<RowSpanBand>*>(&merged)}}) {
    std::vector<RowSpan> runs;
    runs.reserve(bands->size());
    for (const RowSpanBand& b : *bands)
      runs.push_back(
          RowSpan{b.start, std::max(b.end, b.start), 0, RowSpanKind::run, RowSpanOutcome::ok});
    chunk_row(row, RowSpanLayer::running, runs, span, out);
  }
}

Status write_row_spans(SqliteDatabase& db, const std::vector<RowSpanChunk>& chunks, TimeNs span) {
  if (Status s = replace_derived_rows(db, kRowSpansTable); !s.ok()) return s;
  if (Status s = write_meta_int(db, kRowSpansSpanKey, span); !s.ok()) return s;
  std::int64_t placed = 0;
  for (const RowSpanChunk& c : chunks)
    if (c.level == 0 && c.layer == RowSpanLayer::running && c.row >= kIdleBandRow) placed += c.count;
  if (Status s = write_meta_int(db, kRowSpansPlacedKey, placed); !s.ok()) return s;
  auto insert =
      BulkInsert::prepare(db, "row_spans(row, layer, level, reach, seq, start, count, spans)", 8);
  if (!insert) return insert.error();
  return insert.value().insert(std::span<const RowSpanChunk>(chunks),
                               [](SqliteStatement& q, int p, const RowSpanChunk& c) {
                                 q.bind(p, static_cast<std::int64_t>(c.row));
                                 q.bind(p + 1, static_cast<std::int64_t>(c.layer));
                                 q.bind(p + 2, static_cast<std::int64_t>(c.level));
                                 q.bind(p + 3, static_cast<std::int64_t>(c.reach));
                                 q.bind(p + 4, c.seq);
                                 q.bind(p + 5, static_cast<std::int64_t>(c.start));
                                 q.bind(p + 6, c.count);
                                 q.bind_blob(p + 7, c.spans.data(), c.spans.size());
                               });
}

namespace {

struct ChunkPlace {
  std::string database;
  std::string place;
  [[nodiscard]] std::string describe() const { return place; }
};

}  // namespace

Status decode_row_span_chunk(std::string_view blob, std::int64_t count, TimeNs start,
                             const std::string& database, const std::string& place,
                             std::vector<RowSpan>& out) {
  const ChunkPlace where{database, place};
  PackedBlobReader<ChunkPlace> in(blob, where, "spans");
  if (count < 0 || static_cast<std::uint64_t>(count) > blob.size())
    return in.fail(0, "a count of " + std::to_string(count) + " spans in " +
                          std::to_string(blob.size()) + " bytes");
  if (!is_valid_time(start))
    return in.fail(0, "its start " + std::to_string(start) + " is not a time");
  TimeNs previous_start = start;
  ThreadId previous_thread = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::size_t at = in.at();
    std::uint64_t delta = 0, length = 0, head = 0;
    if (Status s = in.varint(delta); !s.ok()) return s;
    if (Status s = in.varint(length); !s.ok()) return s;
    if (Status s = in.varint(head); !s.ok()) return s;
    if (delta > static_cast<std::uint64_t>(kMaxTime - previous_start) ||
        length > static_cast<std::uint64_t>(kMaxTime - previous_start - static_cast<TimeNs>(delta)))
      return in.fail(at, "a span past the largest time");
    RowSpan s;
    s.start = previous_start + static_cast<TimeNs>(delta);
    s.end = s.start + static_cast<TimeNs>(length);
    const std::uint64_t kind = head & 3;
    if (kind > 2) return in.fail(at, "a span of kind 3");
    s.kind = static_cast<RowSpanKind>(kind);
    s.outcome = static_cast<RowSpanOutcome>((head >> 2) & 3);
    const ThreadId thread = static_cast<ThreadId>(static_cast<std::uint64_t>(previous_thread) +
                                                  static_cast<std::uint64_t>(unzigzag(head >> 4)));
    if (s.kind != RowSpanKind::run) {
      if (thread == kNoThread) return in.fail(at, "a span of the reserved thread id");
      s.thread = thread;
      previous_thread = thread;
    }
    previous_start = s.start;
    out.push_back(s);
  }
  if (!in.at_end())
    return in.fail(in.at(), "bytes after the last of its " + std::to_string(count) + " spans");
  return {};
}

Result<std::optional<RowSpanReader>> RowSpanReader::open(SqliteDatabase& db) {
  if (!defines_derived_table(db, kRowSpansTable)) return std::optional<RowSpanReader>();
  const std::optional<std::int64_t> span = read_meta_int(db, kRowSpansSpanKey);
  if (!span || *span < 0) return std::optional<RowSpanReader>();
  const TimeNs s = *span;
  auto level = db.prepare(
      "SELECT max(level) FROM row_spans WHERE row = ?1 AND layer = ?2 AND level BETWEEN 0 AND ?3");
  if (!level) return level.error();
  auto chunks = db.prepare(
      "SELECT start, count, spans, seq FROM row_spans WHERE row = ?1 AND layer = ?2 AND level = ?3 "
      "AND reach >= ?4 ORDER BY reach, seq");
  if (!chunks) return chunks.error();
  return std::optional<RowSpanReader>(
      RowSpanReader(db.name(), std::move(level).value(), std::move(chunks).value(), s));
}

Result<RowSpanRead> RowSpanReader::read(std::int32_t row, RowSpanLayer layer, TimeNs from,
                                        TimeNs to, double ns_per_px) {
  RowSpanRead out;
  const int wanted = row_span_level_for(span_, ns_per_px);
  level_.reset();
  level_.bind(1, static_cast<std::int64_t>(row));
  level_.bind(2, static_cast<std::int64_t>(layer));
  level_.bind(3, static_cast<std::int64_t>(wanted));
  auto has = level_.step();
  if (!has) return has.error();
  if (!has.value() || level_.is_null(0)) return out;
  const std::int64_t level = level_.int64(0);
  level_.reset();
  out.level = static_cast<int>(level);
  out.bucket = row_span_bucket(span_, out.level);
  chunks_.reset();
  chunks_.bind(1, static_cast<std::int64_t>(row));
  chunks_.bind(2, static_cast<std::int64_t>(layer));
  chunks_.bind(3, level);
  chunks_.bind(4, static_cast<std::int64_t>(from));
  Status failed;
  Status walked = chunks_.for_each_row([&](SqliteStatement& q) -> bool {
    const std::string place = "row_spans row (" + std::to_string(row) + ", " +
                              std::to_string(int(layer)) + ", " + std::to_string(level) + ", seq " +
                              q.quoted(3) + ")";
    if (q.storage(0) != SqliteStatement::Storage::integer ||
        q.storage(1) != SqliteStatement::Storage::integer || !q.is_blob(2)) {
      failed =
          file_error(database_, "damaged Skein database: " + place + ": a value of the wrong type");
      return false;
    }
    const TimeNs start = q.int64(0);
    if (start > to) return false;
    failed = decode_row_span_chunk(q.blob(2), q.int64(1), start, database_, place, out.spans);
    return failed.ok();
  });
  chunks_.reset();
  if (!walked.ok()) return walked.error();
  if (!failed.ok()) return failed.error();
  return out;
}

}  // namespace skein
