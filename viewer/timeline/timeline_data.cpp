// timeline_data.cpp — load_timeline() reads the store table by table, each
// in one pass (so SQLite walks each B-tree once), interning every string
// (index 0 is ""): threads by id, the two halves of their ids read at once
// on two connections (re-sorted, duplicates dropped, if a damaged file
// disorders them), the layout (the cache when it matches
// thread for thread, else computed and cached best-effort), the per-row
// arrays, the activations and idle bands as the import placed them
// (row_spans, one pass) or else the activations in id order, placed here,
// then one pass over events for edges,
// idle and gc bands, and the row texts of threads with several labels (and
// their whole lists, unless the caller reads them later), read on a second
// thread while the first places the rows and reads the activations. What a
// damaged file could disorder is sorted only when it is; the id index is a
// direct table when the ids are dense.
#include "viewer/timeline/timeline_data.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <numeric>
#include <thread>
#include <unordered_map>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/activations_table.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/row_spans.hpp"
#include "recorder/store/store_value_check.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/timeline/freed_memory.hpp"
#include "viewer/timeline/layout_cache.hpp"
#include "recorder/store/thread_layout.hpp"
#include "viewer/timeline/string_interner.hpp"
#include "viewer/timeline/thread_label_lists.hpp"

namespace skein {
namespace {

// The lints' findings (viewer/analysis/anomaly_table.hpp reads them), with
// thread ids turned into indexes into data.threads (-1: none, or a thread
// the trace does not have).
std::vector<TimelineAnomaly> read_stored_findings(SqliteDatabase& db, const TimelineData& data) {
  std::vector<TimelineAnomaly> found;
  for (StoredFinding& f : read_stored_findings(db)) found.push_back(timeline_finding(std::move(f), data));
  return found;
}

// Sorts `threads` (and `layout`, index for index) by id, keeping the first
// of equal ids: afterwards ids strictly increase. O(n) when they already do.
void sort_threads_by_id(LargeArray<TimelineThread>& threads, std::vector<LayoutThread>& layout) {
  bool increasing = true;
  for (std::size_t i = 1; i < threads.size() && increasing; ++i) increasing = threads[i - 1].id < threads[i].id;
  if (increasing) return;
  std::vector<std::size_t> order(threads.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return threads[a].id < threads[b].id; });
  LargeArray<TimelineThread> sorted_threads;
  std::vector<LayoutThread> sorted_layout;
  for (const std::size_t i : order) {
    if (!sorted_threads.empty() && sorted_threads.back().id == threads[i].id) continue;
    sorted_threads.push_back(threads[i]);
    sorted_layout.push_back(layout[i]);
  }
  threads = std::move(sorted_threads);
  layout = std::move(sorted_layout);
}

// Sorts a counter's samples by time (stable: equal times keep their order).
void sort_samples(TimelineCounter& c) {
  if (std::is_sorted(c.times.begin(), c.times.end())) return;
  std::vector<std::size_t> order(c.times.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return c.times[a] < c.times[b]; });
  std::vector<TimeNs> times;
  std::vector<std::int64_t> values;
  for (const std::size_t i : order) {
    times.push_back(c.times[i]);
    values.push_back(c.values[i]);
  }
  c.times = std::move(times);
  c.values = std::move(values);
}

ThreadOutcome outcome_of(const std::optional<std::string>& o) {
  if (!o) return ThreadOutcome::pending;
  if (*o == "fail") return ThreadOutcome::fail;
  if (*o == "cancel") return ThreadOutcome::cancel;
  return ThreadOutcome::ok;
}

// The stages of load_timeline(), in its order. Each reads one table (or
// works on what the ones before read) and fills its part of `data`.

// The threads whose ids lie in [low, high], by id, their texts interned
// by `strings`, and what the layout needs of each.
Status read_thread_range(SqliteDatabase& db, ThreadId low, ThreadId high, TimeNs end_time, Interner& strings,
                         LargeArray<TimelineThread>& threads, std::vector<LayoutThread>& layout_input) {
  auto q = db.prepare(std::string("SELECT ") + std::string(kTimelineThreadColumns) +
                      " FROM threads WHERE id BETWEEN ?1 AND ?2 ORDER BY id");
  if (!q) return q.error();
  q.value().bind(1, low);
  q.value().bind(2, high);
  Status failed;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    auto read = timeline_thread_from_row(row, end_time, strings);
    if (!read) {
      failed = read.error();
      return false;
    }
    const TimelineThread& t = read.value().thread;
    layout_input.push_back(LayoutThread{t.id, read.value().parent, t.start, t.end, read.value().merged_into, t.label != 0});
    threads.push_back(t);
    return true;
  });
  if (!walked.ok()) return walked;
  return failed;
}

