// events_table.cpp — the record-to-row mapping, the cursor and the owned
// list. The mapping visits the record's alternative and fills the columns of
// the header's table; the head is the variant's index, which relies on
// Record's alternatives being in RecordHead order. The cursor's SELECT asks
// SQLite for a bit mask of the NULL fields, computed while the row is in
// hand, instead of a column-type call per field. The list copies texts into
// chunks of kChunkBytes reserved up front and never filled past their
// capacity, so a std::string's buffer never moves under a view.
#include "recorder/store/events_table.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

namespace skein {
namespace {

constexpr std::size_t kChunkBytes = 64 * 1024;

}  // namespace


TraceEvent trace_event_of(const Record& record) {
  TraceEvent e;
  e.head = static_cast<RecordHead>(record.index());
  const auto text = [&](std::string_view s) {
    e.has_text = true;
    e.text = s;
  };
  const auto timed = [&](TimeNs t) {
    e.has_time = true;
    e.time = t;
  };
  const auto actor = [&](ThreadId id) { e.actor = id; };
  const auto target = [&](ThreadId id) { e.target = id; };
  const auto value = [&](std::int64_t v) {
    e.has_value = true;
    e.value = v;
  };
  std::visit(
      [&](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, SiteRecord>) {
          value(r.site);
        } else if constexpr (std::is_same_v<R, SpawnRecord>) {
          timed(r.time); actor(r.parent); target(r.child); text(r.kind);
          if (r.site) value(*r.site);
        } else if constexpr (std::is_same_v<R, LabelRecord>) {
          timed(r.time); actor(r.thread); text(r.text);
        } else if constexpr (std::is_same_v<R, SwitchRecord>) {
          timed(r.time); actor(r.thread);
        } else if constexpr (std::is_same_v<R, WaitRecord>) {
          timed(r.time); actor(r.waiter); target(r.input);
        } else if constexpr (std::is_same_v<R, ReadRecord>) {
          timed(r.time); actor(r.reader); target(r.input);
        } else if constexpr (std::is_same_v<R, NotifyRecord>) {
          timed(r.time); actor(r.sender); target(r.receiver);
          if (r.reason) text(*r.reason);
        } else if constexpr (std::is_same_v<R, ResolveRecord>) {
          timed(r.time); actor(r.by); target(r.thread); value(static_cast<std::int64_t>(r.outcome));
          if (r.message) text(*r.message);
        } else if constexpr (std::is_same_v<R, MergeRecord>) {
          timed(r.time); actor(r.thread); target(r.into);
        } else if constexpr (std::is_same_v<R, CounterRecord>) {
          timed(r.time); value(r.value); text(r.name);
        } else if constexpr (std::is_same_v<R, GcRecord>) {
          timed(r.time); value(r.duration);
        } else if constexpr (std::is_same_v<R, LostRecord>) {
          timed(r.time); value(r.count);
        } else if constexpr (std::is_same_v<R, ReturnRecord>) {
          timed(r.time); actor(r.thread);
        } else if constexpr (std::is_same_v<R, ShouldResolveRecord>) {
          timed(r.time); target(r.thread);
        } else if constexpr (std::is_same_v<R, DropRecord>) {
          timed(r.time); actor(r.by); target(r.thread);
        } else if constexpr (std::is_same_v<R, NoWaiterRecord>) {
          timed(r.time); actor(r.sender); value(r.object); text(r.reason);
        } else if constexpr (std::is_same_v<R, QueuedRecord>) {
          timed(r.time); target(r.waiter); value(r.object);
        } else {
          static_assert(std::is_same_v<R, IdleRecord> || std::is_same_v<R, EndRecord> ||
                        std::is_same_v<R, SnapshotRecord>);
          timed(r.time);
        }
      },
      record);
  return e;
}

