// causality_replay.hpp — replays a trace's records in order and decides,
// at every change of control, whether the trace recorded its cause. This
// is the state machine behind `missing-notification` (viewer/analysis/LINTS.md); it
// is its own concept because the mutation test and other rules read the
// same verdicts.
//
// State (a reading guide: `step` is the function to read first):
//   - current: the thread that has control (-1: the scheduler; kNoThread
//     before the first record with an actor);
//   - the stack: threads that handed control on and will get it back.
//     Callbacks run inside their resolver, so when a record's actor is
//     another thread, the thread that had control waits below it;
//   - per thread: when control last left it, when it was last notified,
//     when it was resolved and by whom, what it waits on, who last named
//     it, and which thread merged into it;
//   - the last switch's event: "resolved since the last switch" compares
//     a thread's resolve event with it.
//
// Transitions, one per record (FORMAT.md's actor decides who acts):
//   switch T  the stack is reset; control goes to T. Explained when T is
//             -1, has not run before, is the thread that switched directly
//             to the one now running (a fiber started by a switch from its
//             spawner gives control back to it when it blocks), was
//             notified or had an input resolved since it last ran; with no
//             notify record in the whole trace
//             (the 2014 MirageOS traces) it is not checked. Otherwise the
//             verdict waits for T's first record: reading or waiting on a
//             thread already resolved explains it (T was blocked on it, or,
//             for the main thread, on run() returning, which has no wait
//             record); anything else, or control leaving T first, does not.
//             Notified by another thread and with a `pause`/`yield` input
//             resolved, its switch is the yield's (control back): the
//             notify explains what it then hands off (polling, below).
//   return T  control comes back to T inside the turn (imported traces:
//             Lwt's leave_wakeup). Like a record whose actor is T (below),
//             and explained when T is on the stack; the stack and "the last
//             switch" stay. A return to a thread not on the stack (Lwt runs
//             an on_success callback in the thread that registered it)
//             changes nothing: that thread's next record is the transfer.
//   idle, actor -1
//             control returns to the scheduler: the stack is emptied; it
//             needs no cause.
//   a record whose actor A is not current
//             a transfer of control, explained when (in this order) A is on
//             the stack and the record is a return, or the trace records no
//             returns (control returns to it: the stack is popped down
//             to it), A was spawned by the record just before and its kind
//             starts at once (not bind and the other kinds that wait for an
//             input), the record reads or waits on a thread resolved since
//             the last switch, A was notified since it last ran, or a
//             thread that merged into A (through a chain of merges) is
//             current or on the stack. Else it is unexplained. Either way
//             the previous thread is pushed (unless control returned) and A
//             becomes current.
//   wait by the thread the latest spawn created (and its further waits)
//             the creator registering its new thread's inputs (`spawn 2 0
//             bind`, `wait 2 1`): control stays with the creator.
//   read of a thread no record resolved, with check_reads
//             unexplained too, whether control changed hands at it or not
//             (ControlTransfer with from == to, beside the transfer's own
//             verdict when that was explained).
//   labels, sites, counters, gc
//             change nothing (labelling a thread does not run it).
//   lost      records were dropped here: who has control after the gap is
//             unknown, so control goes back to the scheduler (a pending
//             switch is decided, the stack is emptied, the thread that had
//             control left at the gap). Until control is next back with
//             the scheduler (a switch, an idle, the end, a record by -1),
//             who called whom is unknown too: every unexplained verdict of
//             the turn the gap fell in carries the gap
//             (ControlTransfer::gap), and so does, later, one whose thread
//             (or input, or poller's previous turn) goes back to the gap or
//             before it: its cause may be among the records lost, and the
//             lint leaves it out (rules/lost_records.hpp).
//
//
// Polling (only with notify records, like switches): a wake-up a thread
// arranged for itself explains that it got control back, not what it then
// hands off.
//   a turn    an activation owned by the thread that took control from the
//             scheduler (or was switched to), with the callbacks it runs;
//             threads are counted per merge group (merge_groups.hpp: a
//             pause or sleep loop continues through merges), so a group's
//             turns are one thread's turns.
//   woken by itself
//             the turn's wake-up is one the group arranged: a `pause` or
//             `yield` thread resolved (or a `yield` notify), a `sleep` one
//             of its members created resolved by the scheduler (its own
//             timer), or a notify one of its members sent. The turn is
//             woken by itself *alone* when, since the group last ran, no
//             thread outside it notified a member (other than with a
//             yield) and no other input of the woken thread was resolved.
//   hand-off  a `resolve` by a member of the turn's group of a thread
//             outside it that no member created, or a `notify` by a member
//             of a thread outside it (not the scheduler). A notify and a
//             resolve of the same receiver in one turn are one hand-off
//             (a mailbox put records both).
//   an empty turn
//             a turn woken by itself alone that handed nothing off and
//             signalled no primitive (no `no-waiter` by a member).
//   A hand-off in a turn woken by itself, when the group's previous turn
//   was empty (it looked and found nothing), owes a cause: something
//   reached it between that look and this one. It is explained
//     - by a notify from outside the group since it last ran
//       (ControlCause::hand_off_notified: the notify names the sender);
//     - by the receiver's own request, when the hand-off is a primitive's
//       wake-up of a waiter that queued on it (`queued`) after the empty
//       turn ended, on a primitive the group signals as routine: it
//       signalled it before with nobody waiting (`no-waiter`), so it
//       signals it whatever it finds, and the waiter's recorded wait is
//       what the poller answered (ControlCause::hand_off_routine, citing
//       the waiter's spawn): a ticker releasing a semaphore, a flusher
//       broadcasting a condition;
//     - by nobody: when no thread of another group did work of its own
//       (a thread whose kind runs the program's code: not a join, all,
//       choose or pick, which only forward an outcome) since the empty
//       turn ended, nothing could have changed what the poller looks at,
//       and the hand-off is its own decision, on a counter or a clock
//       (ControlCause::hand_off_own);
//   and else it is unexplained (ControlTransfer with hand_off set). Its
//   candidates are the threads of other groups that did work of their own
//   in that window: first the group that created the receiver (it made
//   the request the poller answers), then the others, latest first; up
//   to three, the first is the suspect. A hand-off in the first self-woken
//   turn after a turn that did something is not checked: yielding before
//   acting is courtesy, the cause came before the yield.
//
// Invariants, checked in debug builds after every step (check_invariants):
//   1. current is never on the stack, and no thread is on it twice;
//   2. a thread's stack slot is its index on the stack plus one, 0 when it
//      is not on it;
//   3. a pending switch verdict names the current thread.
//
// Every verdict is a ControlTransfer, explained or not, so tests can see
// why a transfer was accepted, and the mutation test knows which record a
// transfer depended on (cause_event).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "viewer/analysis/merge_groups.hpp"
#include "viewer/analysis/thread_table.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

