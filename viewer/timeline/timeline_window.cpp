// timeline_window.cpp — load_timeline_window() reads, in order: meta (the
// trace's times, the layout's row count, the longest gc), the threads whose
// R*Tree span meets the window widened by a margin (the R*Tree keeps 32-bit
// floats rounded outwards, so its answer is a superset, filtered here), the
// activations by the id range of the window's event blocks, the events of
// the blocks from the earliest time a band reaching the window can start,
// the findings within reach, the threads those name that are not loaded
// yet, and last the rows and row labels of every loaded thread. The event
// blocks a time range meets are found by binary search
// (recorder/store/event_block_ranges.hpp). A superset
// of what the frame draws is harmless: the painter and the folding test
// everything against the view's own window.
#include "viewer/timeline/timeline_window.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <unordered_map>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/activations_table.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/event_block_ranges.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/store_value_check.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/timeline/partial_reads.hpp"
#include "viewer/timeline/string_interner.hpp"
#include "viewer/timeline/thread_label_lists.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein {
namespace {


// One integer (NULL: nullopt) from a query with integer parameters ?1...
Result<std::optional<std::int64_t>> query_optional(SqliteDatabase& db, std::string_view sql,
                                                   std::initializer_list<std::int64_t> parameters) {
  auto q = db.prepare(sql);
  if (!q) return q.error();
  int at = 1;
  for (const std::int64_t p : parameters) q.value().bind(at++, p);
  auto row = q.value().step();
  if (!row) return row.error();
  return row.value() ? q.value().optional_int64(0) : std::nullopt;
}

}  // namespace

