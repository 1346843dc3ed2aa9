// timeline_first_frame.cpp — load_timeline_first_frame() reads, in order:
// meta and the parts' presence, the rows' extents (one read of a small
// table), the first kMaxCounterLanes counters' samples column by column,
// the rows on screen from row_spans, the bands, the edges (bins, then the
// sparse or uncertain columns one by one), and last every thread a drawn
// span or edge names, with its row checked against layout_v2. The columns
// read one by one are merged into time ranges first, so that an event
// block is decoded once however many of its columns are read.
#include "viewer/timeline/timeline_first_frame.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>
#include <unordered_map>

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/edge_bins.hpp"
#include "recorder/store/event_block_ranges.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/row_extents.hpp"
#include "recorder/store/row_spans.hpp"
#include "viewer/timeline/partial_reads.hpp"
#include "viewer/timeline/string_interner.hpp"
#include "viewer/timeline/thread_label_lists.hpp"

namespace skein {
namespace {

using Frame = std::optional<TimelineFirstFrame>;

// The pixel column an edge at t falls in (timeline_view.hpp).
std::int64_t edge_column(const TimeMapping& m, TimeNs t) {
  return static_cast<std::int64_t>(std::floor(m.x_of(double(t))));
}

// Counters: the first kMaxCounterLanes names, each with the sample in
// force at every column's right edge (the painter reads nothing else), and
// the scale counter_ranges gives. False when there are counters but no
// counter_ranges of ours.
Result<bool> read_counter_columns(SqliteDatabase& db, const TimeMapping& m, int width, TimelineData& data) {
  auto listed = counter_names(db, static_cast<std::size_t>(TimelineGeometry::kMaxCounterLanes));
  if (!listed) return listed.error();
  const std::vector<std::string>& names = listed.value();
  if (names.empty()) return true;
  if (!defines_derived_table(db, kCounterRangesTable)) return false;
  auto scale = db.prepare("SELECT min, max FROM counter_ranges WHERE name = ?1");
  if (!scale) return scale.error();
  auto at = db.prepare(
      "SELECT time, value, event, name FROM counters WHERE name = ?1 AND time <= ?2 ORDER BY time DESC, "
      "value DESC, event DESC LIMIT 1");
  if (!at) return at.error();
  for (const std::string& name : names) {
    TimelineCounter c{name, {}, {}, 0, 0};
    scale.value().reset();
    scale.value().bind(1, std::string_view(name));
    auto s = scale.value().step();
    if (!s) return s.error();
    if (!s.value() || scale.value().storage(0) != SqliteStatement::Storage::integer ||
        scale.value().storage(1) != SqliteStatement::Storage::integer)
      return false;
    c.min = scale.value().int64(0);
    c.max = scale.value().int64(1);
    scale.value().reset();
    // The last sample taken (time, value, event), the key's columns.
    std::optional<std::tuple<std::int64_t, std::int64_t, std::int64_t>> taken;
    for (int x = 0; x < width; ++x) {
      // A sample is in force at t when its time is at most t: at most
      // floor(t), times being integers.
      const double t = m.t_of(x + 1);
      if (t < 0) continue;
      const auto edge = static_cast<TimeNs>(std::min(std::floor(t), double(kMaxTime)));
      SqliteStatement& q = at.value();
      q.reset();
      q.bind(1, std::string_view(name));
      q.bind(2, static_cast<std::int64_t>(edge));
      auto row = q.step();
      if (!row) return row.error();
      if (!row.value()) continue;
      if (q.storage(0) != SqliteStatement::Storage::integer || q.storage(1) != SqliteStatement::Storage::integer ||
          !is_valid_time(q.int64(0)))
        return file_error(db.name(), "damaged Skein database: counter " + q.quoted(3) + " at event " + q.quoted(2) +
                                         ": a sample whose time or value is not an integer in range");
      const auto sample = std::make_tuple(q.int64(0), q.int64(1), q.int64(2));
      if (taken == sample) continue;
      taken = sample;
      c.times.push_back(q.int64(0));
      c.values.push_back(q.int64(1));
    }
    at.value().reset();
    data.counters.push_back(std::move(c));
  }
  return true;
}

// The edges: per column, from the bins or one by one (the file's opening
// comment). Fills density and the edges of the columns read one by one
// with at most kMaxArrowsPerColumn. False past the limit, or when the
// store cannot count them (no edge_bins of ours).
Result<bool> read_edge_columns(TraceStore& store, const TimeMapping& m, int width, const FirstFrameLimits& limits,
                               Interner& strings, std::vector<float>& density, std::vector<IdEdge>& edges,
                               std::int64_t& edges_read) {
  SqliteDatabase& db = store.database();
  const double t0 = m.t_of(0), t1 = m.t_of(width);
  const auto w = static_cast<std::size_t>(width);
  std::vector<std::int64_t> inside(w, 0);
  std::vector<bool> straddled(w, false);
  // The bins that straddle a column's edge (or the window's): the columns
  // they meet, and their edges.
  struct Straddle {
    std::int64_t first = 0;
    std::int64_t last = 0;
    std::int64_t edges = 0;
  };
  std::vector<Straddle> straddles;
  auto bins = EdgeBinReader::open(db);
  if (!bins) return bins.error();
  if (!bins.value()) return false;
  const EdgeBinReader& reader = *bins.value();
  if (reader.empty()) {
    // Fewer than kEdgesPerStoredBin edges: read them all.
    std::fill(straddled.begin(), straddled.end(), true);
  } else {
    const auto from = static_cast<TimeNs>(std::max(0.0, std::floor(t0)));
    const auto to = static_cast<TimeNs>(std::min(double(kMaxTime), std::ceil(t1)));
    // Bins of at most a quarter of a column, so that each column holds at
    // least three whole; else of at most a column; else (even the finest
    // is wider: a short trace) every column read one by one, the finest
    // bins counting them.
    const std::optional<int> shift = reader.shift_for(m.ns_per_px / 4)
                                         ? reader.shift_for(m.ns_per_px / 4)
                                         : reader.shift_for(m.ns_per_px);
    auto read = reader.read(shift.value_or(reader.finest()), from, to);
    if (!read) return read.error();
    if (!shift) {
      Straddle all{0, width - 1, 0};
      for (const EdgeBin& b : read.value()) all.edges += b.count;
      std::fill(straddled.begin(), straddled.end(), true);
      straddles.push_back(all);
      read.value().clear();
    }
    const TimeNs length = TimeNs{1} << shift.value_or(0);
    for (const EdgeBin& b : read.value()) {
      const TimeNs first = reader.bin_start(b.bin, *shift);
      const TimeNs last = first + (length - 1);
      const std::int64_t c0 = edge_column(m, first), c1 = edge_column(m, last);
      if (c0 == c1 && c0 >= 0 && c0 < width && double(first) >= t0 && double(last) <= t1) {
        inside[static_cast<std::size_t>(c0)] += b.count;
        continue;
      }
      const Straddle st{std::max<std::int64_t>(0, c0), std::min<std::int64_t>(width - 1, c1), b.count};
      if (st.first > st.last) continue;
      for (std::int64_t c = st.first; c <= st.last; ++c) straddled[static_cast<std::size_t>(c)] = true;
      straddles.push_back(st);
    }
  }
  // The columns read one by one: those a straddling bin leaves uncertain
  // below a full shade, and the sparse ones, for their arrows. What that
  // reads: their whole bins, and each straddling bin that meets one once.
  std::vector<bool> exact(w, false);
  std::int64_t estimate = 0;
  for (std::size_t c = 0; c < w; ++c) {
    const std::int64_t n = inside[c];
    exact[c] = straddled[c] ? n < kFullDensityEdges : n > 0 && n <= kMaxArrowsPerColumn;
    if (exact[c]) estimate += n;
  }
  for (const Straddle& st : straddles)
    for (std::int64_t c = st.first; c <= st.last; ++c)
      if (exact[static_cast<std::size_t>(c)]) {
        estimate += st.edges;
        break;
      }
  if (estimate > limits.edges) return false;

  // Merge the exact columns into time ranges, then their event id ranges.
  std::vector<std::pair<TimeNs, TimeNs>> ranges;
  for (std::size_t c = 0; c < w;) {
    if (!exact[c]) {
      ++c;
      continue;
    }
    std::size_t e = c;
    while (e < w && exact[e]) ++e;
    const double a = std::max(0.0, std::floor(m.t_of(double(c))) - 1);
    const double b = std::min(double(kMaxTime), std::ceil(m.t_of(double(e))) + 1);
    if (a <= b) ranges.emplace_back(static_cast<TimeNs>(a), static_cast<TimeNs>(b));
    c = e;
  }
  auto blocks = EventBlockRanges::open(db, store.meta_int("warnings.time-backwards") == std::optional<std::int64_t>(0));
  if (!blocks) return blocks.error();
  std::vector<std::pair<std::int64_t, std::int64_t>> events;
  for (const auto& [a, b] : ranges) {
    auto ids = blocks.value().events_meeting(a, b);
    if (!ids) return ids.error();
    if (ids.value()) events.push_back(*ids.value());
  }
  std::sort(events.begin(), events.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (const auto& r : events) {
    if (!merged.empty() && r.first <= merged.back().second + 1) merged.back().second = std::max(merged.back().second, r.second);
    else merged.push_back(r);
  }
  std::vector<std::int64_t> counted(w, 0);
  std::vector<IdEdge> read_edges;
  for (const auto& [first_event, last_event] : merged) {
    using enum RecordHead;
    const EventSelection selection{.heads = {spawn, wait, read, notify, resolve},
                                   .fields = EventField::time | EventField::actor | EventField::target |
                                             EventField::text,
                                   .first_event = first_event,
                                   .last_event = last_event};
    if (Status s = for_each_trace_event(db, selection,
                                        [&](const TraceEvent& r) {
                                          if (!r.has_time) return;
                                          ++edges_read;
                                          if (double(r.time) < t0 || double(r.time) > t1) return;
                                          const std::int64_t c = edge_column(m, r.time);
                                          if (c < 0 || c >= width || !exact[static_cast<std::size_t>(c)]) return;
                                          ++counted[static_cast<std::size_t>(c)];
                                          read_edges.push_back(id_edge(r, strings));
                                        });
        !s.ok())
      return s.error();
  }
  density.assign(w, 0.0f);
  for (std::size_t c = 0; c < w; ++c) density[c] = static_cast<float>(exact[c] ? counted[c] : inside[c]);
  for (const IdEdge& e : read_edges) {
    const auto c = static_cast<std::size_t>(edge_column(m, e.time));
    if (counted[c] <= kMaxArrowsPerColumn) edges.push_back(e);
  }
  // In trace order already; by time, as the whole load sorts them.
  std::stable_sort(edges.begin(), edges.end(), [](const IdEdge& a, const IdEdge& b) { return a.time < b.time; });
  return true;
}

}  // namespace

Result<std::optional<TimelineFirstFrame>> load_timeline_first_frame(TraceStore& store, int width, int height,
                                                                    const FirstFrameLimits& limits) {
  if (width < 1 || height < 1) return Frame();
  SqliteDatabase& db = store.database();
  TimelineFirstFrame out;
  out.width = width;
  out.height = height;
  TimelineData& data = out.data;
  const std::optional<std::int32_t> row_count = begin_partial_read(store, data);
  if (!row_count) return Frame();
  auto spans = RowSpanReader::open(db);
  if (!spans) return spans.error();
  if (!spans.value() || spans.value()->span() != std::max<TimeNs>(1, data.end_time - data.first_time)) return Frame();
  auto extents = read_row_extents(db);
  if (!extents) return extents.error();
  // The layout opens a row only for a thread: every row has an extent, so
  // the rows are as many as the extents read (never a count meta alone
  // claims).
  if (!extents.value() || extents.value()->size() != static_cast<std::size_t>(*row_count)) return Frame();

  // The view: fitted, and folded as refold() folds the whole trace there.
  TimelineViewState& view = out.view;
  view.fit(data, width);
  const TimeMapping& m = view.mapping;
  const double t0 = m.t_of(0), t1 = m.t_of(width);
  const auto rows = static_cast<std::size_t>(*row_count);
  data.rows.resize(rows);
  data.row_first_start.assign(rows, INT64_MAX);
  data.row_last_end.assign(rows, INT64_MIN);
  const bool fold_startup = folds_startup_rows(view.folding, t0, t1, data.first_time, data.end_time);
  view.slot_of_row.assign(rows, -1);
  for (const RowExtent& e : *extents.value()) {
    if (double(e.first_start) < t0 || double(e.first_start) > t1) return Frame();
    const auto r = static_cast<std::size_t>(e.row);
    data.row_first_start[r] = e.first_start;
    data.row_last_end[r] = e.last_end;
    if (fold_startup && is_startup_row(e.last_end, e.failed > 0, data.first_time, data.end_time)) {
      ++view.folded_startup;
      continue;
    }
    view.slot_of_row[r] = static_cast<std::int32_t>(view.shown_rows.size());
    view.shown_rows.push_back(e.row);
  }
  view.folded = static_cast<std::int32_t>(rows - view.shown_rows.size());

  Interner strings(data.strings);
  auto counters = read_counter_columns(db, m, width, data);
  if (!counters) return counters.error();
  if (!counters.value()) return Frame();

  // The rows on screen.
  const TimelineGeometry geometry(width, height, data);
  const std::int32_t last_slot =
      std::min(view.slot_count() - 1, static_cast<std::int32_t>(std::floor(view.row_offset + geometry.visible_rows())));
  const auto from = static_cast<TimeNs>(std::floor(t0)) - 1;
  const auto to = static_cast<TimeNs>(std::ceil(t1)) + 1;
  RowSpanReader& reader = *spans.value();
  std::unordered_map<ThreadId, std::int32_t> drawn;  // thread -> the row it is drawn on
  // The runs of the rows on screen, by slot, until the rows are assembled.
  std::vector<TimelineRow> runs(static_cast<std::size_t>(std::max(0, last_slot + 1)));
  for (std::int32_t slot = 0; slot <= last_slot; ++slot) {
    const std::int32_t r = view.shown_rows[static_cast<std::size_t>(slot)];
    TimelineRow& row = runs[static_cast<std::size_t>(slot)];
    auto lines = reader.read(r, RowSpanLayer::lines, from, to, m.ns_per_px);
    if (!lines) return lines.error();
    for (const RowSpan& s : lines.value().spans) {
      if (s.kind == RowSpanKind::run) {
        row.line_runs.push_back(TimelineBand{s.start, s.end});
      } else if (const auto [at, fresh] = drawn.emplace(s.thread, r); !fresh && at->second != r) {
        return Frame();  // one thread on two rows: not the layout's
      }
    }
    auto running = reader.read(r, RowSpanLayer::running, from, to, m.ns_per_px);
    if (!running) return running.error();
    for (const RowSpan& s : running.value().spans) row.running_runs.push_back(TimelineBand{s.start, s.end});
  }
  for (const auto& [band_row, bands] : {std::pair{kIdleBandRow, &data.idle}, std::pair{kGcBandRow, &data.gc}}) {
    auto read = reader.read(band_row, RowSpanLayer::running, from, to, m.ns_per_px);
    if (!read) return read.error();
    for (const RowSpan& s : read.value().spans) bands->push_back(TimelineBand{s.start, s.end});
  }
  // The painter's bands are disjoint (timeline_data.hpp): the import merges
  // the gc pauses that overlap, a database an older Skein wrote does not.
  merge_gc_bands(data.gc);

  std::vector<IdEdge> edges;
  auto edge_columns = read_edge_columns(store, m, width, limits, strings, out.edge_density, edges, out.edges_read);
  if (!edge_columns) return edge_columns.error();
  if (!edge_columns.value()) return Frame();

  // Every thread drawn or named by an edge, whole, on its layout row.
  std::set<ThreadId> wanted;
  for (const auto& [id, r] : drawn) wanted.insert(id);
  for (const IdEdge& e : edges)
    for (const ThreadId id : {e.src, e.dst})
      if (id != kNoThread) wanted.insert(id);
  std::vector<std::int32_t> thread_rows;
  {
    auto by_id = ThreadsById::prepare(db);
    if (!by_id) return by_id.error();
    auto layout = db.prepare("SELECT row FROM layout_v2 WHERE thread = ?1");
    if (!layout) return layout.error();
    for (const ThreadId id : wanted) {
      auto t = by_id.value().read(id, data.end_time, strings);
      if (!t) return t.error();
      if (!t.value()) {
        // An edge may name a thread the trace never made; a drawn one must exist.
        if (drawn.contains(id)) return Frame();
        continue;
      }
      ++out.threads_read;
      layout.value().reset();
      layout.value().bind(1, static_cast<std::int64_t>(id));
      auto placed = layout.value().step();
      if (!placed) return placed.error();
      const std::optional<std::int64_t> r = placed.value() ? layout.value().optional_int64(0) : std::nullopt;
      if (!r || *r < 0 || *r >= *row_count) return Frame();
      if (const auto d = drawn.find(id); d != drawn.end() && d->second != *r) return Frame();
      TimelineThread thread = *t.value();
      // A thread wide enough for a label shows its row text.
      if (double(thread.end - thread.start) >= 30 * m.ns_per_px) {
        auto label = read_row_label(db, id);
        if (!label) return label.error();
        if (label.value()) thread.label = strings.intern(label.value()->text);
      }
      data.threads.push_back(thread);
      thread_rows.push_back(static_cast<std::int32_t>(*r));
    }
  }
  // `wanted` is ordered: the threads are by id, as index_threads() needs.
  index_threads(data);
  std::vector<std::uint32_t> heads(data.threads.size());
  for (std::size_t i = 0; i < heads.size(); ++i) heads[i] = static_cast<std::uint32_t>(i);
  // assemble_rows() puts every thread on its row (an edge's end on a row
  // on screen, merged there into a run, adds only what the run covers);
  // the rows' extents are the trace's, not those of the threads read.
  std::vector<TimeNs> first_start = std::move(data.row_first_start), last_end = std::move(data.row_last_end);
  assemble_rows(data, thread_rows, heads, static_cast<std::int32_t>(rows));
  data.row_first_start = std::move(first_start);
  data.row_last_end = std::move(last_end);
  for (std::size_t slot = 0; slot < runs.size(); ++slot) {
    TimelineRow& row = data.rows[static_cast<std::size_t>(view.shown_rows[slot])];
    row.line_runs = std::move(runs[slot].line_runs);
    row.running_runs = std::move(runs[slot].running_runs);
  }
  add_id_edges(data, edges);
  return Frame(std::move(out));
}

}  // namespace skein