// Threads, by id, and what the layout needs of each. With a second
// connection (`other`), the upper half of the id range is read on a second
// thread, with strings of its own, which are then interned here and its
// threads' texts renumbered: at 10M records the threads' 1.7M rows are
// most of what the first frame waits for, and each row costs about the
// same. Each half is a range of the table's key: in a damaged file whose
// B-tree is out of order, a range can miss rows that a scan of the whole
// table would meet, and those threads are then not drawn (never drawn
// wrong: every row read is checked, and the threads sorted by id).
Status read_threads(SqliteDatabase& db, SqliteDatabase* other, Interner& strings, TimelineData& data,
                    std::vector<LayoutThread>& layout_input) {
  // The ids' range: the rowid's two ends, O(log n) each.
  ThreadId low = INT64_MIN, high = INT64_MAX;
  if (other != nullptr) {
    auto lo = db.query_int("SELECT coalesce(min(id), 0) FROM threads");
    auto hi = db.query_int("SELECT coalesce(max(id), 0) FROM threads");
    if (!lo) return lo.error();
    if (!hi) return hi.error();
    low = lo.value();
    high = hi.value();
  }
  // The split: halfway, in unsigned arithmetic (ids may be any int64);
  // none for a range of one id.
  const ThreadId middle =
      other != nullptr && low < high
          ? static_cast<ThreadId>(static_cast<std::uint64_t>(low) +
                                  (static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low)) / 2 + 1)
          : INT64_MAX;
  std::vector<std::string> upper_strings;
  LargeArray<TimelineThread> upper;
  std::vector<LayoutThread> upper_layout;
  Status upper_read;
  std::exception_ptr upper_failure;
  {
    std::jthread second;
    if (middle != INT64_MAX)
      second = std::jthread([&] {
        try {
          Interner upper_interner(upper_strings);
          upper_read =
              read_thread_range(*other, middle, INT64_MAX, data.end_time, upper_interner, upper, upper_layout);
        } catch (...) {
          upper_failure = std::current_exception();
        }
      });
    const Status lower_read =
        read_thread_range(db, INT64_MIN, middle == INT64_MAX ? INT64_MAX : middle - 1, data.end_time, strings,
                          data.threads, layout_input);
    if (second.joinable()) second.join();
    if (upper_failure) std::rethrow_exception(upper_failure);
    if (!lower_read.ok()) return lower_read;
  }
  if (!upper_read.ok()) return upper_read;
  if (!upper.empty()) {
    std::vector<std::uint32_t> renumbered(upper_strings.size(), 0);
    for (std::size_t k = 1; k < upper_strings.size(); ++k) renumbered[k] = strings.intern(upper_strings[k]);
    data.threads.reserve(data.threads.size() + upper.size());
    layout_input.reserve(layout_input.size() + upper_layout.size());
    for (TimelineThread& t : upper) {
      t.label = renumbered[t.label];
      t.kind = renumbered[t.kind];
      t.failure = renumbered[t.failure];
      data.threads.push_back(t);
    }
    layout_input.insert(layout_input.end(), upper_layout.begin(), upper_layout.end());
  }
  // Defensive: ORDER BY id walks the table's B-tree, which in a damaged
  // file may give ids out of order, or one twice.
  sort_threads_by_id(data.threads, layout_input);
  index_threads(data);

  return {};
}

// Rows: from the layout cache when it matches the threads, else computed
// (and cached when asked).
void place_rows(TraceStore& store, const TimelineLoadOptions& options, std::vector<LayoutThread>& layout_input,
                TimelineData& data, std::vector<std::pair<ThreadId, std::int32_t>>& to_cache) {
  std::vector<std::int32_t> rows(data.threads.size(), 0);
  std::int32_t row_count = 0;
  std::vector<std::uint32_t> heads;
  if (auto cached = read_layout_cache(store, data.threads.size())) {
    bool matches = true;
    for (std::size_t i = 0; i < cached->size() && matches; ++i) {
      // A layout has fewer rows than threads: a larger row would size
      // `rows` by a value rather than by the trace.
      matches = (*cached)[i].first == data.threads[i].id &&
                static_cast<std::size_t>((*cached)[i].second) < data.threads.size();
      rows[i] = (*cached)[i].second;
      row_count = std::max(row_count, rows[i] + 1);
    }
    if (matches) {
      data.layout_from_cache = true;
      heads = merge_chain_heads(layout_input);
    }
  }
  if (!data.layout_from_cache) {
    ThreadLayout layout = layout_threads(layout_input);
    rows = std::move(layout.rows);
    heads = std::move(layout.chain_head);
    row_count = layout.row_count;
    if (options.write_layout_cache && store.owner()) {
      to_cache.resize(data.threads.size());
      for (std::size_t i = 0; i < to_cache.size(); ++i) to_cache[i] = {data.threads[i].id, rows[i]};
    }
  }
  layout_input.clear();
  layout_input.shrink_to_fit();
  assemble_rows(data, rows, heads, row_count);

}

