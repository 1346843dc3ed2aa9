// events_table.hpp — the `events` table (SCHEMA.md, "events"), defined once:
// the row type that the import writes and every reader reads (TraceEvent),
// the columns each record head fills, the cursor that reads rows back in id
// order, and a list of rows that owns their texts, so rows can be kept or
// handed to another thread.
//
// The columns each head fills: the actor (FORMAT.md's actor of the record),
// the target (the other thread it names), a value and a text. Absent fields
// are NULL.
//
// | head    | actor  | target   | value          | text    |
// | ------- | ------ | -------- | -------------- | ------- |
// | site    |        |          | SITE           |         |
// | spawn   | PARENT | CHILD    | SITE           | KIND    |
// | label   | THREAD |          |                | TEXT    |
// | switch  | THREAD |          |                |         |
// | wait    | WAITER | INPUT    |                |         |
// | read    | READER | INPUT    |                |         |
// | notify  | SENDER | RECEIVER |                | REASON  |
// | resolve | BY     | THREAD   | OUTCOME 0/1/2  | MESSAGE |
// | merge   | THREAD | INTO     |                |         |
// | counter |        |          | VALUE          | NAME    |
// | idle    |        |          |                |         |
// | gc      |        |          | DURATION       |         |
// | lost    |        |          | COUNT          |         |
// | end     |        |          |                |         |
// | return  | THREAD |          |                |         |
// | should-resolve | | THREAD  |                |         |
// | snapshot |       |          |                |         |
// | drop    | BY     | THREAD   |                |         |
// | no-waiter | SENDER |        | OBJECT         | REASON  |
// | queued  |        | WAITER   | OBJECT         |         |
//
// Every record has a time but a site record, whose file, line and function
// live in the sites table. `head` holds the RecordHead's number. OBJECT, a
// primitive's number, is a value: never an actor or target, so never a
// thread.
//
// Invariants:
//   1. An absent field is absent in one way: has_time, has_value or
//      has_text false, or an actor or target of kNoThread, and NULL in the
//      table. kNoThread is kReservedThreadId, the id no record may name
//      (record.hpp), so it never stands for a real thread.
//   2. A row read back has a head that is a RecordHead: an unknown code (a
//      hand-edited database; the schema check does not read values) reads
//      as `lost`, which no rule reads.
//   3. A TraceEvent's text is a view. From a cursor it views SQLite's row
//      and lasts until the next step; in a TraceEventList it views the
//      list's own storage and lasts until the list is cleared or destroyed;
//      from trace_event_of() it views the record's string.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

// "No thread", in a row whose head names none in that column. The
// scheduler's id is -1, so this needs a value no trace uses.
inline constexpr ThreadId kNoThread = kReservedThreadId;

struct TraceEvent {
  std::int64_t id = 0;  // events.id: the record's position, from 1 (0 before it is stored)
  bool has_time = false;
  TimeNs time = 0;
  RecordHead head = RecordHead::end;
  ThreadId actor = kNoThread;  // kNoThread when the record has none
  ThreadId target = kNoThread;
  bool has_value = false;
  std::int64_t value = 0;
  bool has_text = false;
  std::string_view text;
};

// The row `record` is stored as, by the table above; its id is 0 (the
// table numbers rows as they are inserted) and its text views the record's.
[[nodiscard]] TraceEvent trace_event_of(const Record& record);

