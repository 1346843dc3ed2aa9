// trace_event_reader.hpp — reads the `events` table in id order, one
// prepared statement stepping over the table's own key (no sort, no index),
// one TraceEvent at a time. This is how every lint sees a trace: the same
// order as the records in the file.
//
//   auto cursor = TraceEventCursor::open(db);
//   for (;;) { auto more = cursor.value().next(); ...; use(cursor.value().event()); }
#pragma once

#include <functional>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/trace_event.hpp"

namespace skein {

class TraceEventCursor {
 public:
  [[nodiscard]] static Result<TraceEventCursor> open(SqliteDatabase& db);
  // Steps to the next event: true when there is one, false at the end.
  [[nodiscard]] Result<bool> next();
  // The current event; its text is valid until the next call to next().
  [[nodiscard]] const TraceEvent& event() const { return event_; }

 private:
  explicit TraceEventCursor(SqliteStatement statement) : statement_(std::move(statement)) {}
  SqliteStatement statement_;
  TraceEvent event_;
};

// Calls `on_event` for every row; the event's text is valid during the call.
[[nodiscard]] Status read_trace_events(SqliteDatabase& db, const std::function<void(const TraceEvent&)>& on_event);
// Every event, texts owned.
[[nodiscard]] Result<TraceEventList> load_trace_events(SqliteDatabase& db);

}  // namespace skein