// Activations, in id order (= start order); their starts, for the idle
// bands.
Status read_activations(SqliteDatabase& db, TimelineData& data, std::vector<TimeNs>& activation_starts) {
  if (Status s = for_each_activation(db,
                                     [&](const StoredActivation& a) {
                                       activation_starts.push_back(a.start);
                                       auto i = data.thread_index(a.thread);
                                       if (!i) return;
                                       place_activation(data, TimelineActivation{a.start, a.end, *i});
                                     });
      !s.ok())
    return s;

  return {};
}

// The activations as the import placed them, and the idle bands, from
// `row_spans` (recorder/store/row_spans.hpp): level 0 of each row's running
// layer holds its activations exactly as place_activation() places them,
// in order, each with its thread, and row kIdleBandRow the bands
// derive_idle() derives (both by the same code, at import). One pass over
// the table in its key order reads them, packed, where the activations'
// table gives one SQL row each: at 10M records, 0.2 s against 1.5 s.
// false, with nothing of `data` changed, when the table cannot stand for
// them: absent or not ours, cut from another span than this trace's, damaged,
// holding fewer or more entries than meta's kRowSpansPlacedKey says (a
// chunk lost, or an older Skein's table without the key), or an activation
// whose thread is not on the row it is stored on (a layout written since by
// another Skein). The caller then reads the activations' table.
bool read_placed_activations(SqliteDatabase& db, TimelineData& data) {
  auto reader = RowSpanReader::open(db);
  const std::optional<std::int64_t> expected = read_meta_int(db, kRowSpansPlacedKey);
  if (!reader || !reader.value() || !expected ||
      reader.value()->span() != std::max<TimeNs>(1, data.end_time - data.first_time))
    return false;
  std::int64_t read = 0;
  auto q = db.prepare(
      "SELECT row, start, count, spans, seq FROM row_spans WHERE row >= ?1 AND layer = ?2 AND level = 0 "
      "ORDER BY row, layer, level, reach, seq");
  if (!q) return false;
  q.value().bind(1, static_cast<std::int64_t>(kIdleBandRow));
  q.value().bind(2, static_cast<std::int64_t>(RowSpanLayer::running));
  std::vector<TimelineBand> idle;
  std::vector<RowSpan> items;
  bool usable = true;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    const auto fail = [&] { return usable = false; };
    if (row.storage(0) != SqliteStatement::Storage::integer || row.storage(1) != SqliteStatement::Storage::integer ||
        row.storage(2) != SqliteStatement::Storage::integer || !row.is_blob(3))
      return fail();
    const std::int64_t r = row.int64(0);
    if (r >= static_cast<std::int64_t>(data.rows.size())) return fail();
    items.clear();
    if (!decode_row_span_chunk(row.blob(3), row.int64(2), row.int64(1), db.name(), "row_spans", items).ok())
      return fail();
    read += static_cast<std::int64_t>(items.size());
    if (r == kIdleBandRow) {
      for (const RowSpan& s : items) {
        if (s.kind != RowSpanKind::run || (!idle.empty() && s.start < idle.back().end)) return fail();
        idle.push_back(TimelineBand{s.start, s.end});
      }
      return true;
    }
    LargeArray<TimelineActivation>& placed = data.rows[static_cast<std::size_t>(r)].activations;
    for (const RowSpan& s : items) {
      const auto i = data.thread_index(s.thread);
      if (s.kind != RowSpanKind::item || !i || data.threads[*i].row != r ||
          (!placed.empty() && s.start < placed.back().end))
        return fail();
      placed.push_back(TimelineActivation{s.start, s.end, *i});
    }
    return true;
  });
  if (walked.ok() && usable && read == *expected) {
    data.idle = std::move(idle);
    return true;
  }
  for (TimelineRow& r : data.rows) LargeArray<TimelineActivation>().swap(r.activations);
  return false;
}