// The fields of a TraceEvent a cursor reads, besides the head, which it
// always reads. Each column asked of SQLite costs on every row, so a reader
// over millions of rows names the ones it uses; a field not read is absent
// (invariant 1), its id 0.
enum class EventField : std::uint8_t { id = 1, time = 2, actor = 4, target = 8, value = 16, text = 32 };
inline constexpr std::uint8_t kEveryEventField = 63;
[[nodiscard]] constexpr std::uint8_t operator|(EventField a, EventField b) {
  return static_cast<std::uint8_t>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
[[nodiscard]] constexpr std::uint8_t operator|(std::uint8_t a, EventField b) {
  return static_cast<std::uint8_t>(a | static_cast<std::uint8_t>(b));
}

// Which rows a cursor reads, and which of their fields. SQLite skips the
// other rows while it steps, so a reader that wants a few heads does not
// decode every row.
struct EventSelection {
  bool timed_only = false;       // rows with a time (every head but site)
  std::vector<RecordHead> heads = {};  // only these heads; empty: every head
  std::uint8_t fields = kEveryEventField;  // EventField bits
};

// Reads `events` in id order: one prepared statement stepping over the
// table's own key (no sort, no index), one TraceEvent at a time, in the
// order of the records in the file. This is how every lint and export sees
// a trace.
//
//   Status s = for_each_trace_event(db, {}, [&](const TraceEvent& e) { use(e); });
//
// or, where events come in batches (trace_event_prefetch.hpp), open() and
// next() one at a time.
class TraceEventCursor {
 public:
  [[nodiscard]] static Result<TraceEventCursor> open(SqliteDatabase& db, const EventSelection& selection = {});
  // Steps to the next event: true when there is one, false at the end.
  [[nodiscard]] Result<bool> next();
  // The current event; its text is valid until the next call to next().
  [[nodiscard]] const TraceEvent& event() const { return event_; }
  // Steps through the remaining events, calling on_event(event) on each, as
  // SqliteStatement::for_each_row does: on_event returns void, bool (false:
  // stop here, with no error) or Status (a failed one stops the walk and is
  // returned).
  template <class OnEvent>
  [[nodiscard]] Status for_each(OnEvent&& on_event);

 private:
  TraceEventCursor(SqliteStatement statement, std::uint8_t fields)
      : statement_(std::move(statement)), fields_(fields) {}
  SqliteStatement statement_;
  std::uint8_t fields_;
  TraceEvent event_;
};

// Events with their texts owned, in order. Texts are copied into chunks
// that never move once written, so adding an event never invalidates the
// texts of those before it; clear() keeps the chunks for the next fill.
class TraceEventList {
 public:
  TraceEventList() = default;
  TraceEventList(TraceEventList&&) noexcept = default;
  TraceEventList& operator=(TraceEventList&&) noexcept = default;
  TraceEventList(const TraceEventList&) = delete;
  TraceEventList& operator=(const TraceEventList&) = delete;

  void push_back(TraceEvent e);
  void clear();
  void reserve(std::size_t events) { events_.reserve(events); }

  [[nodiscard]] const std::vector<TraceEvent>& events() const { return events_; }
  [[nodiscard]] std::size_t size() const { return events_.size(); }
  [[nodiscard]] bool empty() const { return events_.empty(); }

 private:
  [[nodiscard]] std::string_view keep(std::string_view text);

  std::vector<TraceEvent> events_;
  std::vector<std::string> chunks_;  // each filled only up to its capacity, so never reallocated
  std::size_t chunk_ = 0;            // the chunk being filled
};

// Rows by id, for a reader that jumps (Why?). A found row's text is kept in
// the lookup until forget(), so a reader may hold several rows at once.
class TraceEventLookup {
 public:
  [[nodiscard]] static Result<TraceEventLookup> open(SqliteDatabase& db);
  // The row with events.id `id`, or nullopt when there is none.
  [[nodiscard]] Result<std::optional<TraceEvent>> find(std::int64_t id);
  // Drops the texts kept so far: rows found before lose theirs.
  void forget() { kept_.clear(); }

 private:
  explicit TraceEventLookup(SqliteStatement statement) : statement_(std::move(statement)) {}
  SqliteStatement statement_;
  TraceEventList kept_;
};

template <class OnEvent>
Status TraceEventCursor::for_each(OnEvent&& on_event) {
  for (;;) {
    auto more = next();
    if (!more) return more.error();
    if (!more.value()) return {};
    using Returned = decltype(on_event(event_));
    if constexpr (std::is_void_v<Returned>) {
      on_event(event_);
    } else if constexpr (std::is_same_v<Returned, bool>) {
      if (!on_event(event_)) return {};
    } else {
      if (Status s = on_event(event_); !s.ok()) return s;
    }
  }
}

// Opens a cursor on `selection` and walks it with TraceEventCursor::for_each;
// each event's text is valid during its call.
template <class OnEvent>
[[nodiscard]] Status for_each_trace_event(SqliteDatabase& db, const EventSelection& selection, OnEvent&& on_event) {
  auto cursor = TraceEventCursor::open(db, selection);
  if (!cursor) return cursor.error();
  return cursor.value().for_each(std::forward<OnEvent>(on_event));
}
// Every event, texts owned.
[[nodiscard]] Result<TraceEventList> load_trace_events(SqliteDatabase& db);

}  // namespace skein