// The codes are stored (`transfers.cause`, recorder/store/SCHEMA.md): a new
// cause goes at the end.
enum class ControlCause : std::uint8_t {
  unexplained,
  first_actor,            // the first record with an actor: the program starts
  scheduler,              // control goes back to the loop (-1, idle): no cause needed
  returns,                // the actor is on the stack
  created_just_before,    // spawned by the record just before, a kind that starts at once
  reads_resolved,         // reads or waits on a thread resolved since the last switch
  notified,               // notified since it last ran
  merge_target,           // a thread merged into it is current or on the stack
  switch_first_run,       // a switch to a thread that has not run before
  switch_returns,         // ... to the thread that switched to the one running (a fiber's starter)
  switch_notified,        // ... notified since it last ran
  switch_input_resolved,  // ... an input of it resolved since it last ran
  switch_unchecked,       // the trace has no notify records: switches are not checked
  hand_off_notified,      // a hand-off after polling: another thread notified the poller since it last ran
  hand_off_own,           // ... and no other thread did work since it last found nothing: its own decision
  hand_off_routine,       // ... to a waiter that since queued on a primitive the poller signals as routine
};
inline constexpr std::size_t kControlCauseCount = static_cast<std::size_t>(ControlCause::hand_off_routine) + 1;
[[nodiscard]] std::string_view control_cause_name(ControlCause cause);

// How a polling thread woke itself (the replay's "woken by itself").
enum class PollWake : std::uint8_t { none, pause, yield, timer, notify };

struct ControlTransfer {
  std::int64_t event = 0;  // the record at which control changed hands
  TimeNs time = 0;
  RecordHead head = RecordHead::switch_;
  ThreadId from = kNoThread;   // who had control
  ThreadId to = kNoThread;     // the actor, or the switch's thread
  ThreadId input = kNoThread;  // the record's target (what a read or wait uses)
  ControlCause cause = ControlCause::unexplained;
  std::int64_t cause_event = 0;  // the record that explains it; 0 when none does
  ThreadId suspect = kNoThread;  // for unexplained ones: who most likely owes the record
  // A hand-off after polling (head resolve or notify, by `to`, of `input`):
  // `from` is the thread `to` took control from at the start of its turn.
  bool hand_off = false;
  std::int64_t wake_event = 0;   // the record at which `to` got control for this turn
  std::uint32_t idle_turns = 0;  // its empty turns just before
  PollWake wake = PollWake::none;  // how it woke itself
  TimeNs timer_ns = 0;             // with PollWake::timer: its timer's length
  // Unexplained: the threads of other groups that did work of their own
  // since its last empty turn, most likely first (suspect is the first),
  // and when the suspect last took control.
  std::array<ThreadId, 3> candidates = {kNoThread, kNoThread, kNoThread};
  TimeNs suspect_time = 0;
  // Unexplained, with a `(lost ...)` record (its event id) between the
  // start of what the verdict looked at and the verdict: the cause may be
  // among the records lost. 0 when none.
  std::int64_t gap = 0;