// One pass over events: edges, gc bands and idle starts, in trace order.
Status read_events(SqliteDatabase& db, Interner& strings, TimelineData& data, std::vector<TimeNs>& idle_starts) {
  {
    using enum RecordHead;
    const EventSelection drawn{.heads = {spawn, wait, read, notify, resolve, idle, gc},
                               .fields = EventField::time | EventField::actor | EventField::target |
                                         EventField::value | EventField::text};
    const Status walked = for_each_trace_event(db, drawn, [&](const TraceEvent& r) {
      if (!r.has_time) return;
      if (r.head == idle) {
        idle_starts.push_back(r.time);
        return;
      }
      if (r.head == gc) {
        const std::int64_t duration = std::max<std::int64_t>(0, r.has_value ? r.value : 0);
        data.gc.push_back(TimelineBand{r.time, saturating_add(r.time, duration)});
        return;
      }
      TimelineEdge e;
      e.time = r.time;
      e.kind = edge_kind_of(r.head);
      const auto index = [&](ThreadId id) -> std::int32_t {
        if (id == kNoThread) return -1;
        auto i = data.thread_index(id);
        return i ? static_cast<std::int32_t>(*i) : -1;
      };
      e.src = index(r.actor);
      e.dst = index(r.target);
      if (e.kind == EdgeKind::notify && r.has_text) e.text = strings.intern(r.text);
      data.edges.push_back(e);
    });
    if (!walked.ok()) return walked;
  }
  // Events come in trace order, sorted by time unless time went backwards.
  const auto by_time = [](const TimelineEdge& a, const TimelineEdge& b) { return a.time < b.time; };
  if (!std::is_sorted(data.edges.begin(), data.edges.end(), by_time))
    std::stable_sort(data.edges.begin(), data.edges.end(), by_time);
  data.edge_times.reserve(data.edges.size());
  for (const TimelineEdge& e : data.edges) data.edge_times.push_back(e.time);

  return {};
}

// A thread with several labels shows the first few and how many more
// (thread_label_lists.hpp): its row text replaces the first label that
// `threads` gives it.
void apply_row_labels(RowLabels& labels, Interner& strings, TimelineData& data) {
  for (const auto& [id, text] : labels.row_texts)
    if (const auto i = data.thread_index(id)) data.threads[*i].label = strings.intern(text);
  if (!labels.counts.empty())
    data.label_counts = std::make_shared<const std::unordered_map<ThreadId, std::uint32_t>>(std::move(labels.counts));
}

// Counters, clustered by name then time.
Status read_counters(SqliteDatabase& db, TimelineData& data) {
  if (Status s = db.for_each_row("SELECT name, time, value, event FROM counters ORDER BY name, time",
                                 [&](SqliteStatement& q) -> Status {
                                   CheckedValues v(q);
                                   const TimeNs time = v.time(1, "time").value_or(0);
                                   if (Status bad = v.verdict([&] {
                                         return "counter " + q.quoted(0) + " at event " + std::string(q.text(3));
                                       });
                                       !bad.ok())
                                     return bad;
                                   const std::string_view name = q.text(0);
                                   const std::int64_t value = q.int64(2);
                                   if (data.counters.empty() || data.counters.back().name != name)
                                     data.counters.push_back(TimelineCounter{std::string(name), {}, {}, value, value});
                                   TimelineCounter& c = data.counters.back();
                                   c.times.push_back(time);
                                   c.values.push_back(value);
                                   c.min = std::min(c.min, value);
                                   c.max = std::max(c.max, value);
                                   return {};
                                 });
      !s.ok())
    return s;
  // Defensive, as for threads: a damaged key order.
  for (TimelineCounter& c : data.counters) sort_samples(c);

  return {};
}

}  // namespace

void merge_gc_bands(std::vector<TimelineBand>& gc) {
  std::sort(gc.begin(), gc.end(), [](const TimelineBand& a, const TimelineBand& b) { return a.start < b.start; });
  std::size_t kept = 0;
  for (const TimelineBand& b : gc) {
    if (kept > 0 && b.start <= gc[kept - 1].end) gc[kept - 1].end = std::max(gc[kept - 1].end, b.end);
    else gc[kept++] = b;
  }
  gc.resize(kept);
}