Result<std::optional<TimelineData>> load_timeline_window(TraceStore& store, TimeNs from, TimeNs to) {
  using Window = std::optional<TimelineData>;
  SqliteDatabase& db = store.database();
  TimelineData data;
  const std::optional<std::int32_t> row_count = begin_partial_read(store, data);
  if (!row_count) return Window();
  if (to < from || double(to) - double(from) > 0.9 * kStartupFoldWindow * (double(data.end_time) - double(data.first_time)))
    return Window();
  auto gc_records = db.query_int("SELECT coalesce((SELECT records FROM heads WHERE name = 'gc'), 0)");
  if (!gc_records) return gc_records.error();
  auto idle_records = db.query_int("SELECT coalesce((SELECT records FROM heads WHERE name = 'idle'), 0)");
  if (!idle_records) return idle_records.error();
  const std::optional<std::int64_t> longest_gc = store.meta_int("longest_gc");
  if (gc_records.value() > 0 && (!longest_gc || *longest_gc < 0)) return Window();

  // The window widened by a margin each side: what the view's window, in
  // doubles, may reach.
  const TimeNs margin = saturating_add((to - from) / 16, 1);
  const TimeNs lo = saturating_add(from, -margin), hi = saturating_add(to, margin);
  Interner strings(data.strings);

  // Threads alive in the widened window.
  std::set<ThreadId> loaded;
  {
    auto q = db.prepare(std::string("SELECT ") + std::string(kTimelineThreadColumns) +
                        " FROM threads WHERE id IN (SELECT id FROM thread_spans WHERE start <= ?2 AND \"end\" >= ?1) "
                        "ORDER BY id");
    if (!q) return q.error();
    q.value().bind(1, lo);
    q.value().bind(2, hi);
    if (Status s = q.value().for_each_row([&](SqliteStatement& row) -> Status {
          auto t = timeline_thread_from_row(row, data.end_time, strings);
          if (!t) return t.error();
          const TimelineThread& thread = t.value().thread;
          if (thread.start > hi || thread.end < lo || !loaded.insert(thread.id).second) return {};
          data.threads.push_back(thread);
          return {};
        });
        !s.ok())
      return s.error();
  }

  // With no reach table, the blocks' times rise when the trace's never went
  // backwards.
  auto blocks = EventBlockRanges::open(db, store.meta_int("warnings.time-backwards") == std::optional<std::int64_t>(0));
  if (!blocks) return blocks.error();

  // Activations: by id range, from the one before the window's blocks to
  // the last starting in them.
  std::vector<StoredActivation> activations;
  std::optional<TimeNs> last_start_before;
  {
    auto window_blocks = blocks.value().meeting(lo, hi);
    if (!window_blocks) return window_blocks.error();
    const auto [first_block, last_block] = window_blocks.value();
    auto first_in = query_optional(db,
                                   "SELECT min(first_activation) FROM event_blocks WHERE id BETWEEN ?3 AND ?4 AND "
                                   "\"end\" >= ?1 AND start <= ?2 AND first_activation > 0",
                                   {lo, hi, first_block, last_block});
    if (!first_in) return first_in.error();
    // Activations are numbered in record order: the last block at or before
    // the window's last that has one holds the latest.
    auto last = query_optional(db,
                               "SELECT last_activation FROM event_blocks WHERE id <= ?2 AND start <= ?1 AND "
                               "last_activation > 0 ORDER BY id DESC LIMIT 1",
                               {hi, last_block});
    if (!last) return last.error();
    if (last.value()) {
      const std::int64_t first = first_in.value() ? std::max<std::int64_t>(1, *first_in.value() - 1) : *last.value();
      if (Status s = for_each_activation(db, first, *last.value(),
                                         [&](const StoredActivation& a) {
                                           // In start order: the last one before is the latest.
                                           if (a.start < lo) last_start_before = a.start;
                                           activations.push_back(a);
                                         });
          !s.ok())
        return s.error();
    }
  }

  // Records: edges in the widened window; idle and gc bands that reach it.
  std::vector<IdEdge> edges;
  std::vector<TimeNs> idle_starts;
  {
    TimeNs records_from = lo;
    if (gc_records.value() > 0) records_from = std::min(records_from, saturating_add(lo, -*longest_gc));
    if (idle_records.value() > 0)
      records_from = std::min(records_from, last_start_before.value_or(data.first_time));
    auto events = blocks.value().events_meeting(records_from, hi);
    if (!events) return events.error();
    if (events.value()) {
      using enum RecordHead;
      const EventSelection drawn{.heads = {spawn, wait, read, notify, resolve, idle, gc},
                                 .fields = EventField::time | EventField::actor | EventField::target |
                                           EventField::value | EventField::text,
                                 .first_event = events.value()->first,
                                 .last_event = events.value()->second};
      if (Status s = for_each_trace_event(db, drawn, [&](const TraceEvent& r) {
            if (!r.has_time) return;
            if (r.head == idle) {
              if (r.time <= hi) idle_starts.push_back(r.time);
              return;
            }
            if (r.head == gc) {
              const std::int64_t duration = std::max<std::int64_t>(0, r.has_value ? r.value : 0);
              const TimelineBand band{r.time, saturating_add(r.time, duration)};
              if (band.start <= hi && band.end >= lo) data.gc.push_back(band);
              return;
            }
            if (r.time < lo || r.time > hi) return;
            edges.push_back(id_edge(r, strings));
          });
          !s.ok())
        return s.error();
    }
  }

  // Findings within a window's width of it.
  std::vector<StoredFinding> findings =
      read_stored_findings(db, saturating_add(lo, -(to - from)), saturating_add(hi, to - from));

  // The threads the edges and findings name that are not loaded.
  std::set<ThreadId> named;
  for (const IdEdge& e : edges)
    for (const ThreadId id : {e.src, e.dst})
      if (id != kNoThread && !loaded.contains(id)) named.insert(id);
  for (const StoredFinding& f : findings)
    for (const auto& id : {f.thread, f.from, f.suspect})
      if (id && !loaded.contains(*id)) named.insert(*id);
  if (!named.empty()) {
    auto by_id = ThreadsById::prepare(db);
    if (!by_id) return by_id.error();
    for (const ThreadId id : named) {
      auto t = by_id.value().read(id, data.end_time, strings);
      if (!t) return t.error();
      if (t.value() && loaded.insert(t.value()->id).second) data.threads.push_back(*t.value());
    }
  }

  // Rows from the layout; each thread heads its own chain.
  std::vector<std::int32_t> rows(data.threads.size(), 0);
  std::vector<std::uint32_t> heads(data.threads.size(), 0);
  std::sort(data.threads.begin(), data.threads.end(),
            [](const TimelineThread& a, const TimelineThread& b) { return a.id < b.id; });
  index_threads(data);
  {
    auto q = db.prepare("SELECT row FROM layout_v2 WHERE thread = ?1");
    if (!q) return q.error();
    for (std::size_t i = 0; i < data.threads.size(); ++i) {
      q.value().bind(1, static_cast<std::int64_t>(data.threads[i].id));
      auto row = q.value().step();
      if (!row) return row.error();
      const std::optional<std::int64_t> r = row.value() ? q.value().optional_int64(0) : std::nullopt;
      q.value().reset();
      if (!r || *r < 0 || *r >= *row_count) return Window();
      rows[i] = static_cast<std::int32_t>(*r);
      heads[i] = static_cast<std::uint32_t>(i);
    }
  }
  // A thread's row text, when it has several labels.
  {
    auto counts = std::make_shared<std::unordered_map<ThreadId, std::uint32_t>>();
    for (TimelineThread& t : data.threads) {
      auto label = read_row_label(db, t.id);
      if (!label) return label.error();
      if (!label.value()) continue;
      t.label = strings.intern(label.value()->text);
      (*counts)[t.id] = label.value()->count;
    }
    if (!counts->empty()) data.label_counts = std::move(counts);
  }
  // Only the rows that hold a loaded thread, in the layout's order; the
  // others are counted, folded in any window (rows_elsewhere).
  std::vector<std::int32_t> used(rows);
  std::sort(used.begin(), used.end());
  used.erase(std::unique(used.begin(), used.end()), used.end());
  for (std::int32_t& r : rows)
    r = static_cast<std::int32_t>(std::lower_bound(used.begin(), used.end(), r) - used.begin());
  data.rows_elsewhere = static_cast<std::int32_t>(*row_count - static_cast<std::int64_t>(used.size()));
  assemble_rows(data, rows, heads, static_cast<std::int32_t>(used.size()));

  std::vector<TimeNs> activation_starts;
  for (const StoredActivation& a : activations) {
    activation_starts.push_back(a.start);
    if (a.end < lo || a.start > hi) continue;
    if (const auto i = data.thread_index(a.thread)) place_activation(data, TimelineActivation{a.start, a.end, *i});
  }
  derive_idle(activation_starts, idle_starts, data);

  const auto by_time = [](const IdEdge& a, const IdEdge& b) { return a.time < b.time; };
  if (!std::is_sorted(edges.begin(), edges.end(), by_time)) std::stable_sort(edges.begin(), edges.end(), by_time);
  add_id_edges(data, edges);

  // Counters: every name, its scale over the trace, its samples in reach.
  {
    // The scale: from counter_ranges, which the import writes; in a
    // database without it, from every sample of the counter.
    auto scale = db.prepare(defines_derived_table(db, kCounterRangesTable)
                                ? "SELECT min, max FROM counter_ranges WHERE name = ?1"
                                : "SELECT min(value), max(value) FROM counters WHERE name = ?1");
    if (!scale) return scale.error();
    auto before = db.prepare(
        "SELECT name, time, value, event FROM counters WHERE name = ?1 AND time < ?2 ORDER BY time DESC, value DESC, "
        "event DESC LIMIT 1");
    if (!before) return before.error();
    auto within = db.prepare(
        "SELECT name, time, value, event FROM counters WHERE name = ?1 AND time >= ?2 AND time <= ?3 ORDER BY time, "
        "value, event");
    if (!within) return within.error();
    auto names = counter_names(db, SIZE_MAX);
    if (!names) return names.error();
    for (const std::string& name : names.value()) {
      TimelineCounter c{name, {}, {}, 0, 0};
      scale.value().bind(1, std::string_view(name));
      auto s = scale.value().step();
      if (!s) return s.error();
      c.min = scale.value().optional_int64(0).value_or(0);
      c.max = scale.value().optional_int64(1).value_or(0);
      scale.value().reset();
      const auto add = [&](SqliteStatement& q) -> Status {
        CheckedValues v(q);
        const TimeNs time = v.time(1, "time").value_or(0);
        if (Status bad = v.verdict([&] { return "counter " + q.quoted(0) + " at event " + std::string(q.text(3)); });
            !bad.ok())
          return bad;
        c.times.push_back(time);
        c.values.push_back(q.int64(2));
        return {};
      };
      before.value().bind(1, std::string_view(name));
      before.value().bind(2, lo);
      if (Status st = before.value().for_each_row(add); !st.ok()) return st.error();
      before.value().reset();
      within.value().bind(1, std::string_view(name));
      within.value().bind(2, lo);
      within.value().bind(3, hi);
      if (Status st = within.value().for_each_row(add); !st.ok()) return st.error();
      within.value().reset();
      data.counters.push_back(std::move(c));
    }
  }

  for (StoredFinding& f : findings) data.anomalies.push_back(timeline_finding(std::move(f), data));
  index_finding_rows(data);
  return Window(std::move(data));
}

}  // namespace skein
