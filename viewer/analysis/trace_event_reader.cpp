// trace_event_reader.cpp — one SELECT over `events` ORDER BY id, which
// SQLite walks on the rowid with no sort. Which fields are NULL arrives as
// a bit mask computed in the query, instead of a type check per column; a
// NULL actor or target becomes kNoThread, and an unknown head code becomes
// `lost`. The cursor reuses one TraceEvent whose text views SQLite's row,
// so it lasts only until the next step; load_trace_events() copies.
#include "viewer/analysis/trace_event_reader.hpp"

namespace skein {

Result<TraceEventCursor> TraceEventCursor::open(SqliteDatabase& db) {
  // Which fields are NULL comes as one bit mask, computed by SQLite while
  // the row is in hand, instead of a column-type call per field. (In SQL,
  // | and << bind equally tight, left to right: hence the parentheses.)
  auto q = db.prepare(
      "SELECT id, time, head, actor, target, value, text, (time IS NULL) | ((actor IS NULL) << 1) | "
      "((target IS NULL) << 2) | ((value IS NULL) << 3) | ((text IS NULL) << 4) FROM events ORDER BY id");
  if (!q) return q.error();
  return TraceEventCursor(std::move(q).value());
}

Result<bool> TraceEventCursor::next() {
  SqliteStatement& s = statement_;
  auto row = s.step();
  if (!row) return row.error();
  if (!row.value()) return false;
  TraceEvent& e = event_;
  const std::int64_t nulls = s.int64(7);
  e.id = s.int64(0);
  e.has_time = (nulls & 1) == 0;
  e.time = s.int64(1);  // 0 when NULL
  const std::int64_t head = s.int64(2);
  // Defensive: the schema check does not look at values; an unknown head
  // code (a hand-edited database) is passed on as `lost`, which no rule reads.
  e.head = head >= 0 && head < static_cast<std::int64_t>(kRecordHeadCount) ? static_cast<RecordHead>(head)
                                                                           : RecordHead::lost;
  e.actor = (nulls & 2) != 0 ? kNoThread : s.int64(3);
  e.target = (nulls & 4) != 0 ? kNoThread : s.int64(4);
  e.has_value = (nulls & 8) == 0;
  e.value = s.int64(5);
  e.has_text = (nulls & 16) == 0;
  e.text = e.has_text ? s.text(6) : std::string_view();
  return true;
}

Status read_trace_events(SqliteDatabase& db, const std::function<void(const TraceEvent&)>& on_event) {
  auto cursor = TraceEventCursor::open(db);
  if (!cursor) return cursor.error();
  for (;;) {
    auto more = cursor.value().next();
    if (!more) return more.error();
    if (!more.value()) return {};
    on_event(cursor.value().event());
  }
}

Result<TraceEventList> load_trace_events(SqliteDatabase& db) {
  TraceEventList list;
  Status s = read_trace_events(db, [&](const TraceEvent& e) { list.push_back(e); });
  if (!s.ok()) return s.error();
  return list;
}

}  // namespace skein