void derive_idle(std::vector<TimeNs>& activation_starts, std::vector<TimeNs>& idle_starts, TimelineData& data) {
  for (const RowSpanBand& b : idle_bands(activation_starts, idle_starts, data.end_time))
    data.idle.push_back(TimelineBand{b.start, b.end});
  merge_gc_bands(data.gc);
}

TimelineAnomaly timeline_finding(StoredFinding&& f, const TimelineData& data) {
  const auto index = [&](std::optional<std::int64_t> id) -> std::int32_t {
    if (!id) return -1;
    const auto i = data.thread_index(*id);
    return i ? static_cast<std::int32_t>(*i) : -1;
  };
  TimelineAnomaly a;
  a.time = f.time;
  a.thread = index(f.thread);
  a.from = index(f.from);
  a.wording = std::move(f.wording);
  a.arguments = f.arguments;
  a.suspect = index(f.suspect);
  a.event = f.event;
  a.number = f.number;
  return a;
}

Result<StoredTimelineThread> timeline_thread_from_row(SqliteStatement& q, TimeNs end_time, Interner& strings) {
  const auto intern = [&](std::string_view text) { return strings.intern(text); };
  CheckedValues v(q);
  StoredTimelineThread out;
  TimelineThread& t = out.thread;
  t.id = v.thread(0, "id").value_or(0);
  out.parent = v.thread(1, "parent");
  t.parent = out.parent.value_or(-1);
  t.kind = intern(q.is_null(2) ? std::string_view() : q.text(2));
  t.site = q.optional_int64(3).value_or(-1);
  t.label = intern(q.is_null(4) ? std::string_view() : q.text(4));
  t.start = v.time(5, "created").value_or(0);
  t.outcome = outcome_of(q.optional_text(7));
  t.end = std::max(t.start, v.time(6, "resolved").value_or(end_time));
  t.failure = intern(q.is_null(8) ? std::string_view() : q.text(8));
  out.merged_into = v.thread(9, "merged_into");
  t.merged_into = out.merged_into.value_or(-1);
  t.first_run = v.time(10, "first_run").value_or(-1);
  t.run_time = v.time(11, "run_time").value_or(0);
  if (Status bad = v.verdict([&] { return "threads row " + std::string(q.text(0)); }); !bad.ok()) return bad.error();
  return out;
}

std::vector<std::string> TimelineData::labels_of(std::uint32_t thread) const {
  if (thread >= threads.size()) return {};
  const TimelineThread& t = threads[thread];
  if (label_counts && label_counts->contains(t.id)) {
    if (!label_lists) return {};
    const auto it = label_lists->find(t.id);
    return it == label_lists->end() ? std::vector<std::string>{} : it->second;
  }
  if (t.label == 0) return {};
  return {text(t.label)};
}

bool TimelineData::labels_pending(std::uint32_t thread) const {
  return thread < threads.size() && label_counts && !label_lists && label_counts->contains(threads[thread].id);
}

std::size_t TimelineData::label_count(std::uint32_t thread) const {
  if (thread >= threads.size()) return 0;
  const TimelineThread& t = threads[thread];
  if (label_counts)
    if (const auto it = label_counts->find(t.id); it != label_counts->end()) return it->second;
  return t.label == 0 ? 0 : 1;
}

std::optional<std::uint32_t> TimelineData::thread_index(ThreadId id) const {
  if (!dense_index.empty()) {
    // The slot, exactly: id - dense_base may not fit in an int64.
    if (id < dense_base || distance(dense_base, id) >= dense_index.size()) return std::nullopt;
    const std::int32_t i = dense_index[static_cast<std::size_t>(distance(dense_base, id))];
    if (i < 0) return std::nullopt;
    return static_cast<std::uint32_t>(i);
  }
  auto it = std::lower_bound(threads.begin(), threads.end(), id,
                             [](const TimelineThread& t, ThreadId v) { return t.id < v; });
  if (it == threads.end() || it->id != id) return std::nullopt;
  return static_cast<std::uint32_t>(it - threads.begin());
}

const StoredSite* TimelineData::site(std::int64_t id) const {
  auto it = std::lower_bound(sites.begin(), sites.end(), id,
                             [](const StoredSite& s, std::int64_t v) { return s.id < v; });
  return it != sites.end() && it->id == id ? &*it : nullptr;
}

