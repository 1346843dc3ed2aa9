// partial_reads.hpp — what the readers of part of a trace share (a window
// read alone, timeline_window.hpp; a first frame read from the levels,
// timeline_first_frame.hpp): they meet edges before the threads the edges
// name are loaded, and load those threads one by one, by id.
//   - IdEdge: an edge as its record gives it, its threads still ids;
//     add_id_edges() appends edges to a TimelineData once its threads are
//     indexed, each end an index into its threads (-1: none, or a thread it
//     does not hold), as the whole load makes them.
//   - ThreadsById: one prepared statement over `threads`, a row read per
//     id, as timeline_thread_from_row() checks and interns it;
//   - counter_names(): the counters' names in order, one seek each (the
//     first at or after "", then each after the last), at most `most`;
//   - begin_partial_read(): the trace's times and owner into the data,
//     and the layout's row count (meta `layout_rows`), without which
//     neither reader gives anything.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/timeline/string_interner.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

struct IdEdge {
  TimeNs time = 0;
  ThreadId src = kNoThread;
  ThreadId dst = kNoThread;
  EdgeKind kind = EdgeKind::spawn;
  std::uint32_t text = 0;  // a notify's reason, interned
};

// The edge of a record of an edge head (edge_bins.hpp, is_edge_head) with
// a time.
[[nodiscard]] inline IdEdge id_edge(const TraceEvent& r, Interner& strings) {
  IdEdge e;
  e.time = r.time;
  e.kind = edge_kind_of(r.head);
  e.src = r.actor;
  e.dst = r.target;
  if (e.kind == EdgeKind::notify && r.has_text) e.text = strings.intern(r.text);
  return e;
}

// Appends `edges`, sorted by time, after index_threads(data).
inline void add_id_edges(TimelineData& data, const std::vector<IdEdge>& edges) {
  const auto index = [&](ThreadId id) -> std::int32_t {
    if (id == kNoThread) return -1;
    const auto i = data.thread_index(id);
    return i ? static_cast<std::int32_t>(*i) : -1;
  };
  for (const IdEdge& e : edges) {
    data.edges.push_back(TimelineEdge{e.time, index(e.src), index(e.dst), e.kind, e.text});
    data.edge_times.push_back(e.time);
  }
}

// Sets data's source, database, first_time and end_time as the whole load
// does; returns the layout's row count, nullopt when the database has no
// layout_v2 of ours or no count of its rows in range (an older Skein's).
[[nodiscard]] inline std::optional<std::int32_t> begin_partial_read(TraceStore& store, TimelineData& data) {
  data.source = store.path();
  data.database = store.owner();
  data.first_time = store.meta_int("first_time").value_or(0);
  data.end_time = store.meta_int("end_time").value_or(data.first_time);
  const std::optional<std::int64_t> rows = store.meta_int(kLayoutRowsKey);
  if (!rows || *rows < 0 || *rows > INT32_MAX || !defines_derived_table(store.database(), kLayoutTable))
    return std::nullopt;
  return static_cast<std::int32_t>(*rows);
}

[[nodiscard]] inline Result<std::vector<std::string>> counter_names(SqliteDatabase& db, std::size_t most) {
  auto first_name = db.prepare("SELECT name FROM counters WHERE name >= ?1 ORDER BY name LIMIT 1");
  if (!first_name) return first_name.error();
  auto next_name = db.prepare("SELECT name FROM counters WHERE name > ?1 ORDER BY name LIMIT 1");
  if (!next_name) return next_name.error();
  std::vector<std::string> names;
  std::string last;
  for (bool first = true; names.size() < most; first = false) {
    SqliteStatement& q = first ? first_name.value() : next_name.value();
    q.bind(1, std::string_view(last));
    auto row = q.step();
    if (!row) return row.error();
    const bool more = row.value();
    if (more) last = std::string(q.text(0));
    q.reset();
    if (!more) break;
    names.push_back(last);
  }
  return names;
}

class ThreadsById {
 public:
  [[nodiscard]] static Result<ThreadsById> prepare(SqliteDatabase& db) {
    auto q = db.prepare(std::string("SELECT ") + std::string(kTimelineThreadColumns) + " FROM threads WHERE id = ?1");
    if (!q) return q.error();
    return ThreadsById(std::move(q).value());
  }
  // The thread `id` as the timeline holds it (its end the trace's end,
  // `end_time`, while pending); nullopt when the trace has none.
  [[nodiscard]] Result<std::optional<TimelineThread>> read(ThreadId id, TimeNs end_time, Interner& strings) {
    using Thread = std::optional<TimelineThread>;
    q_.reset();
    q_.bind(1, static_cast<std::int64_t>(id));
    auto row = q_.step();
    if (!row) return row.error();
    if (!row.value()) return Thread();
    auto t = timeline_thread_from_row(q_, end_time, strings);
    q_.reset();
    if (!t) return t.error();
    return Thread(t.value().thread);
  }

 private:
  explicit ThreadsById(SqliteStatement q) : q_(std::move(q)) {}
  SqliteStatement q_;
};

}  // namespace skein
