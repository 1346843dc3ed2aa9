// why_answer.cpp — the walk of why_answer.hpp over a trace database: the
// subject's record, then one change of control at a time, each read from
// `transfer_blocks` and explained by the record its verdict names.
#include "viewer/analysis/why_answer.hpp"

#include <cstdio>
#include <set>

#include "viewer/analysis/merge_groups.hpp"
#include "recorder/export/output_escape.hpp"
#include "recorder/store/activations_table.hpp"
#include "recorder/store/store_value_check.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {
namespace {

bool is_thread(ThreadId t) { return t != kNoThread && t != kScheduler; }


std::string us(TimeNs ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f µs", static_cast<double>(ns) / 1e3);
  return buf;
}

}  // namespace

std::string_view why_ask_name(WhyAsk ask) {
  switch (ask) {
    case WhyAsk::automatic: return "automatic";
    case WhyAsk::woke: return "woke";
    case WhyAsk::ended_wait: return "ended-wait";
  }
  return "automatic";
}

std::string_view why_step_kind_name(WhyStepKind kind) {
  switch (kind) {
    case WhyStepKind::resolve: return "resolve";
    case WhyStepKind::read: return "read";
    case WhyStepKind::wait: return "wait";
    case WhyStepKind::notify: return "notify";
    case WhyStepKind::spawn: return "spawn";
  }
  return "unknown";
}

struct WhyEngine::State {
  State(TraceEventLookup event, SqliteStatement thread, SqliteStatement block, SqliteStatement latest,
        ActivationReader reader, TransferLookup lookup)
      : events(std::move(event)),
        thread_q(std::move(thread)),
        block_q(std::move(block)),
        latest_q(std::move(latest)),
        activations(std::move(reader)),
        transfers(std::move(lookup)) {}

  TraceEventLookup events;    // records by id, and walks over a range of them
  SqliteStatement thread_q;   // a thread's row
  SqliteStatement block_q;    // the latest block that starts by a time
  SqliteStatement latest_q;   // the last activation to start in a block that starts by a time
  ActivationReader activations;
  TransferLookup transfers;
  MergeGroups groups;

  Result<std::optional<TraceEvent>> event(std::int64_t id) { return events.find(id); }

  struct ThreadRow {
    std::int64_t first_event = 0;
    std::int64_t last_event = 0;
    std::optional<ThreadId> parent;
    std::string kind;
  };
  Result<std::optional<ThreadRow>> thread(ThreadId id) {
    thread_q.bind(1, static_cast<std::int64_t>(id));
    auto row = thread_q.step();
    if (!row) {
      thread_q.reset();
      return row.error();
    }
    std::optional<ThreadRow> out;
    if (row.value()) {
      CheckedValues v(thread_q);
      ThreadRow t;
      t.first_event = thread_q.int64(0);
      t.last_event = thread_q.int64(1);
      t.parent = v.thread(2, "parent");
      if (const auto k = thread_q.optional_text(3)) t.kind = *k;
      if (Status bad = v.verdict([&] { return "threads row " + std::to_string(id); }); !bad.ok()) {
        thread_q.reset();
        return bad.error();
      }
      out = std::move(t);
    }
    thread_q.reset();
    return out;
  }

  // The latest record of `head` naming `t` (as actor for wait, else as
  // target) within t's records; nullopt when none.
  struct Named {
    std::int64_t id = 0;
    TimeNs time = 0;
    ThreadId actor = kNoThread;
    ThreadId target = kNoThread;
    std::int64_t value = 0;
  };
  Result<std::optional<Named>> named(ThreadId t, RecordHead head, const ThreadRow& row) {
    std::optional<Named> out;
    const Status walked = events.for_each_back(row.last_event, row.first_event, [&](const TraceEvent& e) {
      if (e.head != head || (head == RecordHead::wait ? e.actor : e.target) != t) return true;
      out = Named{e.id, e.has_time ? e.time : 0, e.actor, e.target, e.has_value ? e.value : 0};
      return false;
    });
    if (!walked.ok()) return walked.error();
    return out;
  }