std::vector<std::uint32_t> TimelineData::chain_members(std::uint32_t thread) const {
  std::vector<std::uint32_t> out;
  const TimelineThread& t = threads[thread];
  // A chain lives on one row: scan that row only.
  if (t.row < 0 || static_cast<std::size_t>(t.row) >= rows.size()) return {thread};
  for (std::uint32_t i : rows[static_cast<std::size_t>(t.row)].threads)
    if (threads[i].chain == t.chain) out.push_back(i);
  return out;
}

std::optional<std::uint32_t> TimelineData::thread_at(std::int32_t row, TimeNs t, TimeNs slack) const {
  if (row < 0 || static_cast<std::size_t>(row) >= rows.size()) return std::nullopt;
  const TimelineRow& r = rows[static_cast<std::size_t>(row)];
  // Candidates: from the first whose chain-prefix end reaches t - slack, to
  // the last starting by t + slack.
  auto first = std::lower_bound(r.end_prefix_max.begin(), r.end_prefix_max.end(), t - slack) -
               r.end_prefix_max.begin();
  auto last = std::upper_bound(r.starts.begin(), r.starts.end(), t + slack) - r.starts.begin();
  std::optional<std::uint32_t> best;
  TimeNs best_distance = 0;
  for (auto k = first; k < last; ++k) {
    const TimelineThread& c = threads[r.threads[static_cast<std::size_t>(k)]];
    const TimeNs distance = t < c.start ? c.start - t : t > c.end ? t - c.end : 0;
    if (distance > slack) continue;
    // Ties go to the later start: the continuation of a chain.
    if (!best || distance <= best_distance) {
      best = r.threads[static_cast<std::size_t>(k)];
      best_distance = distance;
    }
  }
  return best;
}

bool TimelineData::check_invariants() const {
  for (std::size_t i = 1; i < threads.size(); ++i)
    if (threads[i - 1].id >= threads[i].id) return false;
  for (const TimelineRow& r : rows) {
    for (std::size_t k = 1; k < r.threads.size(); ++k)
      if (r.starts[k - 1] > r.starts[k] || r.end_prefix_max[k - 1] > r.end_prefix_max[k]) return false;
    for (std::size_t k = 1; k < r.activations.size(); ++k)
      if (r.activations[k - 1].end > r.activations[k].start) return false;
  }
  for (std::size_t i = 1; i < edges.size(); ++i)
    if (edges[i - 1].time > edges[i].time) return false;
  for (const std::vector<TimelineBand>* bands : {&idle, &gc})
    for (std::size_t i = 1; i < bands->size(); ++i)
      if ((*bands)[i - 1].end > (*bands)[i].start) return false;
  return true;
}

void index_threads(TimelineData& data) {
  data.dense_base = 0;
  data.dense_index.clear();
  const std::size_t n = data.threads.size();
  if (n == 0) return;
  // Defensive: ids out of order leave only the binary search, which then
  // misses some ids but reads nothing out of bounds. load_timeline sorts.
  for (std::size_t i = 1; i < n; ++i)
    if (data.threads[i - 1].id >= data.threads[i].id) return;
  // A direct id -> index table when the ids are dense: their range, exact
  // for any ids (up to 2^64 - 1), is below 4 slots a thread (+ 64), so the
  // table's size is bounded by the thread count, never by the ids' values.
  const ThreadId lo = data.threads.front().id;
  const std::uint64_t range = distance(lo, data.threads.back().id);
  if (range >= 4 * static_cast<std::uint64_t>(n) + 64) return;
  data.dense_base = lo;
  data.dense_index.assign(static_cast<std::size_t>(range) + 1, -1);
  for (std::size_t i = 0; i < n; ++i)
    data.dense_index[static_cast<std::size_t>(distance(lo, data.threads[i].id))] = static_cast<std::int32_t>(i);
}

RowMembers group_rows(std::span<const TimeNs> starts, const std::vector<std::int32_t>& rows, std::int32_t row_count) {
  RowMembers out;
  out.first.assign(static_cast<std::size_t>(row_count) + 1, 0);
  for (std::size_t i = 0; i < starts.size(); ++i) ++out.first[static_cast<std::size_t>(rows[i]) + 1];
  std::partial_sum(out.first.begin(), out.first.end(), out.first.begin());
  out.threads.resize(starts.size());
  std::vector<std::uint32_t> fill(out.first.begin(), out.first.end() - 1);
  for (std::size_t i = 0; i < starts.size(); ++i)
    out.threads[fill[static_cast<std::size_t>(rows[i])]++] = static_cast<std::uint32_t>(i);
  const auto by_start = [&](std::uint32_t a, std::uint32_t b) { return starts[a] < starts[b]; };
  for (std::size_t r = 0; r + 1 < out.first.size(); ++r) {
    const auto from = out.threads.begin() + out.first[r], to = out.threads.begin() + out.first[r + 1];
    if (!std::is_sorted(from, to, by_start)) std::stable_sort(from, to, by_start);
  }
  return out;
}

