// causality_replay.cpp — the replay's transitions; the state machine and
// its invariants are described in causality_replay.hpp.
#include "viewer/analysis/causality_replay.hpp"

#include <algorithm>
#include <array>
#include <cassert>

namespace skein {
namespace {

// How far a chain of merges is followed (a merge cycle is a warning of the
// import and ignored there; here the bound keeps a hostile chain cheap).
constexpr int kMergeChainLimit = 64;

bool reads_or_waits(RecordHead h) { return h == RecordHead::read || h == RecordHead::wait; }
bool is_thread(ThreadId t) { return t != kNoThread && t != kScheduler; }

}  // namespace

std::string_view control_cause_name(ControlCause cause) {
  static constexpr std::array<std::string_view, kControlCauseCount> kNames = {
      "unexplained",  "first-actor",         "scheduler", "returns",
      "created-just-before", "reads-resolved", "notified", "merge-target",
      "switch-first-run", "switch-returns", "switch-notified", "switch-input-resolved", "switch-unchecked",
      "hand-off-notified", "hand-off-own", "hand-off-routine"};
  return kNames[static_cast<std::size_t>(cause)];
}

bool kind_forwards_only(std::string_view kind) {
  // Skein's combinators, which read their inputs and settle with what they
  // read: none of the program's code runs as them.
  return kind == "join" || kind == "all" || kind == "choose" || kind == "pick";
}

bool kind_waits_for_input(std::string_view kind) {
  // Skein's and the 2014 MirageOS kinds (lower-cased) that take an input
  // and run their callback only once it resolves.
  static constexpr std::array<std::string_view, 10> kWaiting = {
      "bind", "map", "catch", "finalize", "try", "on_success", "on_failure", "on_termination",
      "on_any", "ignore_result"};
  for (const auto k : kWaiting)
    if (k == kind) return true;
  return false;
}

std::int64_t CausalityReplay::seen_since(ThreadId t) {
  const ThreadState& s = threads_.at(t);
  return s.ran ? s.left : s.spawned;
}

bool CausalityReplay::on_stack(ThreadId t) {
  const ThreadState& s = threads_.at(t);
  return s.stack_slot != 0;
}

void CausalityReplay::push(ThreadId t) {
  if (t == kNoThread) return;
  stack_.push_back(t);
  threads_.at(t).stack_slot = static_cast<std::uint32_t>(stack_.size());
}

void CausalityReplay::pop_to(ThreadId t) {
  while (!stack_.empty()) {
    const ThreadId top = stack_.back();
    stack_.pop_back();
    threads_.at(top).stack_slot = 0;
    if (top == t) return;
  }
}

void CausalityReplay::clear_stack() {
  for (const ThreadId t : stack_) threads_.at(t).stack_slot = 0;
  stack_.clear();
}

void CausalityReplay::leave_current(std::int64_t event) {
  if (current_ == kNoThread || current_ == kScheduler) return;
  threads_.at(current_).left = event;
  if (options_.check_switches) polls_.at(groups_.root(current_)).left = event;
}

void CausalityReplay::to_scheduler(std::int64_t event) {
  end_turn(event);
  leave_current(event);
  clear_stack();
  current_ = kScheduler;
}

ThreadId CausalityReplay::merged_into_chain(ThreadId actor) {
  ThreadId t = actor;
  for (int i = 0; i < kMergeChainLimit; ++i) {
    const ThreadId from = threads_.at(t).merged_from;
    if (from == kNoThread || from == actor) return kNoThread;
    if (from == current_ || on_stack(from)) return from;
    t = from;
  }
  return kNoThread;
}

ThreadId CausalityReplay::suspect_for(ThreadId actor, ThreadId input, ThreadId ran_before) {
  // The thread that last resolved or touched what the actor went on to use
  // (the record's input, else the actor's latest input), else the thread
  // that ran just before.
  const auto owner_of = [&](ThreadId used) -> ThreadId {
    if (used == kNoThread || used == kScheduler) return kNoThread;
    const ThreadState& u = threads_.at(used);
    if (u.resolver != kNoThread) return u.resolver;
    if (u.toucher != kNoThread && u.toucher != actor) return u.toucher;
    return kNoThread;
  };
  if (const ThreadId s = owner_of(input); s != kNoThread) return s;
  if (const ThreadId s = owner_of(threads_.at(actor).last_input); s != kNoThread) return s;
  return ran_before != actor ? ran_before : kNoThread;
}

void CausalityReplay::settle_pending_switch(const TraceEvent* first_record,
                                            std::vector<ControlTransfer>& verdicts) {
  if (!pending_switch_) return;
  const PendingSwitch pending = *pending_switch_;
  pending_switch_.reset();
  ControlTransfer t = pending.transfer;
  if (first_record != nullptr && reads_or_waits(first_record->head) && first_record->target != kNoThread &&
      first_record->target != kScheduler) {
    // Reading a thread already resolved is a reason to have been run: a
    // thread blocked on it (or on run() returning, which the main thread's
    // switch back stands for) gets control once it has resolved, whenever
    // that was.
    const ThreadState& input = threads_.at(first_record->target);
    if (input.resolved != 0) {
      t.cause = ControlCause::switch_input_resolved;
      t.cause_event = input.resolved;
      verdicts.push_back(t);
      return;
    }
  }
  t.input = first_record != nullptr ? first_record->target : kNoThread;
  t.suspect = suspect_for(t.to, t.input, pending.ran_before);
  t.gap = gap_since(pending.since);
  verdicts.push_back(t);
}

template <typename Accept>
ThreadId CausalityReplay::newest_input_since(ThreadId thread, std::int64_t since, Accept accept) {
  // A wait that resolved before `thread` last left was seen by it: it ran
  // after the resolve, so the resolve explains none of its later wake-ups.
  // Such waits are unlinked as the walk passes them, so a walk costs the
  // thread's pending and newly resolved waits, not every wait it ever made
  // (a fiber that pauses 100,000 times would make each turn quadratic).
  const std::int64_t seen_before = threads_.at(thread).left;
  std::uint32_t newer = 0;  // 1 + index of the link before k; 0: k is the head
  for (std::uint32_t k = threads_.at(thread).inputs; k != 0;) {
    const InputLink link = inputs_[k - 1];
    const std::int64_t resolved = threads_.at(link.input).resolved;
    if (resolved != 0 && resolved > since && accept(link.input)) return link.input;
    if (resolved != 0 && resolved <= seen_before) {
      if (newer == 0) {
        threads_.at(thread).inputs = link.previous;
      } else {
        inputs_[newer - 1].previous = link.previous;
      }
    } else {
      newer = k;
    }
    k = link.previous;
  }
  return kNoThread;
}

void CausalityReplay::on_switch(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  settle_pending_switch(nullptr, verdicts);
  const ThreadId to = e.actor;
  ControlTransfer t;
  t.event = e.id;
  t.time = e.time;
  t.head = e.head;
  t.from = current_;
  t.to = to;
  end_turn(e.id);
  leave_current(e.id);
  clear_stack();
  last_switch_ = e.id;
  spawned_just_before_ = kNoThread;
  registering_ = kNoThread;
  current_ = to;
  if (to == kScheduler || to == kNoThread) {
    t.cause = ControlCause::scheduler;
    verdicts.push_back(t);
    return;
  }
  const ThreadId previous_thread = last_thread_ran_;
  last_thread_ran_ = to;
  const ThreadId from = t.from;
  // A direct switch from a thread links the two until control goes back
  // (the link is used up) or the thread is next switched to from the loop.
  const bool from_thread = from != kNoThread && from != kScheduler;
  const bool returns = from_thread && threads_.at(from).switched_from == to;
  if (returns) threads_.at(from).switched_from = kNoThread;
  threads_.at(to).switched_from = from_thread && !returns ? from : kNoThread;
  ThreadState& s = threads_.at(to);
  const bool ran_before = s.ran;
  s.ran = true;
  ThreadId woken_by = kNoThread;  // the input whose resolve explains the switch
  if (!options_.check_switches) {
    t.cause = ControlCause::switch_unchecked;
  } else if (!ran_before) {
    t.cause = ControlCause::switch_first_run;
  } else if (returns) {
    t.cause = ControlCause::switch_returns;
  } else {
    // threads_.at may grow the table and move `s`: look it up each time.
    const std::int64_t left = s.left;
    const std::int64_t notified = s.notified;
    const bool notified_by_yield = s.notified_by_yield;
    // The newest wait resolved since it last ran.
    const ThreadId input = newest_input_since(to, left, [](ThreadId) { return true; });
    const std::int64_t input_resolved = input != kNoThread ? threads_.at(input).resolved : 0;
    // Notified by another thread and woken by its own yield: the yield gave
    // it control back, the notify explains what it then hands off
    // (check_hand_off).
    const bool yield_wins =
        input != kNoThread && !notified_by_yield && self_arranged(input, groups_.root(to)) != PollWake::none;
    if (notified > left && !yield_wins) {
      t.cause = ControlCause::switch_notified;
      t.cause_event = notified;
    } else if (input != kNoThread) {
      t.cause = ControlCause::switch_input_resolved;
      t.cause_event = input_resolved;
      t.input = input;
      woken_by = input;
    }
  }
  // A switch whose verdict waits is no yield: its turn is checked as one
  // with a cause of its own.
  begin_turn(t, woken_by);
  note_control(to, e.id, e.time);
  if (t.explained()) {
    verdicts.push_back(t);
    return;
  }
  pending_switch_ = PendingSwitch{t, previous_thread, threads_.at(to).left};
}

void CausalityReplay::on_actor(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  const ThreadId actor = e.actor;
  if (pending_switch_) {
    // The switched-to thread's first record decides its switch; any other
    // actor means control left it before it showed why it was woken.
    settle_pending_switch(actor == pending_switch_->transfer.to ? &e : nullptr, verdicts);
  }
  if (e.head == RecordHead::return_ && actor != current_ && !on_stack(actor)) {
    // Control passes, inside the turn, to a thread that is not waiting for
    // it to come back: the runtime runs a callback of that thread's (Lwt's
    // switch_to_thread before an on_success callback). The thread's next
    // record, its read of what woke it, is judged as the transfer.
    return;
  }
  if (actor == current_) {
    if (options_.check_reads && e.head == RecordHead::read && e.target != kNoThread && e.target != kScheduler &&
        threads_.at(e.target).resolved == 0) {
      ControlTransfer t;
      t.event = e.id;
      t.time = e.time;
      t.head = e.head;
      t.from = actor;
      t.to = actor;
      t.input = e.target;
      t.suspect = suspect_for(actor, e.target, last_thread_ran_);
      t.gap = gap_since(threads_.at(e.target).spawned);
      verdicts.push_back(t);
    }
    return;
  }
  ControlTransfer t;
  t.event = e.id;
  t.time = e.time;
  t.head = e.head;
  t.from = current_;
  t.to = actor;
  t.input = e.target;
  if (current_ == kNoThread) {
    t.cause = ControlCause::first_actor;
  } else if (actor == kScheduler) {
    t.cause = ControlCause::scheduler;
    verdicts.push_back(t);
    to_scheduler(e.id);
    return;
  } else if ((e.head == RecordHead::return_ || !options_.returns_recorded) && on_stack(actor)) {
    t.cause = ControlCause::returns;
  } else if (actor == spawned_just_before_) {
    t.cause = ControlCause::created_just_before;
    t.cause_event = spawned_event_;
  } else if (reads_or_waits(e.head) && e.target != kNoThread && e.target != kScheduler &&
             threads_.at(e.target).resolved > last_switch_) {
    t.cause = ControlCause::reads_resolved;
    t.cause_event = threads_.at(e.target).resolved;
  } else if (threads_.at(actor).notified > threads_.at(actor).left) {
    t.cause = ControlCause::notified;
    t.cause_event = threads_.at(actor).notified;
  } else if (const ThreadId m = merged_into_chain(actor); m != kNoThread) {
    t.cause = ControlCause::merge_target;
    if (m != current_) pop_to(m);
  } else {
    t.suspect = suspect_for(actor, e.target, current_ != kScheduler ? current_ : last_thread_ran_);
    t.gap = gap_since(seen_since(actor));
  }
  verdicts.push_back(t);
  if (t.explained() && t.cause != ControlCause::reads_resolved && options_.check_reads &&
      e.head == RecordHead::read && is_thread(e.target) && threads_.at(e.target).resolved == 0) {
    // Control came here for another reason, but what the actor reads was
    // never resolved.
    ControlTransfer u;
    u.event = e.id;
    u.time = e.time;
    u.head = e.head;
    u.from = actor;
    u.to = actor;
    u.input = e.target;
    u.suspect = suspect_for(actor, e.target, current_ != kScheduler ? current_ : last_thread_ran_);
    u.gap = gap_since(threads_.at(e.target).spawned);
    verdicts.push_back(u);
  }
  if (options_.check_switches) {
    if (current_ == kNoThread || current_ == kScheduler) {
      begin_turn(t, t.cause == ControlCause::reads_resolved ? e.target : kNoThread);
    } else if (t.cause != ControlCause::returns && turn_.owner != kNoThread &&
               groups_.root(actor) != groups_.root(turn_.owner)) {
      // Control inside another group's turn has a cause of its own: the
      // actor's polling, if any, is interrupted.
      polls_.at(groups_.root(actor)).idle_turns = 0;
    }
    note_control(actor, e.id, e.time);
  }
  leave_current(e.id);
  if (t.cause == ControlCause::returns) {
    pop_to(actor);
  } else {
    // In a trace that records returns, an actor still on the stack that
    // takes control with no return starts a callback of its own: the
    // frames above its old place had returned (Lwt runs queued wakeups
    // once the nested ones are over).
    if (on_stack(actor)) pop_to(actor);
    if (t.cause != ControlCause::merge_target && current_ != kNoThread) push(current_);
  }
  current_ = actor;
  last_thread_ran_ = actor;
  threads_.at(actor).ran = true;
}

void CausalityReplay::record_effects(const TraceEvent& e) {
  const ThreadId actor = e.actor;
  const ThreadId target = e.target;
  if (target != kNoThread && target != kScheduler && target != actor) {
    ThreadState& s = threads_.at(target);
    s.touched = e.id;
    s.toucher = actor;
  }
  switch (e.head) {
    case RecordHead::spawn:
      if (target != kNoThread && target != kScheduler) {
        const bool waits = e.has_text && kind_waits_for_input(e.text);
        ThreadState& s = threads_.at(target);
        s.waits_for_input = waits;
        s.creator = actor;
        if (s.spawned == 0) s.spawned = e.id;
        s.spawn_time = e.time;
        s.yields = e.has_text && (e.text == "pause" || e.text == "yield");
        s.sleeps = e.has_text && e.text == "sleep";
        s.forwards = e.has_text && kind_forwards_only(e.text);
        if (!waits) {
          spawned_just_before_ = target;
          spawned_event_ = e.id;
        }
      }
      break;
    case RecordHead::wait:
      if (actor != kNoThread && actor != kScheduler && target != kNoThread) {
        ThreadState& s = threads_.at(actor);
        s.last_input = target;
        if (s.inputs == 0 || inputs_[s.inputs - 1].input != target) {
          inputs_.push_back(InputLink{target, s.inputs});
          s.inputs = static_cast<std::uint32_t>(inputs_.size());
        }
      }
      break;
    case RecordHead::notify:
      if (target != kNoThread && target != kScheduler) {
        const bool yield = e.has_text && e.text == "yield";
        ThreadState& s = threads_.at(target);
        s.notified = e.id;
        s.notifier = actor;
        s.notified_by_yield = yield;
        if (options_.check_switches && !yield && actor != kNoThread) {
          const ThreadId group = groups_.root(target);
          if (groups_.root(actor) != group) polls_.at(group).woken = e.id;
        }
      }
      break;
    case RecordHead::resolve:
      if (target != kNoThread && target != kScheduler) {
        ThreadState& s = threads_.at(target);
        if (s.resolved == 0) {
          s.resolved = e.id;
          s.resolved_time = e.time;
          s.resolver = actor;
        }
      }
      break;
    case RecordHead::merge:
      if (target != kNoThread && target != kScheduler && actor != kNoThread) {
        threads_.at(target).merged_from = actor;
        if (options_.check_switches && actor != kScheduler) merge_groups(actor, target);
      }
      break;
    default:
      break;
  }
}

void CausalityReplay::merge_groups(ThreadId from, ThreadId into) {
  // `into` continues `from`: the merged group keeps from's polling history,
  // and any notify either part received.
  const ThreadId from_root = groups_.root(from);
  const ThreadId into_root = groups_.root(into);
  if (from_root == into_root) return;
  PollState merged = polls_.at(from_root);
  const PollState& into_state = polls_.at(into_root);
  merged.woken = std::max(merged.woken, into_state.woken);
  for (const std::int64_t object : into_state.routine)
    if (std::find(merged.routine.begin(), merged.routine.end(), object) == merged.routine.end())
      merged.routine.push_back(object);
  groups_.merge(from, into);
  polls_.at(groups_.root(from)) = merged;
}

void CausalityReplay::note_control(ThreadId t, std::int64_t event, TimeNs time) {
  if (!options_.check_switches || t == kNoThread || t == kScheduler) return;
  if (threads_.at(t).forwards) return;  // runs none of the program's code: no candidate
  if (activity_.empty()) activity_.resize(kActivityRing);
  Activity& last = activity_[(activity_next_ + kActivityRing - 1) % kActivityRing];
  if (last.thread != kNoThread && groups_.root(last.thread) == groups_.root(t)) {
    last = Activity{t, event, time};
    return;
  }
  activity_[activity_next_] = Activity{t, event, time};
  activity_next_ = (activity_next_ + 1) % kActivityRing;
}

PollWake CausalityReplay::self_arranged(ThreadId input, ThreadId group) {
  if (!is_thread(input)) return PollWake::none;
  const ThreadState& in = threads_.at(input);
  if (in.yields) return PollWake::pause;
  if (in.sleeps && in.resolver == kScheduler && is_thread(in.creator)) {
    const ThreadId creator = in.creator;
    if (groups_.root(creator) == group) return PollWake::timer;
  }
  return PollWake::none;
}

void CausalityReplay::name_candidates(ControlTransfer& t, ThreadId group, ThreadId receiver) {
  // The threads of other groups that took control since the window opened,
  // newest first, one per group; the receiver's creator's group first.
  std::array<ThreadId, 3> found = {kNoThread, kNoThread, kNoThread};
  std::array<TimeNs, 3> found_time = {0, 0, 0};
  std::size_t n = 0;
  ThreadId requester = kNoThread;
  if (is_thread(receiver)) {
    const ThreadId creator = threads_.at(receiver).creator;
    if (is_thread(creator)) requester = groups_.root(creator);
  }
  std::array<ThreadId, 3> roots = {kNoThread, kNoThread, kNoThread};
  ThreadId requester_thread = kNoThread;
  TimeNs requester_time = 0;
  for (std::size_t k = 1; k <= kActivityRing && !activity_.empty(); ++k) {
    const Activity& a = activity_[(activity_next_ + kActivityRing - k) % kActivityRing];
    // The record that ended the poller's last empty turn may give the
    // next thread control: that thread ran after the poller looked.
    if (a.thread == kNoThread || a.event < turn_.window) break;
    const ThreadId root = groups_.root(a.thread);
    if (root == group) continue;
    if (root == requester) {
      if (requester_thread == kNoThread) {
        requester_thread = a.thread;
        requester_time = a.time;
      }
      continue;
    }
    if (n < found.size() && std::find(roots.begin(), roots.begin() + n, root) == roots.begin() + n) {
      roots[n] = root;
      found[n] = a.thread;
      found_time[n] = a.time;
      ++n;
    }
  }
  std::size_t m = 0;
  if (requester_thread != kNoThread) {
    t.candidates[m] = requester_thread;
    t.suspect_time = requester_time;
    ++m;
  }
  for (std::size_t i = 0; i < n && m < t.candidates.size(); ++i, ++m) {
    if (m == 0) t.suspect_time = found_time[i];
    t.candidates[m] = found[i];
  }
  t.suspect = t.candidates[0];
}

void CausalityReplay::begin_turn(const ControlTransfer& wake, ThreadId input) {
  turn_ = Turn{};
  turn_receivers_.clear();
  const ThreadId owner = wake.to;
  if (!options_.check_switches || owner == kNoThread || owner == kScheduler) return;
  turn_.owner = owner;
  turn_.wake_event = wake.event;
  turn_.from = wake.from;
  const ThreadId group = groups_.root(owner);
  switch (wake.cause) {
    case ControlCause::reads_resolved:
    case ControlCause::switch_input_resolved:
      turn_.wake = self_arranged(input, group);
      if (turn_.wake == PollWake::timer) {
        const ThreadState& timer = threads_.at(input);
        turn_.timer_ns = timer.resolved_time - timer.spawn_time;
      }
      break;
    case ControlCause::notified:
    case ControlCause::switch_notified: {
      const ThreadState& s = threads_.at(owner);
      if (s.notified_by_yield) {
        turn_.wake = PollWake::yield;
      } else if (is_thread(s.notifier)) {
        const ThreadId notifier = s.notifier;
        if (groups_.root(notifier) == group) turn_.wake = PollWake::notify;
      }
      break;
    }
    default:
      break;
  }
  PollState& poll = polls_.at(group);
  const std::int64_t previous_wake = poll.last_wake;
  poll.last_wake = wake.event;
  if (turn_.wake == PollWake::none) {
    poll.idle_turns = 0;
    return;
  }
  turn_.idle_turns = poll.idle_turns;
  turn_.window = poll.left;
  turn_.previous_wake = previous_wake;
  const std::int64_t left = poll.left;
  if (poll.woken > left) {
    turn_.notified_by = poll.woken;
    return;
  }
  // Another input of the woken thread resolved since the group last ran,
  // other than one the group arranged itself, is a recorded cause too.
  const auto arranged_elsewhere = [this, group](ThreadId in) { return self_arranged(in, group) == PollWake::none; };
  if (newest_input_since(owner, left, arranged_elsewhere) != kNoThread) return;
  turn_.self_only = true;
}

void CausalityReplay::end_turn(std::int64_t event) {
  if (turn_.owner == kNoThread) return;
  PollState& poll = polls_.at(groups_.root(turn_.owner));
  poll.left = std::max(poll.left, event);
  poll.idle_turns = turn_.self_only && !turn_.handed_off && !turn_.signalled ? poll.idle_turns + 1 : 0;
  turn_ = Turn{};
}

void CausalityReplay::note_primitive(const TraceEvent& e) {
  if (!options_.check_switches || !e.has_value) return;
  if (e.head == RecordHead::queued && is_thread(e.target)) {
    threads_.at(e.target).queued_on = e.value;
  } else if (e.head == RecordHead::no_waiter && is_thread(e.actor)) {
    const ThreadId group = groups_.root(e.actor);
    std::vector<std::int64_t>& routine = polls_.at(group).routine;
    if (std::find(routine.begin(), routine.end(), e.value) == routine.end()) routine.push_back(e.value);
    if (turn_.owner != kNoThread && groups_.root(turn_.owner) == group) turn_.signalled = true;
  }
}

void CausalityReplay::check_hand_off(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  if (turn_.owner == kNoThread || (e.head != RecordHead::resolve && e.head != RecordHead::notify)) return;
  if (e.target == kNoThread || e.target == kScheduler) return;
  const ThreadId group = groups_.root(turn_.owner);
  if (groups_.root(e.actor) != group || groups_.root(e.target) == group) return;
  if (e.head == RecordHead::resolve) {
    const ThreadId creator = threads_.at(e.target).creator;
    if (creator != kNoThread && groups_.root(creator) == group) return;  // settling its own thread
  }
  // One hand-off per receiver and turn: a mailbox put notifies the taker,
  // then resolves it.
  if (std::find(turn_receivers_.begin(), turn_receivers_.end(), e.target) != turn_receivers_.end()) return;
  turn_receivers_.push_back(e.target);
  turn_.handed_off = true;
  // A turn woken by itself that was notified since it last ran: the notify
  // explains what it hands off (whatever came before). Otherwise only a
  // turn after one that looked and found nothing owes a cause.
  if (turn_.wake == PollWake::none) return;
  if (turn_.notified_by == 0 && (turn_.idle_turns == 0 || !turn_.self_only)) return;
  ControlTransfer t;
  t.event = e.id;
  t.time = e.time;
  t.head = e.head;
  t.from = turn_.from;
  t.to = e.actor;
  t.input = e.target;
  t.hand_off = true;
  t.wake_event = turn_.wake_event;
  t.idle_turns = turn_.idle_turns;
  t.wake = turn_.wake;
  t.timer_ns = turn_.timer_ns;
  const ThreadState& receiver = threads_.at(e.target);
  const std::vector<std::int64_t>& routine = polls_.at(group).routine;
  if (turn_.notified_by != 0) {
    t.cause = ControlCause::hand_off_notified;
    t.cause_event = turn_.notified_by;
  } else if (receiver.queued_on != 0 && receiver.spawned > turn_.window &&
             std::find(routine.begin(), routine.end(), receiver.queued_on) != routine.end()) {
    t.cause = ControlCause::hand_off_routine;
    t.cause_event = receiver.spawned;
  } else {
    name_candidates(t, group, e.target);
    if (t.suspect == kNoThread) t.cause = ControlCause::hand_off_own;
    else t.gap = gap_since(turn_.previous_wake);
  }
  verdicts.push_back(t);
}

void CausalityReplay::step(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  const std::size_t first_verdict = verdicts.size();
  const bool gap_turn = in_gap_turn_;
  step_record(e, verdicts);
  if (gap_turn) {
    // Who called whom in the turn the gap fell in is unknown.
    for (std::size_t i = first_verdict; i < verdicts.size(); ++i)
      if (!verdicts[i].explained() && verdicts[i].gap == 0) verdicts[i].gap = last_lost_;
  }
}

void CausalityReplay::step_record(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  if (in_gap_turn_ && (e.head == RecordHead::switch_ || e.head == RecordHead::idle || e.head == RecordHead::end ||
                       (e.actor == kScheduler && e.head != RecordHead::label)))
    in_gap_turn_ = false;  // control is back with the scheduler
  switch (e.head) {
    case RecordHead::site:
    case RecordHead::label:
    case RecordHead::counter:
    case RecordHead::gc:
      return;  // no change of control, and "the record just before" skips them
    case RecordHead::drop:  // lost wake-ups, recorded by the thread already running: no hand-over
    case RecordHead::no_waiter:
    case RecordHead::queued:
      note_primitive(e);
      return;
    case RecordHead::lost:
      if (!e.has_value || e.value <= 0) return;  // nothing was lost
      last_lost_ = e.id;
      in_gap_turn_ = true;
      settle_pending_switch(nullptr, verdicts);
      if (current_ != kNoThread) to_scheduler(e.id);
      spawned_just_before_ = kNoThread;
      registering_ = kNoThread;
      break;
    case RecordHead::switch_:
      on_switch(e, verdicts);
      break;
    case RecordHead::idle:
    case RecordHead::end:
      settle_pending_switch(nullptr, verdicts);
      if (current_ != kNoThread) to_scheduler(e.id);
      spawned_just_before_ = kNoThread;
      registering_ = kNoThread;
      break;
    default: {
      if (e.actor == kNoThread) return;
      if (e.head == RecordHead::wait && e.actor == registering_) {
        // The creator registers its new thread's inputs: control stays.
        record_effects(e);
        break;
      }
      // "The record just before" is the previous record with an actor
      // (labels, counters and the like in between do not count).
      on_actor(e, verdicts);
      check_hand_off(e, verdicts);
      spawned_just_before_ = kNoThread;
      registering_ = e.head == RecordHead::spawn ? e.target : kNoThread;
      record_effects(e);
      break;
    }
  }
#ifndef NDEBUG
  check_invariants();
#endif
}

void CausalityReplay::finish(std::vector<ControlTransfer>& verdicts) { settle_pending_switch(nullptr, verdicts); }

void CausalityReplay::check_invariants() {
  // The top of the stack is where it changes; checking all of a deep stack
  // at every record would make debug runs quadratic.
  const std::size_t from = stack_.size() > 32 ? stack_.size() - 32 : 0;
  for (std::size_t i = from; i < stack_.size(); ++i) {
    assert(stack_[i] != current_ && "invariant 1: current is never on the stack");
    assert(threads_.at(stack_[i]).stack_slot == i + 1 && "invariant 2: stack slots match the stack");
  }
  assert((!pending_switch_ || pending_switch_->transfer.to == current_) &&
         "invariant 3: a pending switch names the current thread");
}

}  // namespace skein