namespace {

// The columns of each field, in the order a SELECT lists them after head.
struct FieldColumn {
  EventField field;
  std::string_view column;
};
constexpr FieldColumn kFieldColumns[] = {{EventField::id, "id"},         {EventField::time, "time"},
                                         {EventField::actor, "actor"},   {EventField::target, "target"},
                                         {EventField::value, "value"},   {EventField::text, "text"}};

bool has(std::uint8_t fields, EventField f) { return (fields & static_cast<std::uint8_t>(f)) != 0; }

// "SELECT head, COLUMNS... FROM events" for the fields asked for.
std::string select_for(std::uint8_t fields) {
  std::string sql = "SELECT head";
  for (const FieldColumn& c : kFieldColumns)
    if (has(fields, c.field)) (sql += ", ") += c.column;
  return sql + " FROM events";
}

// The row `s` is on, as select_for(fields) selected it; its text views the
// row. Which columns are NULL is asked of each (sqlite3_column_type reads
// the row's own type codes), and only those read are asked at all.
void read_row(const SqliteStatement& s, std::uint8_t fields, TraceEvent& e) {
  const std::int64_t head = s.int64(0);
  e.head = head >= 0 && head < static_cast<std::int64_t>(kRecordHeadCount) ? static_cast<RecordHead>(head)
                                                                           : RecordHead::lost;
  int column = 1;
  if (has(fields, EventField::id)) e.id = s.int64(column++);
  if (has(fields, EventField::time)) {
    e.has_time = !s.is_null(column);
    e.time = e.has_time ? s.int64(column) : 0;
    ++column;
  }
  if (has(fields, EventField::actor)) {
    e.actor = s.is_null(column) ? kNoThread : s.int64(column);
    ++column;
  }
  if (has(fields, EventField::target)) {
    e.target = s.is_null(column) ? kNoThread : s.int64(column);
    ++column;
  }
  if (has(fields, EventField::value)) {
    e.has_value = !s.is_null(column);
    e.value = e.has_value ? s.int64(column) : 0;
    ++column;
  }
  if (has(fields, EventField::text)) {
    e.has_text = !s.is_null(column);
    e.text = e.has_text ? s.text(column) : std::string_view();
  }
}

}  // namespace

Result<TraceEventCursor> TraceEventCursor::open(SqliteDatabase& db, const EventSelection& selection) {
  // The head list is built from RecordHead numbers, never from text a
  // trace holds.
  std::string sql = select_for(selection.fields);
  std::string where;
  if (selection.timed_only) where = "time IS NOT NULL";
  if (!selection.heads.empty()) {
    if (!where.empty()) where += " AND ";
    where += "head IN (";
    for (std::size_t i = 0; i < selection.heads.size(); ++i) {
      if (i != 0) where += ", ";
      where += std::to_string(static_cast<int>(selection.heads[i]));
    }
    where += ")";
  }
  if (!where.empty()) sql += " WHERE " + where;
  sql += " ORDER BY id";
  auto q = db.prepare(sql);
  if (!q) return q.error();
  return TraceEventCursor(std::move(q).value(), selection.fields);
}

Result<bool> TraceEventCursor::next() {
  SqliteStatement& s = statement_;
  auto row = s.step();
  if (!row) return row.error();
  if (!row.value()) return false;
  read_row(s, fields_, event_);
  return true;
}

Result<TraceEventLookup> TraceEventLookup::open(SqliteDatabase& db) {
  auto q = db.prepare(select_for(kEveryEventField) + " WHERE id = ?1");
  if (!q) return q.error();
  return TraceEventLookup(std::move(q).value());
}

Result<std::optional<TraceEvent>> TraceEventLookup::find(std::int64_t id) {
  statement_.bind(1, id);
  auto row = statement_.step();
  if (!row) {
    statement_.reset();
    return row.error();
  }
  std::optional<TraceEvent> found;
  if (row.value()) {
    TraceEvent e;
    read_row(statement_, kEveryEventField, e);
    kept_.push_back(e);  // copies the text out of the row before the reset
    found = kept_.events().back();
  }
  statement_.reset();
  return found;
}

std::string_view TraceEventList::keep(std::string_view text) {
  if (text.empty()) return std::string_view("", 0);
  while (chunk_ < chunks_.size() && chunks_[chunk_].capacity() - chunks_[chunk_].size() < text.size()) ++chunk_;
  if (chunk_ == chunks_.size()) {
    std::string& fresh = chunks_.emplace_back();
    fresh.reserve(std::max(kChunkBytes, text.size()));
  }
  std::string& chunk = chunks_[chunk_];
  const std::size_t at = chunk.size();
  chunk.append(text);  // within the capacity: the buffer stays where it is
  return std::string_view(chunk).substr(at, text.size());
}

void TraceEventList::push_back(TraceEvent e) {
  if (e.has_text) e.text = keep(e.text);
  events_.push_back(e);
}

void TraceEventList::clear() {
  events_.clear();
  for (std::string& chunk : chunks_) chunk.clear();  // keeps each one's capacity
  chunk_ = 0;
}

Result<TraceEventList> load_trace_events(SqliteDatabase& db) {
  TraceEventList list;
  Status s = for_each_trace_event(db, {}, [&](const TraceEvent& e) { list.push_back(e); });
  if (!s.ok()) return s.error();
  return list;
}

}  // namespace skein