void assemble_rows(TimelineData& data, const std::vector<std::int32_t>& rows, const std::vector<std::uint32_t>& heads,
                   std::int32_t row_count) {
  std::vector<TimeNs> starts;
  starts.reserve(data.threads.size());
  for (const TimelineThread& t : data.threads) starts.push_back(t.start);
  assemble_grouped_rows(data, rows, heads, group_rows(starts, rows, row_count));
}

void assemble_grouped_rows(TimelineData& data, const std::vector<std::int32_t>& rows,
                           const std::vector<std::uint32_t>& heads, const RowMembers& members) {
  const std::size_t row_count = members.first.empty() ? 0 : members.first.size() - 1;
  data.rows.assign(row_count, TimelineRow{});
  data.row_first_start.clear();
  data.row_last_end.clear();
  data.row_first_start.reserve(row_count);
  data.row_last_end.reserve(row_count);
  for (std::size_t i = 0; i < data.threads.size(); ++i) {
    data.threads[i].row = rows[i];
    data.threads[i].chain = static_cast<std::int32_t>(heads[i]);
  }
  for (std::size_t row = 0; row < row_count; ++row) {
    TimelineRow& r = data.rows[row];
    r.threads.assign(members.threads.begin() + members.first[row], members.threads.begin() + members.first[row + 1]);
    r.starts.reserve(r.threads.size());
    r.end_prefix_max.reserve(r.threads.size());
    TimeNs running = INT64_MIN;
    for (std::uint32_t i : r.threads) {
      r.starts.push_back(data.threads[i].start);
      running = std::max(running, data.threads[i].end);
      r.end_prefix_max.push_back(running);
      if (data.threads[i].outcome == ThreadOutcome::fail) r.failures.emplace_back(data.threads[i].end, i);
    }
    std::sort(r.failures.begin(), r.failures.end());
    data.row_first_start.push_back(r.starts.empty() ? INT64_MAX : r.starts.front());
    data.row_last_end.push_back(r.end_prefix_max.empty() ? INT64_MIN : r.end_prefix_max.back());
  }
}

void place_activation(TimelineData& data, TimelineActivation a) {
  TimelineRow& r = data.rows[static_cast<std::size_t>(data.threads[a.thread].row)];
  // Defensive: times that went backwards would break the sorted,
  // non-overlapping invariant; clip to it.
  if (!r.activations.empty()) a.start = std::max(a.start, r.activations.back().end);
  a.end = std::max(a.end, a.start);
  r.activations.push_back(a);
}

void index_finding_rows(TimelineData& data) {
  data.finding_rows.assign(data.anomalies.size(), FindingRowSpan{});
  const auto row_of = [&](std::int32_t thread) -> std::optional<std::int32_t> {
    if (thread < 0 || static_cast<std::size_t>(thread) >= data.threads.size()) return std::nullopt;
    return data.threads[static_cast<std::size_t>(thread)].row;
  };
  for (std::size_t i = 0; i < data.anomalies.size(); ++i) {
    const TimelineAnomaly& a = data.anomalies[i];
    FindingRowSpan& span = data.finding_rows[i];
    for (const std::int32_t thread : {a.thread, a.from})
      if (const auto row = row_of(thread)) {
        span.low = std::min(span.low, *row);
        span.high = std::max(span.high, *row);
      }
  }
}

