// events_table.cpp — the record-to-event mapping, the cursor, the lookup
// and the owned list. The mapping visits the record's alternative and fills
// the fields of the header's table; the head is the variant's index, which
// relies on Record's alternatives being in RecordHead order. The cursor and
// the lookup copy a block's blob out of SQLite's row before decoding it, so
// texts stay valid past the next step. The list copies texts into
// chunks of kChunkBytes reserved up front and never filled past their
// capacity, so a std::string's buffer never moves under a view.
#include "recorder/store/events_table.hpp"

#include <algorithm>
#include <type_traits>
#include <variant>

#include "recorder/store/event_block_codec.hpp"

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

bool has(std::uint8_t fields, EventField f) { return (fields & static_cast<std::uint8_t>(f)) != 0; }

// Leaves only the fields asked for (invariant 1 for the others).
void keep_fields(std::uint8_t fields, TraceEvent& e) {
  if (fields == kEveryEventField) return;
  if (!has(fields, EventField::id)) e.id = 0;
  if (!has(fields, EventField::time)) {
    e.has_time = false;
    e.time = 0;
  }
  if (!has(fields, EventField::actor)) e.actor = kNoThread;
  if (!has(fields, EventField::target)) e.target = kNoThread;
  if (!has(fields, EventField::value)) {
    e.has_value = false;
    e.value = 0;
  }
  if (!has(fields, EventField::text)) {
    e.has_text = false;
    e.text = {};
  }
}

// Copies the row's blob into `blob` and decodes it into `events`; the row
// is `SELECT id, first_event, last_event, records`. Checks invariant 3's
// part that one row can show: the block's first event is where its id puts
// it.
Status decode_row(const SqliteStatement& s, const std::string& database, std::string& blob,
                  std::vector<TraceEvent>& events) {
  const std::int64_t id = s.int64(0);
  EventBlockPlace place{database, id, s.int64(1), s.int64(2)};
  if (id < 1 || place.first_event != (id - 1) * kEventBlockSize + 1)
    return file_error(database, "damaged Skein database: event_blocks row " + std::to_string(id) +
                                    ": first_event " + std::to_string(place.first_event) + ", expected " +
                                    std::to_string((id - 1) * kEventBlockSize + 1));
  if (!s.is_blob(3))
    return file_error(database, "damaged Skein database: event_blocks row " + std::to_string(id) +
                                    ": records is not a blob");
  blob.assign(s.blob(3));
  return decode_event_block(blob, place, events);
}

constexpr std::string_view kSelectBlocks =
    "SELECT id, first_event, last_event, records FROM event_blocks";

}  // namespace

TraceEventCursor::TraceEventCursor(SqliteStatement statement, std::string database, EventSelection selection)
    : statement_(std::move(statement)), database_(std::move(database)), selection_(std::move(selection)) {
  expected_block_ = event_block_of(std::max<std::int64_t>(selection_.first_event, 1));
}

Result<TraceEventCursor> TraceEventCursor::open(SqliteDatabase& db, const EventSelection& selection) {
  auto q = db.prepare(std::string(kSelectBlocks) + " WHERE id BETWEEN ?1 AND ?2 ORDER BY id");
  if (!q) return q.error();
  const std::int64_t first = std::max<std::int64_t>(selection.first_event, 1);
  q.value().bind(1, event_block_of(first));
  q.value().bind(2, selection.last_event < first ? std::int64_t{0} : event_block_of(selection.last_event));
  return TraceEventCursor(std::move(q).value(), db.name(), selection);
}

bool TraceEventCursor::wanted(const TraceEvent& e) const {
  if (e.id < selection_.first_event || e.id > selection_.last_event) return false;
  if (selection_.timed_only && !e.has_time) return false;
  if (selection_.heads.empty()) return true;
  return std::find(selection_.heads.begin(), selection_.heads.end(), e.head) != selection_.heads.end();
}

Result<bool> TraceEventCursor::next() {
  for (;;) {
    while (next_ < block_.size()) {
      const TraceEvent& e = block_[next_++];
      if (!wanted(e)) continue;
      event_ = e;
      keep_fields(selection_.fields, event_);
      return true;
    }
    auto row = statement_.step();
    if (!row) return row.error();
    if (!row.value()) return false;
    const std::int64_t id = statement_.int64(0);
    if (id != expected_block_ || !previous_full_)
      return file_error(database_, "damaged Skein database: event_blocks row " + std::to_string(id) +
                                       (previous_full_ ? " comes where row " + std::to_string(expected_block_) +
                                                             " should"
                                                       : " follows a block that is not full"));
    if (Status s = decode_row(statement_, database_, blob_, block_); !s.ok()) return s.error();
    ++expected_block_;
    previous_full_ = static_cast<std::int64_t>(block_.size()) == kEventBlockSize;
    next_ = 0;
  }
}

Result<TraceEventLookup> TraceEventLookup::open(SqliteDatabase& db) {
  auto last = db.query_int("SELECT coalesce(max(last_event), 0) FROM event_blocks");
  if (!last) return last.error();
  auto q = db.prepare(std::string(kSelectBlocks) + " WHERE id = ?1");
  if (!q) return q.error();
  return TraceEventLookup(std::move(q).value(), db.name(), last.value());
}

Status TraceEventLookup::load(std::int64_t block, Block& into) {
  if (into.id == block) return {};
  into.id = 0;
  into.events.clear();
  statement_.bind(1, block);
  auto row = statement_.step();
  if (!row) {
    statement_.reset();
    return row.error();
  }
  Status s;
  if (row.value()) s = decode_row(statement_, database_, into.blob, into.events);
  statement_.reset();
  if (!s.ok()) {
    into.events.clear();
    return s;
  }
  into.id = block;
  return {};
}

Result<std::optional<TraceEvent>> TraceEventLookup::find(std::int64_t id) {
  if (id < 1 || id > events_) return std::optional<TraceEvent>();
  const std::int64_t block = event_block_of(id);
  if (Status s = load(block, found_); !s.ok()) return s.error();
  const std::int64_t at = id - ((block - 1) * kEventBlockSize + 1);
  if (at >= static_cast<std::int64_t>(found_.events.size())) return std::optional<TraceEvent>();
  kept_.push_back(found_.events[static_cast<std::size_t>(at)]);  // copies the text out of the block
  return std::optional<TraceEvent>(kept_.events().back());
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
