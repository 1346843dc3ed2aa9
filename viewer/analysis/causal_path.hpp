// causal_path.hpp — "why did this happen?" and "what did it cause?": walks
// the causal edges of a trace (recorder/store/SCHEMA.md, `edges`) backwards from a
// record to the root, or forwards from it, for the viewer's Why? panel.
//
// Backwards. A record is done by its actor A (the thread that had control).
// Its cause is the latest earlier record, scanning back, that made A act:
//
//   notify   S -> A          S woke A                      (cause S)
//   spawn    P -> A          A exists because P created it (cause P)
//   read/wait A -> I         A went on because I was resolved; the cause is
//                            I's resolve record and its resolver R  (cause R)
//
// The walk then asks the same of the cause's record, until the actor is the
// scheduler (-1: a timer, I/O or the start of the program), a record has no
// earlier cause, or a record is met twice. Threads joined by `merge` count
// as one (merge groups, as the lints see them), so a cause addressed to a
// thread before its tail-merge still explains its continuation. Each step
// carries the time it took: from the cause's record to the effect's, the
// latency that step added to the answer.
//
// Forwards. From a record of A, every later record of A in the same turn of
// the scheduler (up to the next switch) that hands control on: a notify or
// a spawn names its target; a resolve of T reaches every thread that later
// reads or waits on T. Each reached thread is followed the same way from
// that record, breadth first, each (thread, record) once, up to a limit.
//
// Both work on the events in memory (TraceEventList), in record order; a
// backward step scans back from its record, so its cost is the distance to
// the cause, not the size of the trace.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

#include "recorder/store/events_table.hpp"

namespace skein {

enum class CauseKind { spawn, notify, read, wait };

[[nodiscard]] std::string_view cause_kind_name(CauseKind kind);

// One step: `cause` did the record `cause_event`, which let `effect` do
// `effect_event`.
struct CausalStep {
  CauseKind kind = CauseKind::notify;
  ThreadId cause = kNoThread;
  ThreadId effect = kNoThread;
  std::int64_t cause_event = 0;   // event id
  std::int64_t effect_event = 0;  // event id
  TimeNs cause_time = 0;
  TimeNs effect_time = 0;
  [[nodiscard]] TimeNs latency() const { return effect_time - cause_time; }
};

// Why the record `event_id` (an event id) happened: its causes from the
// nearest to the root. Empty when the record has no actor or no earlier
// cause. At most `max_steps` steps.
[[nodiscard]] std::vector<CausalStep> why(const std::vector<TraceEvent>& events, std::int64_t event_id,
                                          std::size_t max_steps = 10'000);

// The record a question about a thread starts from: the last record whose
// actor is `thread` (or a thread of its merge group) at or before `at`;
// nullopt when it did nothing by then. The viewer asks "why?" of a
// selected thread at the time clicked, or at its end.
[[nodiscard]] std::optional<std::int64_t> last_record_of(const std::vector<TraceEvent>& events, ThreadId thread,
                                                         TimeNs at);

// What the record `event_id` went on to cause, in the order reached
// (breadth first), at most `max_steps` steps.
[[nodiscard]] std::vector<CausalStep> caused(const std::vector<TraceEvent>& events, std::int64_t event_id,
                                             std::size_t max_steps = 10'000);

}  // namespace skein