Result<TimelineData> load_timeline(TraceStore& store, const TimelineLoadOptions& options) {
  TimelineData data;
  data.source = store.path();
  data.database = store.owner();
  data.first_time = store.meta_int("first_time").value_or(0);
  data.end_time = store.meta_int("end_time").value_or(data.first_time);
  Interner strings(data.strings);
  SqliteDatabase& db = store.database();

  std::vector<LayoutThread> layout_input;
  // A reader of its own for the second thread: the threads' upper half,
  // then the records.
  std::optional<TraceStore> events_reader;
  if (store.owner())
    if (auto reader = store.owner()->reader(); reader) events_reader.emplace(std::move(reader).value());
  if (Status s = read_threads(db, events_reader ? &events_reader->database() : nullptr, strings, data, layout_input);
      !s.ok())
    return s.error();
  std::vector<TimeNs> idle_starts;
  // Room for the edges too, as the heads count them, made here: what the
  // records' thread below allocates stays in a malloc arena of its own.
  // The counts are the file's word, so at most what its blocks hold.
  if (auto edges = db.query_int("SELECT min(coalesce((SELECT sum(records) FROM heads WHERE name IN "
                                "('spawn', 'wait', 'read', 'notify', 'resolve')), 0), "
                                "(SELECT count(*) FROM event_blocks) * 1024)");
      edges && edges.value() > 0)
    data.edges.reserve(static_cast<std::size_t>(std::min<std::int64_t>(edges.value(), std::int64_t{1} << 28)));
  // The records (edges, bands) and the rows' labels are read on a second
  // thread, with a reader of its own, while this one places the rows and
  // reads the activations. The two share only what read_threads left: the
  // events' side reads the thread index and ids and writes edges, gc bands,
  // strings and the labels aside; this side writes rows and the threads'
  // rows and chains, and interns nothing. Without an owner to give a
  // reader, one after the other.
  Status events_read;
  Result<RowLabels> row_labels = RowLabels{};
  Result<ThreadLabelLists> label_lists = ThreadLabelLists{};
  const auto read_labels = [&](SqliteDatabase& from) {
    row_labels = read_row_labels(from);
    if (row_labels && !row_labels.value().counts.empty() && options.label_lists)
      label_lists = read_thread_label_lists(from);
  };
  std::exception_ptr events_failure;
  // Joined on every way out of this function, an exception on this side
  // included, before anything it reads or writes is destroyed.
  std::jthread events_thread;
  if (events_reader)
    events_thread = std::jthread([&] {
      try {
        events_read = read_events(events_reader->database(), strings, data, idle_starts);
        if (events_read.ok()) read_labels(events_reader->database());
      } catch (...) {  // thrown on as if read here, once both sides are done
        events_failure = std::current_exception();
      }
    });
  std::vector<std::pair<ThreadId, std::int32_t>> layout_to_cache;
  place_rows(store, options, layout_input, data, layout_to_cache);
  std::vector<TimeNs> activation_starts;
  const bool placed = read_placed_activations(db, data);
  const Status activations_read = placed ? Status{} : read_activations(db, data, activation_starts);
  if (events_thread.joinable()) {
    events_thread.join();
    events_reader.reset();
    if (events_failure) std::rethrow_exception(events_failure);
    // The second thread allocated from a malloc arena of its own, and
    // what it freed there (its decoding buffers, the edges' growth) would
    // otherwise stay resident for as long as the process runs.
    release_freed_memory();
  } else {
    events_read = read_events(db, strings, data, idle_starts);
    if (events_read.ok()) read_labels(db);
  }
  if (!activations_read.ok()) return activations_read.error();
  if (!events_read.ok()) return events_read.error();
  if (!row_labels) return row_labels.error();
  if (!label_lists) return label_lists.error();
  // The computed layout is cached once no reader of ours is reading (a
  // write would wait for it, and it for the write). A database in a
  // read-only place keeps working without its cache.
  if (!layout_to_cache.empty()) (void)write_layout_cache(*store.owner(), layout_to_cache).ok();
  apply_row_labels(row_labels.value(), strings, data);
  if (options.label_lists && data.label_counts)
    data.label_lists = std::make_shared<const ThreadLabelLists>(std::move(label_lists).value());
  if (placed)
    merge_gc_bands(data.gc);
  else
    derive_idle(activation_starts, idle_starts, data);
  if (Status s = read_counters(db, data); !s.ok()) return s.error();
  if (options.activity) {
    auto activity =
        read_activity_bins(db, data.first_time, data.end_time, static_cast<std::int64_t>(data.rows.size()));
    if (!activity) return activity.error();
    data.activity = std::move(activity).value();
    auto subsecond =
        read_subsecond_bins(db, data.first_time, data.end_time, static_cast<std::int64_t>(data.rows.size()));
    if (!subsecond) return subsecond.error();
    data.subsecond = std::move(subsecond).value();
  }

  auto sites = store.sites();
  if (!sites) return sites.error();
  data.sites = std::move(sites).value();
  if (options.findings) {
    data.anomalies = read_stored_findings(db, data);
    index_finding_rows(data);
  }
  return data;
}

std::vector<TimelineAnomaly> load_stored_findings(SqliteDatabase& db, const TimelineData& data) {
  return read_stored_findings(db, data);
}

}  // namespace skein
