// why_answer.hpp — "why did this happen?", answered from a trace database:
// the chain of recorded causes from a record back to its root, or to the
// point where the trace holds no cause. The engine behind the viewer's
// Why? panel and `skein why`.
//
// It reads the causality replay's verdicts (`transfer_blocks`, transfer_table.hpp,
// written by the lint beside the findings), so the answer agrees with the
// lints: a missing notification the lints report is where Why? stops with
// "no recorded cause". A step, from the record it explains backwards:
//
//   the record r, by thread A
//     a hand-off (a resolve or notify after polling) is explained by its
//     own verdict: the notify that told A, or nothing;
//     a read of a thread no record resolved: nothing;
//   otherwise, the change of control that gave A control before r (the
//   latest transfer to A's merge group at or before r):
//     read / wait   A went on because its input was resolved: the step goes
//                   to the resolve and its resolver R;
//     notify        S woke A: the step goes to the notify and S;
//     spawn         A started at its creation, or was switched to for the
//                   first time: the step goes to the spawn and its parent;
//     return        control came back to A: the walk continues with what
//                   gave A control before (no step);
//     unexplained   the end: "no recorded cause", with the replay's
//                   suspect.
//
// A question about a thread at a time asks one of two things, by what the
// thread is doing then (WhyAsk::automatic), or as asked:
//   woke        it runs then (an activation of its merge group holds the
//               time; `activations`, recorder/store/SCHEMA.md): what woke
//               the turn it runs in. The record explained is its latest
//               by then, and the walk starts with the change of control
//               that began the turn. Asked at `end` (no time), this is
//               the question: its last record.
//   ended_wait  it waits then: what ended the wait. The record explained
//               is the one by which its group next took control (the
//               transfer after the time: a read of what it waited on, a
//               switch to it), or, for a thread that never acts (a
//               promise, such as a B.read task), its resolve: the step
//               to its resolver. Still waiting at the end, the answer
//               says so, and ends at what made the wait endless when the
//               trace records it (WhyEnd::lost_wake_up): its last
//               resolver dropped (`drop`), or, waiting in a condition, the
//               signal that came before the wait and found nobody
//               (`no-waiter`, `queued`); also for what it waits on, along
//               its open waits.
// The answer says which it answered (WhyAnswer::asked), so the viewer can
// offer the other.
//
// A timer is not a root: a sleep resolved by the scheduler was armed by
// the thread that created it, so the walk takes a spawn step to that
// creation (the sleep thread "was created by" its creator) and goes on
// from there: a completion woken by its timer is explained by the turn
// that armed it.
//
// The walk ends at a root: the scheduler (I/O or a yield, by the reason of
// the notify or the kind of the thread resolved; a timer only when its
// sleep has no recorded creation), the program's first record, or a switch
// in a trace that records no wake-ups (the 2014 MirageOS traces); or with
// no recorded cause; or at the step limit.
//
// Cost: a few keyed lookups a step (events by id, transfers by key), and a
// scan back over the transfers of the activation a record lies in; never a
// pass over the trace. Opening reads the merge groups from `threads`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

enum class WhyStepKind : std::uint8_t { resolve, read, wait, notify, spawn };
[[nodiscard]] std::string_view why_step_kind_name(WhyStepKind kind);

// One step: `cause` did `cause_event`, which let `effect` act at
// `effect_event`.
struct WhyStep {
  WhyStepKind kind = WhyStepKind::read;
  ThreadId cause = kNoThread;
  ThreadId effect = kNoThread;
  std::int64_t cause_event = 0;
  std::int64_t effect_event = 0;
  TimeNs cause_time = 0;
  TimeNs effect_time = 0;
  std::string detail;  // a notify's reason, or the thread read
  [[nodiscard]] TimeNs latency() const { return effect_time - cause_time; }
};

enum class WhyEnd : std::uint8_t {
  root,               // the scheduler, the program's start, an unchecked switch
  no_recorded_cause,  // the trace holds no cause here
  nothing_to_ask,     // the subject did nothing by then, and was neither resolved nor created
  step_limit,
  lost_wake_up,       // nothing ended its wait, and nothing could: a dropped resolver, a lost signal
};

// Which question a Why? about a thread at a time answers (see the top).
enum class WhyAsk : std::uint8_t {
  automatic,   // what the time asks: woke while the thread runs, ended_wait while it waits
  woke,        // what woke the turn it runs in (its latest record by then)
  ended_wait,  // what ended the wait it is in (its next transfer, or its resolve)
};
[[nodiscard]] std::string_view why_ask_name(WhyAsk ask);

struct WhyAnswer {
  WhyAsk asked = WhyAsk::woke;   // woke or ended_wait: the question answered
  TimeNs asked_at = INT64_MAX;   // a question about a thread at a time: the time
  std::int64_t start_event = 0;  // the record asked about (0: none)
  ThreadId subject = kNoThread;
  TimeNs start_time = 0;
  std::vector<WhyStep> steps;  // from the subject back to the root
  WhyEnd end = WhyEnd::nothing_to_ask;
  std::string end_text;  // the root ("the scheduler: a timer", "the program's start"), or what acted with no cause
  // With no_recorded_cause: where the cause is missing, and who most
  // likely owes it. With lost_wake_up: the thread nothing can settle
  // (stuck), the record that made it so (a drop, or the signal nobody
  // heard: stuck_event), and the thread that did it (suspect).
  ThreadId stuck = kNoThread;          // the thread that acted with no cause
  std::int64_t stuck_event = 0;
  ThreadId suspect = kNoThread;
};

struct WhyQuestion {
  std::optional<std::int64_t> event;  // a record (event id); or:
  ThreadId thread = kNoThread;        // a thread, at `at`
  TimeNs at = INT64_MAX;              // INT64_MAX: its end
  WhyAsk ask = WhyAsk::automatic;     // with a thread: which question
};

class WhyEngine {
 public:
  // Needs the lint's `transfer_blocks` table; the error says to lint first when
  // it is missing.
  [[nodiscard]] static Result<WhyEngine> open(TraceStore& store);
  WhyEngine(WhyEngine&&) noexcept;
  WhyEngine& operator=(WhyEngine&&) noexcept;
  ~WhyEngine();

  [[nodiscard]] Result<WhyAnswer> answer(const WhyQuestion& question, std::size_t max_steps = 1000);

 private:
  struct State;
  explicit WhyEngine(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
  struct ThreadRowView {
    std::int64_t first_event = 0;
    std::int64_t last_event = 0;
  };
  // Fills `a` with the lost wake-up behind a wait nothing ended, if the
  // trace records one; false when it does not.
  [[nodiscard]] Result<bool> lost_wake_up(ThreadId subject, const ThreadRowView& row, WhyAnswer& a);
};

// The answer as text, one step a line (`skein why`'s output): times in µs
// since the trace's origin, threads with their labels from `label_of`; a
// question about a thread at a time says which question it answered and
// how to ask the other (`--woke`, `--wait`). Text for a terminal: labels,
// details and the end's text go through terminal_text() (output_escape.hpp).
[[nodiscard]] std::string render_why_text(const WhyAnswer& answer, const std::function<std::string(ThreadId)>& label_of);

}  // namespace skein