  // The latest no-waiter of condition `object` before record `before`: a
  // signal that found nobody waiting.
  Result<std::optional<TraceEvent>> missed_signal(std::int64_t before, std::int64_t object) {
    std::optional<TraceEvent> out;
    const Status walked = events.for_each_back(before - 1, 1, [&](const TraceEvent& e) {
      if (e.head != RecordHead::no_waiter || !e.has_value || e.value != object || !e.has_text ||
          e.text != "condition")
        return true;
      out = e;
      out->text = {};  // the walk's block goes; nobody reads it
      return false;
    });
    if (!walked.ok()) return walked.error();
    return out;
  }

  // The first resolve of `t` within its records.
  Result<std::optional<TraceEvent>> first_resolve(ThreadId t, const ThreadRow& row) {
    std::optional<TraceEvent> out;
    const Status walked = events.for_each_forward(row.first_event, row.last_event, [&](const TraceEvent& e) {
      if (e.head != RecordHead::resolve || e.target != t) return true;
      out = e;
      out->text = {};
      return false;
    });
    if (!walked.ok()) return walked.error();
    return out;
  }

  // The last record at or before `at`: its block (the latest that starts
  // by then), then the block's records up to the time; 0 when none.
  Result<std::int64_t> last_record_by(TimeNs at) {
    block_q.bind(1, static_cast<std::int64_t>(at));
    auto row = block_q.step();
    if (!row) {
      block_q.reset();
      return row.error();
    }
    if (!row.value()) {
      block_q.reset();
      return std::int64_t{0};
    }
    const std::int64_t first = block_q.int64(0);
    const std::int64_t last = block_q.int64(1);
    block_q.reset();
    std::int64_t found = first - 1;
    const Status walked = events.for_each_back(last, first, [&](const TraceEvent& e) {
      if (!e.has_time || e.time > at) return true;
      found = e.id;
      return false;
    });
    if (!walked.ok()) return walked.error();
    return found;
  }

  bool same_group(ThreadId a, ThreadId b) { return is_thread(a) && is_thread(b) && groups.root(a) == groups.root(b); }

  // Whether a thread of `subject`'s group runs at `at`. Activations do not
  // overlap, but many may start and end at one time (records share
  // times): the ones holding `at` are the latest to start by then, back to
  // the first that ends before it.
  Result<bool> runs_at(ThreadId subject, TimeNs at) {
    // Ids grow with start: none past the last that starts in a block
    // starting by then starts by `at`.
    latest_q.bind(1, static_cast<std::int64_t>(at));
    auto row = latest_q.step();
    if (!row) {
      latest_q.reset();
      return row.error();
    }
    const std::optional<std::int64_t> latest =
        row.value() ? latest_q.optional_int64(0) : std::optional<std::int64_t>{};
    latest_q.reset();
    if (!latest) return false;
    bool runs = false;
    const Status walked = activations.backward(*latest, [&](const StoredActivation& a) {
      if (a.start > at) return true;
      if (a.end < at) return false;
      runs = a.thread == subject || same_group(a.thread, subject);
      return !runs;
    });
    if (!walked.ok()) return walked.error();
    return runs;
  }
  // The `grp` of transfer_table.hpp.
  ThreadId grp(ThreadId t) { return t == kScheduler ? kScheduler : groups.root(t); }
};

WhyEngine::WhyEngine(std::unique_ptr<State> s) : s_(std::move(s)) {}

