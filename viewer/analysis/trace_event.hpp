// trace_event.hpp — one row of the `events` table (recorder/store/SCHEMA.md) as
// the lints replay it: a record's position, time, head and the fields the
// table keeps (actor, target, value, text), with absent fields flagged.
//
// Text is a view: for events read from the database it lives until the
// next row is read (trace_event_reader.hpp); TraceEventList owns its
// texts for events kept in memory (tests, the mutation test).
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/record.hpp"

namespace skein {

// The scheduler's id is -1, so "no thread" needs a value no trace uses.
inline constexpr ThreadId kNoThread = INT64_MIN;

struct TraceEvent {
  std::int64_t id = 0;   // events.id: the record's position, from 1
  bool has_time = false;
  TimeNs time = 0;
  RecordHead head = RecordHead::end;
  ThreadId actor = kNoThread;   // kNoThread when the record has none
  ThreadId target = kNoThread;
  bool has_value = false;
  std::int64_t value = 0;
  bool has_text = false;
  std::string_view text;
};

// Events with their texts owned, in order.
class TraceEventList {
 public:
  void push_back(TraceEvent e) {
    if (e.has_text) e.text = texts_.emplace_back(e.text);
    events_.push_back(e);
  }
  [[nodiscard]] const std::vector<TraceEvent>& events() const { return events_; }

 private:
  std::vector<TraceEvent> events_;
  std::deque<std::string> texts_;  // a deque: growing it moves no string
};

}  // namespace skein