  [[nodiscard]] bool explained() const { return cause != ControlCause::unexplained; }
};

struct CausalityReplayOptions {
  // False for traces without notify records: switches are then accepted.
  bool check_switches = true;
  // True for traces with wait records (Skein's runtime), where a read
  // consumes an outcome, so the thread read must have been resolved. The
  // 2014 MirageOS traces record no waits, and their reads also look at
  // pending threads.
  bool check_reads = false;
  // True for traces that record returns (`return` records: the MirageOS
  // traces written with Lwt's leave_wakeup, recorder/import/mirage_sexp/lwt_switch.hpp). A
  // thread on the stack then gets control back only by a return record;
  // without one, its next record is a callback of its own starting (Lwt
  // runs a loop's callbacks as the loop's first thread). Skein's runtime
  // records no returns: control comes back down the stack unrecorded.
  bool returns_recorded = false;
};

class CausalityReplay {
 public:
  explicit CausalityReplay(CausalityReplayOptions options = {}) : options_(options) {}

  // Feeds the next record; appends the verdicts it settles (at most three:
  // a pending switch decided, this record's own transfer, and its verdict
  // as a hand-off after polling).
  void step(const TraceEvent& e, std::vector<ControlTransfer>& verdicts);
  // The trace's end: a switch still waiting for its verdict is decided.
  void finish(std::vector<ControlTransfer>& verdicts);

  [[nodiscard]] ThreadId current() const { return current_; }
  [[nodiscard]] std::size_t stack_depth() const { return stack_.size(); }

 private:
  struct ThreadState {
    std::int64_t left = 0;       // when control last left it
    std::int64_t notified = 0;   // its latest notify
    std::int64_t resolved = 0;   // its first resolve
    std::int64_t touched = 0;    // the latest record by another thread naming it
    ThreadId resolver = kNoThread;
    ThreadId toucher = kNoThread;
    ThreadId merged_from = kNoThread;  // the thread of the latest merge into it
    ThreadId last_input = kNoThread;   // its latest wait
    ThreadId switched_from = kNoThread;  // the thread that last switched to it directly
    std::uint32_t stack_slot = 0;      // index on the stack + 1; 0: not on it
    ThreadId creator = kNoThread;      // the thread whose spawn created it
    bool ran = false;
    bool waits_for_input = false;      // its kind waits for an input (bind, map...)
    ThreadId notifier = kNoThread;     // the sender of its latest notify
    std::int64_t spawned = 0;          // its spawn record; 0 when none was seen
    TimeNs spawn_time = 0;
    TimeNs resolved_time = 0;          // when its first resolve came
    bool yields = false;               // a `pause` or `yield` thread: its resolve is a yield
    bool sleeps = false;               // a `sleep` thread: the scheduler resolves it when its time comes
    bool forwards = false;             // a join, all, choose or pick: runs none of the program's code
    bool notified_by_yield = false;    // its latest notify had reason `yield`
    std::uint32_t inputs = 0;          // its waits: 1 + index of the latest in inputs_; 0: none
    std::int64_t queued_on = 0;        // the primitive (object number) it waits in, from `queued`; 0: none seen
  };
  struct PendingSwitch {
    ControlTransfer transfer;
    ThreadId ran_before = kNoThread;  // the thread that ran before the switch
    std::int64_t since = 0;           // when the thread last left, before the switch
  };
  // Per merge group, at its root: what polling needs across its turns.
  struct PollState {
    std::int64_t left = 0;         // when control last left a member
    std::int64_t woken = 0;        // the latest notify of a member from outside the group, not a yield
    std::uint32_t idle_turns = 0;  // its latest empty turns in a row
    std::int64_t last_wake = 0;    // the record at which its latest turn began
    // The primitives (object numbers) a member signalled with nobody
    // waiting (`no-waiter`): acts it makes whoever waits, its routine.
    std::vector<std::int64_t> routine;
  };
  // The turn in progress (owner kNoThread: none, or not checked).
  struct Turn {
    ThreadId owner = kNoThread;    // the thread that took control from the scheduler or by a switch
    std::int64_t wake_event = 0;   // the record at which it did
    ThreadId from = kNoThread;     // the thread it took control from
    PollWake wake = PollWake::none;  // the wake-up is one the group arranged (none: another's)
    TimeNs timer_ns = 0;
    bool self_only = false;        // ... and nothing else woke the group since it last ran
    bool handed_off = false;
    bool signalled = false;        // a member signalled a primitive with nobody waiting (no-waiter)
    std::int64_t notified_by = 0;  // a notify from outside the group since it last ran (when woken by itself)
    std::int64_t window = 0;       // when the group's last empty turn ended (with idle_turns)
    std::int64_t previous_wake = 0;  // where the group's turn before this one began
    std::uint32_t idle_turns = 0;  // the group's empty turns just before this one
  };
  // A thread that took control, for the candidates of a hand-off after
  // polling: the latest entries, one per run of a group.
  struct Activity {
    ThreadId thread = kNoThread;
    std::int64_t event = 0;
    TimeNs time = 0;
  };

