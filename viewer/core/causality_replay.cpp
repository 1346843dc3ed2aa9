// causality_replay.cpp — the replay's transitions; the state machine and
// its invariants are described in causality_replay.hpp.
#include "viewer/core/causality_replay.hpp"

#include <array>
#include <cassert>

namespace skein {
namespace {

// How far a chain of merges is followed (a merge cycle is a warning of the
// import and ignored there; here the bound keeps a hostile chain cheap).
constexpr int kMergeChainLimit = 64;

bool reads_or_waits(RecordHead h) { return h == RecordHead::read || h == RecordHead::wait; }

}  // namespace

std::string_view control_cause_name(ControlCause cause) {
  static constexpr std::array<std::string_view, 13> kNames = {
      "unexplained",  "first-actor",         "scheduler", "returns",
      "created-just-before", "reads-resolved", "notified", "merge-target",
      "switch-first-run", "switch-returns", "switch-notified", "switch-input-resolved", "switch-unchecked"};
  return kNames[static_cast<std::size_t>(cause)];
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
  if (current_ != kNoThread && current_ != kScheduler) threads_.at(current_).left = event;
}

void CausalityReplay::to_scheduler(std::int64_t event) {
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
  verdicts.push_back(t);
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
  if (!options_.check_switches) {
    t.cause = ControlCause::switch_unchecked;
  } else if (!ran_before) {
    t.cause = ControlCause::switch_first_run;
  } else if (returns) {
    t.cause = ControlCause::switch_returns;
  } else if (s.notified > s.left) {
    t.cause = ControlCause::switch_notified;
    t.cause_event = s.notified;
  } else {
    // threads_.at may grow the table and move `s`: look it up each time.
    const std::int64_t left = s.left;
    // Newest wait first.
    for (std::uint32_t k = threads_.at(to).inputs; k != 0; k = inputs_[k - 1].previous) {
      const std::int64_t resolved = threads_.at(inputs_[k - 1].input).resolved;
      if (resolved != 0 && resolved > left) {
        t.cause = ControlCause::switch_input_resolved;
        t.cause_event = resolved;
        break;
      }
    }
  }
  if (t.explained()) {
    verdicts.push_back(t);
    return;
  }
  pending_switch_ = PendingSwitch{t, previous_thread};
}

void CausalityReplay::on_actor(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  const ThreadId actor = e.actor;
  if (pending_switch_) {
    // The switched-to thread's first record decides its switch; any other
    // actor means control left it before it showed why it was woken.
    settle_pending_switch(actor == pending_switch_->transfer.to ? &e : nullptr, verdicts);
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
  } else if (on_stack(actor)) {
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
  }
  verdicts.push_back(t);
  leave_current(e.id);
  if (t.cause == ControlCause::returns) {
    pop_to(actor);
  } else if (t.cause != ControlCause::merge_target && current_ != kNoThread) {
    push(current_);
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
        threads_.at(target).waits_for_input = waits;
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
      if (target != kNoThread && target != kScheduler) threads_.at(target).notified = e.id;
      break;
    case RecordHead::resolve:
      if (target != kNoThread && target != kScheduler) {
        ThreadState& s = threads_.at(target);
        if (s.resolved == 0) {
          s.resolved = e.id;
          s.resolver = actor;
        }
      }
      break;
    case RecordHead::merge:
      if (target != kNoThread && target != kScheduler && actor != kNoThread) threads_.at(target).merged_from = actor;
      break;
    default:
      break;
  }
}

void CausalityReplay::step(const TraceEvent& e, std::vector<ControlTransfer>& verdicts) {
  switch (e.head) {
    case RecordHead::site:
    case RecordHead::label:
    case RecordHead::counter:
    case RecordHead::gc:
    case RecordHead::lost:
      return;  // no change of control, and "the record just before" skips them
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