Result<bool> WhyEngine::lost_wake_up(ThreadId subject, const ThreadRowView& first_row, WhyAnswer& a) {
  State& s = *s_;
  // Along the subject's open waits: the first thread whose wait nothing
  // could end.
  ThreadId at = subject;
  State::ThreadRow row{first_row.first_event, first_row.last_event, std::nullopt, {}};
  std::set<ThreadId> seen;
  for (int depth = 0; depth < 16 && seen.insert(at).second; ++depth) {
    const std::string who = at == subject ? "it" : "thread " + std::to_string(at) + ", which it waits on,";
    // Waiting in a condition whose signal came first and found nobody.
    auto queued = s.named(at, RecordHead::queued, row);
    if (!queued) return queued.error();
    if (queued.value()) {
      auto m = s.missed_signal(queued.value()->id, queued.value()->value);
      if (!m) return m.error();
      if (m.value()) {
        a.end = WhyEnd::lost_wake_up;
        a.stuck = at;
        a.stuck_event = m.value()->id;
        a.suspect = m.value()->actor;
        a.end_text = (at == subject ? std::string("it waits") : "thread " + std::to_string(at) + ", which it waits on, waits") +
                     " in condition " + std::to_string(queued.value()->value) + ", whose signal came before the wait and "
                     "found nobody waiting";
        return true;
      }
    }
    // Its last resolver dropped, or the primitive it waited in destroyed.
    auto dropped = s.named(at, RecordHead::drop, row);
    if (!dropped) return dropped.error();
    if (dropped.value()) {
      a.end = WhyEnd::lost_wake_up;
      a.stuck = at;
      a.stuck_event = dropped.value()->id;
      a.suspect = dropped.value()->actor;
      a.end_text = who + " can never be settled: its last resolver was dropped, or the primitive it waited in "
                   "destroyed";
      return true;
    }
    // What it waits on, if it waits.
    auto wait = s.named(at, RecordHead::wait, row);
    if (!wait) return wait.error();
    if (!wait.value() || !is_thread(wait.value()->target)) return false;
    at = wait.value()->target;
    auto next = s.thread(at);
    if (!next) return next.error();
    if (!next.value()) return false;
    row = *next.value();
  }
  return false;
}
WhyEngine::WhyEngine(WhyEngine&&) noexcept = default;
WhyEngine& WhyEngine::operator=(WhyEngine&&) noexcept = default;
WhyEngine::~WhyEngine() = default;

Result<WhyEngine> WhyEngine::open(TraceStore& store) {
  SqliteDatabase& db = store.database();
  auto transfers = TransferLookup::open(db);
  if (!transfers) return transfers.error();
  if (!transfers.value())
    return file_error(db.name(), "no causes recorded yet: run `skein lint` on it first (it stores them for why)");
  auto event = TraceEventLookup::open(db);
  if (!event) return event.error();
  auto thread = db.prepare("SELECT first_event, last_event, parent, kind FROM threads WHERE id = ?1");
  if (!thread) return thread.error();
  auto block = db.prepare(
      "SELECT first_event, last_event FROM event_blocks WHERE start <= ?1 ORDER BY id DESC LIMIT 1");
  if (!block) return block.error();
  // The latest activation to start at or before a time is among those up
  // to the last that starts in a block starting by then (ids grow with
  // start).
  auto latest = db.prepare("SELECT max(last_activation) FROM event_blocks WHERE start <= ?1");
  if (!latest) return latest.error();
  auto reader = ActivationReader::open(db);
  if (!reader) return reader.error();
  auto state = std::make_unique<State>(std::move(event).value(), std::move(thread).value(), std::move(block).value(),
                                       std::move(latest).value(), std::move(reader).value(),
                                       std::move(*transfers.value()));
  // Merge groups, keyed as the verdicts are.
  auto groups = merge_group_roots(db);
  if (!groups) return groups.error();
  state->groups = std::move(groups).value();
  return WhyEngine(std::move(state));
}