  void step_record(const TraceEvent& e, std::vector<ControlTransfer>& verdicts);
  void note_primitive(const TraceEvent& e);  // drop, no-waiter, queued: polling bookkeeping only
  void on_switch(const TraceEvent& e, std::vector<ControlTransfer>& verdicts);
  void on_actor(const TraceEvent& e, std::vector<ControlTransfer>& verdicts);
  void to_scheduler(std::int64_t event);
  void leave_current(std::int64_t event);
  void push(ThreadId t);
  void pop_to(ThreadId t);  // pops t and everything above it
  void clear_stack();
  void settle_pending_switch(const TraceEvent* first_record, std::vector<ControlTransfer>& verdicts);
  [[nodiscard]] bool on_stack(ThreadId t);
  [[nodiscard]] ThreadId merged_into_chain(ThreadId actor);
  [[nodiscard]] ThreadId suspect_for(ThreadId actor, ThreadId input, ThreadId ran_before);
  void record_effects(const TraceEvent& e);
  void begin_turn(const ControlTransfer& wake, ThreadId input);
  void end_turn(std::int64_t event);
  void check_hand_off(const TraceEvent& e, std::vector<ControlTransfer>& verdicts);
  void note_control(ThreadId t, std::int64_t event, TimeNs time);  // t has control: the polling bookkeeping
  void merge_groups(ThreadId from, ThreadId into);
  [[nodiscard]] PollWake self_arranged(ThreadId input, ThreadId group);
  // The newest wait of `thread` resolved after record `since` that `accept`
  // takes; kNoThread when none.
  template <typename Accept>
  ThreadId newest_input_since(ThreadId thread, std::int64_t since, Accept accept);
  // The latest gap at or after `since` (a record id), or 0.
  [[nodiscard]] std::int64_t gap_since(std::int64_t since) const {
    return last_lost_ != 0 && last_lost_ >= since ? last_lost_ : 0;
  }
  // Where a thread's history, as the replay judges a transfer to it, starts.
  [[nodiscard]] std::int64_t seen_since(ThreadId t);
  void name_candidates(ControlTransfer& t, ThreadId group, ThreadId receiver);
  void check_invariants();

  CausalityReplayOptions options_;
  ThreadTable<ThreadState> threads_;
  std::vector<ThreadId> stack_;
  // Every wait, as a list per thread threaded through one vector (no
  // allocation per thread): the input and 1 + index of the thread's previous
  // wait, 0 for none.
  struct InputLink {
    ThreadId input;
    std::uint32_t previous;
  };
  std::vector<InputLink> inputs_;
  ThreadId current_ = kNoThread;
  ThreadId last_thread_ran_ = kNoThread;  // the latest thread (not -1) that had control
  std::int64_t last_switch_ = 0;
  std::int64_t last_lost_ = 0;  // the latest `lost` record that lost something
  bool in_gap_turn_ = false;    // since it, control has not been back with the scheduler
  ThreadId spawned_just_before_ = kNoThread;  // a child that may start at once
  ThreadId registering_ = kNoThread;          // the latest spawn's child, while its waits follow
  std::int64_t spawned_event_ = 0;
  std::optional<PendingSwitch> pending_switch_;
  // Polling (with notify records only).
  MergeGroups groups_;
  ThreadTable<PollState> polls_;  // by group root
  Turn turn_;
  std::vector<ThreadId> turn_receivers_;  // what the turn in progress handed off
  // The latest threads that took control, a ring of kActivityRing entries
  // (activity_next_ is where the next goes): a hand-off's window is short
  // (one empty turn), and a window longer than the ring has candidates
  // anyway.
  static constexpr std::size_t kActivityRing = 1024;
  std::vector<Activity> activity_;
  std::size_t activity_next_ = 0;
};

// Kinds whose threads wait for an input and so never start at their spawn.
[[nodiscard]] bool kind_waits_for_input(std::string_view kind);
// Kinds whose threads only forward what they read (join, all, choose,
// pick): none of the program's code runs as them.
[[nodiscard]] bool kind_forwards_only(std::string_view kind);

}  // namespace skein
