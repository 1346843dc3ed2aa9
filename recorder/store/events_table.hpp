// events_table.hpp — the records of a trace as the store keeps them
// (SCHEMA.md, "event_blocks"), defined once: the row type that the import
// writes and every reader reads (TraceEvent), the fields each record head
// fills, the cursor that reads them back in id order, the lookup by id, and
// a list of events that owns their texts, so events can be kept or handed
// to another thread. The records are packed by blocks of kEventBlockSize
// into event_blocks.records (event_block_codec.hpp); nothing here reads
// them any other way.
//
// The fields each head fills: the actor (FORMAT.md's actor of the record),
// the target (the other thread it names), a value and a text.
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
//      has_text false, or an actor or target of kNoThread. kNoThread is
//      kReservedThreadId, the id no record may name (record.hpp), so it
//      never stands for a real thread.
//   2. An event read back obeys the ranges of its fields (a head that is a
//      RecordHead, a time of 0..kMaxTime, no actor or target equal to
//      kNoThread, a gc duration of 0..kMaxTime): the decoder refuses a
//      block that breaks one (event_block_codec.hpp), naming the block and
//      the byte, and the read fails with it. So a window read checks what
//      it reads, and opening a database scans no records.
//   3. Blocks are read whole and in order of id, and block N holds events
//      (N-1)*kEventBlockSize+1 onwards, every block full but the last: a
//      block missing, out of place or short before the end is refused.
//   4. A TraceEvent's text is a view. From a cursor it views the cursor's
//      copy of the current block and lasts until the cursor moves to the
//      next block (at the latest, the next call to next()); in a
//      TraceEventList it views the list's own storage and lasts until the
//      list is cleared or destroyed; from trace_event_of() it views the
//      record's string.
#pragma once

#include <algorithm>
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
#include "recorder/store/store_schema.hpp"

namespace skein {

// "No thread", in a row whose head names none in that column. The
// scheduler's id is -1, so this needs a value no trace uses.
inline constexpr ThreadId kNoThread = kReservedThreadId;

struct TraceEvent {
  std::int64_t id = 0;  // event id: the record's position, from 1 (0 before it is stored)
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

// The fields of a TraceEvent a cursor gives, besides the head, which it
// always gives; a field not asked for is absent (invariant 1), its id 0.
enum class EventField : std::uint8_t { id = 1, time = 2, actor = 4, target = 8, value = 16, text = 32 };
inline constexpr std::uint8_t kEveryEventField = 63;
[[nodiscard]] constexpr std::uint8_t operator|(EventField a, EventField b) {
  return static_cast<std::uint8_t>(static_cast<std::uint8_t>(a) | static_cast<std::uint8_t>(b));
}
[[nodiscard]] constexpr std::uint8_t operator|(std::uint8_t a, EventField b) {
  return static_cast<std::uint8_t>(a | static_cast<std::uint8_t>(b));
}

// Which events a cursor gives, and which of their fields.
struct EventSelection {
  bool timed_only = false;       // events with a time (every head but site)
  std::vector<RecordHead> heads = {};  // only these heads; empty: every head
  std::uint8_t fields = kEveryEventField;  // EventField bits
  // Only events first_event..last_event (ids): the cursor reads only the
  // blocks that hold them.
  std::int64_t first_event = 1;
  std::int64_t last_event = INT64_MAX;
};

// Reads the events in id order: one prepared statement stepping over
// event_blocks by its own key (no sort, no index), decoding a block at a
// time, one TraceEvent at a time, in the order of the records in the file.
// This is how every lint and export sees a trace.
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
  TraceEventCursor(SqliteStatement statement, std::string database, EventSelection selection);
  [[nodiscard]] bool wanted(const TraceEvent& e) const;
  SqliteStatement statement_;
  std::string database_;  // for messages
  EventSelection selection_;
  std::string blob_;                   // the current block's records (texts view it)
  std::vector<TraceEvent> block_;      // decoded
  std::size_t next_ = 0;               // in block_
  std::int64_t expected_block_ = 0;    // the id the next block must have (invariant 3)
  bool previous_full_ = true;
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

// Events by id, for a reader that jumps (Why?). A found event's text is
// kept in the lookup until forget(), so a reader may hold several at once.
// The last block decoded is kept, so nearby lookups decode nothing.
class TraceEventLookup {
 public:
  [[nodiscard]] static Result<TraceEventLookup> open(SqliteDatabase& db);
  // The event with id `id`, or nullopt when there is none.
  [[nodiscard]] Result<std::optional<TraceEvent>> find(std::int64_t id);
  // Visits the events from id `from` down to id `down_to` (both included;
  // those that exist), latest first, calling on_event(event) until it
  // returns false. The event's text is valid during the call; on_event may
  // call find().
  template <class OnEvent>
  [[nodiscard]] Status for_each_back(std::int64_t from, std::int64_t down_to, OnEvent&& on_event);
  // The same, from id `from` up to id `up_to`, earliest first.
  template <class OnEvent>
  [[nodiscard]] Status for_each_forward(std::int64_t from, std::int64_t up_to, OnEvent&& on_event);
  // Drops the texts kept so far: events found before lose theirs.
  void forget() { kept_.clear(); }

 private:
  // One decoded block.
  struct Block {
    std::int64_t id = 0;  // event_blocks.id; 0: none loaded
    std::string blob;
    std::vector<TraceEvent> events;  // empty when there is no such block
  };
  TraceEventLookup(SqliteStatement statement, std::string database, std::int64_t events)
      : statement_(std::move(statement)), database_(std::move(database)), events_(events) {}
  [[nodiscard]] Status load(std::int64_t block, Block& into);
  SqliteStatement statement_;
  std::string database_;
  std::int64_t events_ = 0;  // the last event's id, as the blocks say
  Block found_;   // find()'s
  Block walked_;  // for_each_back()'s
  TraceEventList kept_;
};

template <class OnEvent>
Status TraceEventLookup::for_each_back(std::int64_t from, std::int64_t down_to, OnEvent&& on_event) {
  if (down_to < 1) down_to = 1;
  from = std::min(from, events_);
  for (std::int64_t block = event_block_of(from); from >= down_to && block >= 1; --block) {
    if (Status s = load(block, walked_); !s.ok()) return s;
    const std::int64_t first = (block - 1) * kEventBlockSize + 1;
    const auto& in = walked_.events;
    std::int64_t id = std::min<std::int64_t>(from, first + static_cast<std::int64_t>(in.size()) - 1);
    for (; id >= first && id >= down_to; --id)
      if (!on_event(in[static_cast<std::size_t>(id - first)])) return {};
    from = first - 1;
  }
  return {};
}

template <class OnEvent>
Status TraceEventLookup::for_each_forward(std::int64_t from, std::int64_t up_to, OnEvent&& on_event) {
  if (from < 1) from = 1;
  up_to = std::min(up_to, events_);
  for (std::int64_t block = event_block_of(from); from <= up_to; ++block) {
    if (Status s = load(block, walked_); !s.ok()) return s;
    const std::int64_t first = (block - 1) * kEventBlockSize + 1;
    const auto& in = walked_.events;
    const std::int64_t last = std::min<std::int64_t>(up_to, first + static_cast<std::int64_t>(in.size()) - 1);
    for (std::int64_t id = from; id <= last; ++id)
      if (!on_event(in[static_cast<std::size_t>(id - first)])) return {};
    if (in.size() < static_cast<std::size_t>(kEventBlockSize)) return {};  // the last block
    from = first + kEventBlockSize;
  }
  return {};
}

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