Result<WhyAnswer> WhyEngine::answer(const WhyQuestion& question, std::size_t max_steps) {
  State& s = *s_;
  WhyAnswer a;
  s.events.forget();          // the records of an earlier answer
  std::optional<TraceEvent> r;  // the record being explained
  ThreadId actor = kNoThread;

  // The record the question is about.
  if (question.event) {
    auto e = s.event(*question.event);
    if (!e) return e.error();
    if (!e.value()) return file_error("", "no record " + std::to_string(*question.event) + " in the trace");
    r = std::move(e.value());
    actor = r->actor;
    a.subject = actor;
  } else {
    a.subject = question.thread;
    const ThreadId subject = question.thread;
    auto t = s.thread(subject);
    if (!t) return t.error();
    if (!t.value()) return file_error("", "no thread " + std::to_string(subject) + " in the trace");
    // The last record at or before `at`: the blocks give it to within one
    // block, and the thread's own records end at its last_event.
    std::int64_t upto = t.value()->last_event;
    if (question.at != INT64_MAX) {
      auto by = s.last_record_by(question.at);
      if (!by) return by.error();
      upto = std::min(upto, by.value());
    }
    // Which question: at the end, its last record; else what it does then.
    WhyAsk ask = question.ask;
    if (ask == WhyAsk::automatic) {
      if (question.at == INT64_MAX) {
        ask = WhyAsk::woke;
      } else {
        auto runs = s.runs_at(subject, question.at);
        if (!runs) return runs.error();
        ask = runs.value() ? WhyAsk::woke : WhyAsk::ended_wait;
      }
    }
    a.asked = ask;
    a.asked_at = question.at;
    if (ask == WhyAsk::ended_wait) {
      // The record by which its group next took control.
      auto next = s.transfers.next_to(s.grp(subject), question.at == INT64_MAX ? INT64_MAX : upto);
      if (!next) return next.error();
      if (next.value()) {
        auto e = s.event(next.value()->event);
        if (!e) return e.error();
        if (e.value() && e.value()->actor != kNoThread) {
          r = std::move(e.value());
          actor = r->actor;
        }
      }
    }
    // The thread's group got control last at its latest transfer before
    // then: its record asked about lies between that transfer and `upto`.
    auto last = ask == WhyAsk::ended_wait ? Result<std::optional<StoredTransfer>>(std::optional<StoredTransfer>())
                                          : s.transfers.latest_to(s.grp(subject), upto);
    if (!last) return last.error();
    if (last.value()) {
      const std::int64_t begin = last.value()->event;
      std::size_t scanned = 0;
      // Walks back to the subject's latest record by then; stops there, or
      // after 200,000 records (a long run is asked about at its start).
      Status failed;
      const Status walked = s.events.for_each_back(upto, begin, [&](const TraceEvent& row) {
        if (++scanned > 200'000) return false;
        const TimeNs time = row.has_time ? row.time : 0;
        const ThreadId by = row.actor;
        if (time > question.at || row.head == RecordHead::label) return true;
        if (by != subject && !s.same_group(by, subject)) return true;
        auto e = s.event(row.id);
        if (!e) {
          failed = e.error();
        } else {
          r = std::move(e.value());
          actor = by;
        }
        return false;
      });
      if (!walked.ok()) return walked.error();
      if (!failed.ok()) return failed.error();
      if (!r) {  // a long run: ask about its start, the transfer itself
        auto e = s.event(begin);
        if (!e) return e.error();
        if (e.value() && e.value()->actor != kNoThread) {
          r = std::move(e.value());
          actor = r->actor;
        }
      }
    }
    if (!r) {
      // It never acted by then (woke), or acts no more (ended_wait): a
      // promise. Its resolve (by then, for woke), else its creation.
      auto first = s.first_resolve(subject, *t.value());
      if (!first) return first.error();
      std::optional<std::int64_t> resolve;
      if (first.value() &&
          (ask == WhyAsk::ended_wait || (first.value()->has_time ? first.value()->time : 0) <= question.at))
        resolve = first.value()->id;
      if (!resolve && ask == WhyAsk::ended_wait) {
        auto lost = lost_wake_up(subject, ThreadRowView{t.value()->first_event, t.value()->last_event}, a);
        if (!lost) return lost.error();
        if (lost.value()) return a;
        a.end = WhyEnd::nothing_to_ask;
        a.end_text = "nothing ended its wait: it was still waiting when the trace ended";
        return a;
      }
      const std::optional<std::int64_t> origin = resolve ? resolve : std::optional(t.value()->first_event);
      auto e = s.event(*origin);
      if (!e) return e.error();
      if (!e.value() || (!resolve && e.value()->head != RecordHead::spawn)) {
        a.end = WhyEnd::nothing_to_ask;
        a.end_text = "it did nothing by then, and was neither resolved nor created";
        return a;
      }
      const TraceEvent& c = *e.value();
      WhyStep step;
      step.kind = resolve ? WhyStepKind::resolve : WhyStepKind::spawn;
      step.cause = c.actor;
      step.effect = subject;
      step.cause_event = step.effect_event = c.id;
      step.cause_time = step.effect_time = c.time;
      a.steps.push_back(step);
      a.start_event = c.id;
      a.start_time = c.time;
      r = c;
      actor = c.actor;
    }
  }
  if (a.start_event == 0) {
    a.start_event = r->id;
    a.start_time = r->time;
  }

  std::set<std::int64_t> seen;
  bool check_record = true;  // r is a record of `actor` to explain by its own verdicts first
  std::int64_t position = r->id;
  const auto root = [&](std::string text) {
    a.end = WhyEnd::root;
    a.end_text = std::move(text);
    return a;
  };
  const auto stuck = [&](ThreadId who, std::int64_t at, ThreadId suspect, std::string text) {
    a.end = WhyEnd::no_recorded_cause;
    a.stuck = who;
    a.stuck_event = at;
    a.suspect = suspect;
    a.end_text = std::move(text);
    return a;
  };
  // A step to the record `cause_event`, which lets `effect` act at `at`.
  const auto step_to = [&](WhyStepKind kind, std::int64_t cause_event, ThreadId effect, std::int64_t at,
                           TimeNs at_time, std::string detail) -> Result<bool> {
    auto c = s.event(cause_event);
    if (!c) return c.error();
    if (!c.value()) return false;
    WhyStep step;
    step.kind = kind;
    step.cause = c.value()->actor;
    step.effect = effect;
    step.cause_event = cause_event;
    step.effect_event = at;
    step.cause_time = c.value()->time;
    step.effect_time = at_time;
    step.detail = std::move(detail);
    a.steps.push_back(std::move(step));
    r = std::move(c.value());
    actor = r->actor;
    position = r->id;
    check_record = true;
    return true;
  };
  // The scheduler as the root, named by what it did last.
  const auto scheduler_root = [&]() {
    std::string what = "the scheduler";
    if (!a.steps.empty()) {
      const WhyStep& last = a.steps.back();
      if (last.kind == WhyStepKind::notify && !last.detail.empty()) {
        const std::string& reason = last.detail;
        what += reason == "timer" ? ": a timer" : reason == "io" ? ": I/O" : reason == "yield" ? ": a yield" : ": " + reason;
      } else if (r && r->head == RecordHead::resolve && is_thread(r->target)) {
        auto t = s.thread(r->target);
        if (t && t.value()) {
          const std::string& kind = t.value()->kind;
          if (kind == "sleep") what += ": a timer";
          else if (kind == "io") what += ": I/O";
          else if (kind == "pause" || kind == "yield") what += ": a yield";
        }
      }
    }
    return root(what);
  };

  while (a.steps.size() < max_steps) {
    if (!is_thread(actor)) {
      // A timer's expiry: the scheduler resolved a sleep, which the thread
      // that created it armed; the walk goes on from that creation.
      if (r && r->head == RecordHead::resolve && is_thread(r->target)) {
        auto timer = s.thread(r->target);
        if (!timer) return timer.error();
        if (timer.value() && timer.value()->kind == "sleep") {
          auto spawn = s.event(timer.value()->first_event);
          if (!spawn) return spawn.error();
          if (spawn.value() && spawn.value()->head == RecordHead::spawn && is_thread(spawn.value()->actor)) {
            auto moved = step_to(WhyStepKind::spawn, spawn.value()->id, r->target, r->id, r->time, "");
            if (!moved) return moved.error();
            if (moved.value()) continue;
          }
        }
      }
      return scheduler_root();
    }
    if (check_record) {
      check_record = false;
      if (r->head == RecordHead::resolve || r->head == RecordHead::notify) {
        auto hand = s.transfers.at(s.grp(actor), r->id, TransferKind::hand_off);
        if (!hand) return hand.error();
        if (hand.value() && hand.value()->cause == ControlCause::hand_off_routine && hand.value()->cause_event != 0) {
          // A routine signal reached a waiter that had queued since: the
          // waiter's request (its creation, by the thread that asked).
          auto moved = step_to(WhyStepKind::spawn, hand.value()->cause_event, r->target, r->id, r->time, "");
          if (!moved) return moved.error();
          if (moved.value()) continue;
        }
        if (hand.value() && hand.value()->cause != ControlCause::hand_off_own &&
            hand.value()->cause != ControlCause::hand_off_routine) {
          // (Its own decision: what woke its turn explains it, below.)
          const StoredTransfer& h = *hand.value();
          if (h.cause == ControlCause::unexplained || h.cause_event == 0)
            return stuck(actor, r->id, h.suspect,
                         "thread " + std::to_string(actor) + " " +
                             (r->head == RecordHead::resolve ? "resolved" : "notified") + " thread " +
                             std::to_string(r->target) + " after polling, woken only by a wake-up it arranged itself (a pause, a yield, its own timer)");
          auto moved = step_to(WhyStepKind::notify, h.cause_event, actor, r->id, r->time, "");
          if (!moved) return moved.error();
          if (!moved.value()) break;
          a.steps.back().detail = std::string(r->text);
          continue;
        }
      }
      if (r->head == RecordHead::read) {
        auto unread = s.transfers.at(s.grp(actor), r->id, TransferKind::unresolved_read);
        if (!unread) return unread.error();
        if (unread.value())
          return stuck(actor, r->id, unread.value()->suspect,
                       "thread " + std::to_string(actor) + " read thread " + std::to_string(r->target) +
                           ", which no record resolved");
      }
    }
    auto found = s.transfers.latest_to(s.grp(actor), position);
    if (!found) return found.error();
    if (!found.value()) return root("the program's start");
    const StoredTransfer t = *found.value();
    if (!seen.insert(t.event).second) break;
    auto at = s.event(t.event);
    if (!at) return at.error();
    const TimeNs at_time = at.value() ? at.value()->time : 0;
    switch (t.cause) {
      case ControlCause::unexplained:
        return stuck(t.thread, t.event, t.suspect,
                     "thread " + std::to_string(t.thread) + " took control" +
                         (t.from != kNoThread ? " from " + (t.from == kScheduler ? std::string("the scheduler")
                                                                                  : "thread " + std::to_string(t.from))
                                              : std::string()) +
                         " and nothing in the trace gave it control");
      case ControlCause::first_actor: return root("the program's start");
      case ControlCause::scheduler: return scheduler_root();
      case ControlCause::switch_unchecked:
        return root("a switch by the scheduler (this trace records no wake-ups)");
      case ControlCause::returns:
      case ControlCause::switch_returns:
      case ControlCause::merge_target:
      case ControlCause::hand_off_own:
      case ControlCause::hand_off_routine:
        // Control came back: what gave it control before.
        position = t.event - 1;
        if (position <= 0) return root("the program's start");
        continue;
      case ControlCause::created_just_before: {
        auto moved = step_to(WhyStepKind::spawn, t.cause_event, t.thread, t.event, at_time, "");
        if (!moved) return moved.error();
        if (!moved.value()) return root("the program's start");
        continue;
      }
      case ControlCause::reads_resolved:
      case ControlCause::switch_input_resolved: {
        // Switched to because its input was resolved, or took control at a
        // wait: it waited; at a read: it read.
        const bool waited = t.cause == ControlCause::switch_input_resolved ||
                            (at.value() && at.value()->head == RecordHead::wait);
        auto moved = step_to(waited ? WhyStepKind::wait : WhyStepKind::read, t.cause_event, t.thread, t.event,
                             at_time, t.input != kNoThread ? "thread " + std::to_string(t.input) : "");
        if (!moved) return moved.error();
        if (!moved.value()) return root("the program's start");
        continue;
      }
      case ControlCause::notified:
      case ControlCause::switch_notified:
      case ControlCause::hand_off_notified: {
        auto moved = step_to(WhyStepKind::notify, t.cause_event, t.thread, t.event, at_time, "");
        if (!moved) return moved.error();
        if (!moved.value()) return root("the program's start");
        a.steps.back().detail = std::string(r->text);  // the notify's reason
        continue;
      }
      case ControlCause::switch_first_run: {
        auto th = s.thread(t.thread);
        if (!th) return th.error();
        if (!th.value()) return root("the program's start");
        auto spawn = s.event(th.value()->first_event);
        if (!spawn) return spawn.error();
        if (!spawn.value() || spawn.value()->head != RecordHead::spawn) return root("the program's start");
        auto moved = step_to(WhyStepKind::spawn, spawn.value()->id, t.thread, t.event, at_time, "");
        if (!moved) return moved.error();
        continue;
      }
    }
    break;
  }
  a.end = WhyEnd::step_limit;
  a.end_text = "the walk stopped after " + std::to_string(a.steps.size()) + " steps";
  return a;
}

std::string render_why_text(const WhyAnswer& a, const std::function<std::string(ThreadId)>& label_of) {
  const auto named = [&](ThreadId t) {
    if (t == kScheduler) return std::string("the scheduler");
    std::string out = "thread " + std::to_string(t);
    if (label_of) {
      const std::string label = label_of(t);
      if (!label.empty()) out += " \"" + terminal_text(label) + "\"";
    }
    return out;
  };
  // A promise that never acted is asked about its settling.
  const bool settled = !a.steps.empty() && a.steps.front().kind == WhyStepKind::resolve &&
                       a.steps.front().effect == a.subject && a.steps.front().effect_event == a.start_event;
  std::string out = a.start_event == 0
                        ? "why " + named(a.subject) + " was still waiting at the end:\n"
                        : "why " + named(a.subject) + (settled ? " was resolved at " : " acted at ") + us(a.start_time) +
                              " (event " + std::to_string(a.start_event) + "):\n";
  if (a.asked_at != INT64_MAX)
    out += a.asked == WhyAsk::ended_wait
               ? "  (at " + us(a.asked_at) + ": what ended the wait it was in; --woke asks what woke its turn)\n"
               : "  (at " + us(a.asked_at) + ": what woke the turn it ran in; --wait asks what ended its wait)\n";
  std::size_t n = 0;
  for (const WhyStep& s : a.steps) {
    out += "  " + std::to_string(++n) + ". ";
    switch (s.kind) {
      case WhyStepKind::resolve: out += named(s.effect) + " was resolved by " + named(s.cause); break;
      case WhyStepKind::read:
        out += named(s.effect) + " read " + (s.detail.empty() ? std::string("its input") : terminal_text(s.detail)) +
               ", resolved by " + named(s.cause);
        break;
      case WhyStepKind::wait:
        out += named(s.effect) + " waited on " + (s.detail.empty() ? std::string("its input") : terminal_text(s.detail)) +
               ", resolved by " + named(s.cause);
        break;
      case WhyStepKind::notify:
        out += named(s.effect) + " was notified by " + named(s.cause) +
               (s.detail.empty() ? "" : " (" + terminal_text(s.detail) + ")");
        break;
      case WhyStepKind::spawn: out += named(s.effect) + " was created by " + named(s.cause); break;
    }
    out += " at " + us(s.cause_time) + " (event " + std::to_string(s.cause_event) + ")";
    if (s.effect_event != s.cause_event) out += ", " + us(s.latency()) + " before";
    out += "\n";
  }
  switch (a.end) {
    case WhyEnd::root: out += "root: " + terminal_text(a.end_text) + "\n"; break;
    case WhyEnd::no_recorded_cause:
      out += "no recorded cause: " + terminal_text(a.end_text) + " (event " + std::to_string(a.stuck_event) + ")";
      if (a.suspect != kNoThread) out += "; suspect " + named(a.suspect);
      out += "\n";
      break;
    case WhyEnd::nothing_to_ask: out += "nothing to explain: " + terminal_text(a.end_text) + "\n"; break;
    case WhyEnd::step_limit: out += "stopped: " + terminal_text(a.end_text) + "\n"; break;
    case WhyEnd::lost_wake_up:
      out += "lost wake-up: " + terminal_text(a.end_text) + " (event " + std::to_string(a.stuck_event) + ")";
      if (a.suspect != kNoThread) out += "; by " + named(a.suspect);
      out += "\n";
      break;
  }
  return out;
}

}  // namespace skein
