// mutation_oracle.hpp — recall of the lints by mutation, with an oracle
// that does not come from the lints: remove one causal record of a
// complete trace, lint, and see whether the lints report the removal where
// the removal itself says they must.
//
//   - a resolve of T by B that a thread R other than B later reads:
//     missing-notification must report R, at R's read of T or where R's run
//     containing that read began (a switch to R, or R's first record after
//     another thread's: FORMAT.md's actor, with labels not running a
//     thread, SCHEMA.md rule 2);
//   - a notify of R, when nothing else woke R since it last acted (no other
//     notify of R, no resolve of a thread R had waited on or then reads):
//     missing-notification must report R (or a thread merged with R)
//     within R's next turn, from the first record at which R acts until the
//     next switch, idle or end. When R's only other wake-up is one it
//     arranged itself (a pause or yield thread it waits on, or a sleep its
//     group created, resolved by the scheduler), the notify stands for
//     what R then hands over (the first resolve of a thread outside R's
//     group that the group did not create, or notify of another thread, in
//     that turn), and the report must be at that record, when R's previous
//     turn was an empty poll: woken the same way and handing nothing over
//     (a hand-over right after a turn that did something was decided
//     before the wake-up). With no hand-over in the turn, or after a busy
//     turn, the notify explains nothing the trace shows, and is left out.
//     So is a notify whose sender runs none of the program's code (a join,
//     all, choose or pick). (Skein's runtime notifies a promise, a sleep
//     or a mailbox slot, and resolves it too: those notifies are never R's
//     only wake-up.)
//   - a merge whose removal leaves one more promise pending (a merge group
//     with a spawned thread and no resolve, computed here from the merges
//     and resolves that remain): pending-at-end must report that promise,
//     at its first spawned thread, or, when it waits on a promise already
//     pending, name it among the threads that finding stands for.
//
// A finding counts only if the unmutated trace did not have it. Removals
// are drawn with a fixed seed, up to `removals` per kind. The lints see
// the trace's semantics (TraceSemantics) as `skein lint` would.
#pragma once

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "viewer/analysis/lint_run.hpp"

namespace skein::test {

inline bool is_thread(ThreadId t) { return t != kNoThread && t != kScheduler; }
// Skein's combinators, which only forward what they read.
inline bool forwards_only(const std::string& kind) {
  return kind == "join" || kind == "all" || kind == "choose" || kind == "pick";
}

// Threads joined by merges, computed here (not with the lints' code).
class Groups {
 public:
  void merge(ThreadId a, ThreadId b) {
    const ThreadId ra = root(a), rb = root(b);
    if (ra != rb) parent_[std::max(ra, rb)] = std::min(ra, rb);
  }
  ThreadId root(ThreadId t) {
    for (;;) {
      const auto it = parent_.find(t);
      if (it == parent_.end()) return t;
      t = it->second;
    }
  }

 private:
  std::map<ThreadId, ThreadId> parent_;
};

// The promises pending at the end: merge groups with a spawned thread and
// no resolve, each named by its first spawned thread.
inline std::set<ThreadId> pending_promises(const std::vector<TraceEvent>& events, std::int64_t without) {
  Groups groups;
  std::vector<ThreadId> spawned;
  std::vector<ThreadId> resolved;
  std::set<ThreadId> seen;
  for (const TraceEvent& e : events) {
    if (e.id == without) continue;
    if (e.head == RecordHead::merge && is_thread(e.actor) && is_thread(e.target)) groups.merge(e.actor, e.target);
    if (e.head == RecordHead::spawn && is_thread(e.target) && seen.insert(e.target).second) spawned.push_back(e.target);
    if (e.head == RecordHead::resolve && is_thread(e.target)) resolved.push_back(e.target);
  }
  std::set<ThreadId> settled;
  for (const ThreadId t : resolved) settled.insert(groups.root(t));
  std::set<ThreadId> named;
  std::set<ThreadId> out;
  for (const ThreadId t : spawned) {
    const ThreadId r = groups.root(t);
    if (settled.count(r) || !named.insert(r).second) continue;
    out.insert(t);
  }
  return out;
}

// Who runs after each record, by FORMAT.md's actor (labels do not run a
// thread; idle and end: nobody): the index of the record at which the
// thread running at record i took control.
inline std::vector<std::size_t> run_starts(const std::vector<TraceEvent>& events) {
  std::vector<std::size_t> start(events.size(), 0);
  ThreadId running = kNoThread;
  std::size_t since = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.head == RecordHead::idle || e.head == RecordHead::end) {
      running = kNoThread;
    } else if (e.head != RecordHead::label && e.actor != kNoThread &&
               (e.actor != running || e.head == RecordHead::switch_)) {
      running = e.actor;
      since = i;
    }
    start[i] = since;
  }
  return start;
}

struct Mutation {
  std::size_t index = 0;           // of the removed record
  std::vector<ThreadId> threads;   // a finding must name one of these
  std::int64_t first_event = 0;    // ... at an event in [first_event, last_event]
  std::int64_t last_event = 0;
};

struct MutationRecall {
  std::string kind;
  std::size_t candidates = 0;
  std::size_t removals = 0;
  std::size_t reported = 0;
  std::vector<std::string> misses;
};

// A finding, with the threads it stands for (a pending-at-end finding names
// the promises pending only because it is): a removal that adds one to an
// existing finding is reported there.
inline std::string finding_key(const LintFinding& f) {
  std::string key = std::string(lint_rule_name(f.rule)) + " " + std::to_string(f.thread) + " " +
                    std::to_string(f.event.value_or(-1));
  for (const ThreadId t : f.related) key += " " + std::to_string(t);
  return key;
}

inline MutationRecall measure(const std::string& kind, const std::vector<TraceEvent>& events, const std::vector<Mutation>& all,
                  LintRuleId rule, const LintSettings& settings, std::size_t removals, std::uint64_t seed) {
  MutationRecall row;
  row.kind = kind;
  row.candidates = all.size();
  std::vector<Mutation> chosen = all;
  std::mt19937_64 rng(seed);
  std::shuffle(chosen.begin(), chosen.end(), rng);
  if (chosen.size() > removals) chosen.resize(removals);
  LintOptions options;
  options.rules = {rule};
  options.settings = settings;
  std::set<std::string> before;
  for (const LintFinding& f : lint_events(events, options).findings) before.insert(finding_key(f));
  std::vector<TraceEvent> mutated;
  for (const Mutation& m : chosen) {
    mutated.clear();
    for (std::size_t i = 0; i < events.size(); ++i)
      if (i != m.index) mutated.push_back(events[i]);
    const LintReport report = lint_events(mutated, options);
    const bool found = std::any_of(report.findings.begin(), report.findings.end(), [&](const LintFinding& f) {
      if (before.count(finding_key(f))) return false;
      const auto named = [&](ThreadId t) { return std::find(m.threads.begin(), m.threads.end(), t) != m.threads.end(); };
      if (!named(f.thread) && std::none_of(f.related.begin(), f.related.end(), named)) return false;
      const std::int64_t at = f.event.value_or(-1);
      return at >= m.first_event && at <= m.last_event;
    });
    ++row.removals;
    if (found) {
      ++row.reported;
    } else if (row.misses.size() < 5) {
      const TraceEvent& e = events[m.index];
      row.misses.push_back("event " + std::to_string(e.id) + " (" + std::string(head_name(e.head)) + " " +
                           std::to_string(e.actor) + " -> " + std::to_string(e.target) + "), expected thread " +
                           std::to_string(m.threads.front()) + " in events " + std::to_string(m.first_event) +
                           ".." + std::to_string(m.last_event));
    }
  }
  return row;
}

// The candidates for removal, each with where its removal must be
// reported. Indexes first: per merge group, the records at which one of
// its threads acts; per thread, the records that read it.
inline std::vector<MutationRecall> mutation_recall(const std::vector<TraceEvent>& events, const LintSettings& settings,
                                   std::size_t removals, std::uint64_t seed) {
  const std::vector<std::size_t> start = run_starts(events);
  Groups groups;
  for (const TraceEvent& e : events)
    if (e.head == RecordHead::merge && is_thread(e.actor) && is_thread(e.target)) groups.merge(e.actor, e.target);
  std::map<ThreadId, std::vector<ThreadId>> members;
  std::map<ThreadId, std::vector<std::size_t>> acts;     // group root -> records by a member
  std::map<ThreadId, std::vector<std::size_t>> reads_of;  // thread -> records reading it
  std::set<ThreadId> all_threads;
  std::map<ThreadId, std::string> kinds;     // thread -> its spawn's kind
  std::map<ThreadId, ThreadId> creators;     // thread -> its spawn's parent
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TraceEvent& e = events[i];
    if (e.head == RecordHead::spawn && is_thread(e.target) && !kinds.count(e.target)) {
      kinds[e.target] = e.has_text ? std::string(e.text) : "";
      creators[e.target] = e.actor;
    }
    for (const ThreadId t : {e.actor, e.target})
      if (is_thread(t)) all_threads.insert(t);
    if (e.head != RecordHead::label && is_thread(e.actor)) acts[groups.root(e.actor)].push_back(i);
    if (e.head == RecordHead::read && is_thread(e.target)) reads_of[e.target].push_back(i);
  }
  for (const ThreadId t : all_threads) members[groups.root(t)].push_back(t);
  const auto turn_end = [&](std::size_t i) {  // the last record before the next switch, idle or end
    std::size_t j = i + 1;
    while (j < events.size() && events[j].head != RecordHead::switch_ && events[j].head != RecordHead::idle &&
           events[j].head != RecordHead::end)
      ++j;
    return j - 1;
  };

  std::vector<Mutation> resolves, notifies, merges;
  for (std::size_t k = 0; k < events.size(); ++k) {
    const TraceEvent& e = events[k];
    if (e.head == RecordHead::resolve && is_thread(e.target)) {
      // The first later read of the thread by another than its resolver.
      const auto& reads = reads_of[e.target];
      for (auto it = std::upper_bound(reads.begin(), reads.end(), k); it != reads.end(); ++it) {
        const TraceEvent& r = events[*it];
        if (r.actor == e.actor || r.actor == e.target || !is_thread(r.actor)) continue;
        resolves.push_back(Mutation{k, {r.actor}, events[start[*it]].id, r.id});
        break;
      }
    } else if (e.head == RecordHead::notify && is_thread(e.target) && e.target != e.actor) {
      // The receiver's group next acts at `next`; the notify is its wake-up
      // when nothing else woke it since it last acted: no other notify of
      // it, and no resolve of a thread it then reads or had waited on.
      const ThreadId g = groups.root(e.target);
      if (is_thread(e.actor)) {
        const auto sender_kind = kinds.find(e.actor);
        if (sender_kind != kinds.end() && forwards_only(sender_kind->second)) continue;
      }
      const auto& a = acts[g];
      const auto next_it = std::upper_bound(a.begin(), a.end(), k);
      if (next_it == a.end()) continue;
      const std::size_t next = *next_it;
      const std::size_t prev = next_it == a.begin() ? 0 : *(next_it - 1);
      const std::size_t end = turn_end(next);
      const std::vector<ThreadId>& group = members[g];
      const auto in_group = [&](ThreadId t) { return std::find(group.begin(), group.end(), t) != group.end(); };
      // How the group was woken for the turn that starts at its act
      // `first`, its act before that being `before`: by another (a notify
      // of a member, an input resolved that it did not arrange), by itself
      // alone (a pause or yield, or its own sleep), or by nothing seen.
      enum class Woken { nothing, itself, other };
      const auto woken = [&](std::size_t before, std::size_t first, std::size_t turn_last) {
        std::set<ThreadId> inputs;
        for (std::size_t i = first; i <= turn_last; ++i)
          if (events[i].head == RecordHead::read && in_group(events[i].actor)) inputs.insert(events[i].target);
        for (std::size_t i = before; i < first && i < events.size(); ++i)
          if (events[i].head == RecordHead::wait && in_group(events[i].actor)) inputs.insert(events[i].target);
        Woken w = Woken::nothing;
        for (std::size_t i = before; i < first; ++i) {
          const TraceEvent& c = events[i];
          if (i == k) continue;
          if (c.head == RecordHead::notify && in_group(c.target)) {
            const bool own = (c.has_text && c.text == "yield") || in_group(c.actor);
            if (!own) return Woken::other;
            w = Woken::itself;
          }
          if (c.head == RecordHead::resolve && inputs.count(c.target)) {
            const auto kind = kinds.find(c.target);
            const bool yield = kind != kinds.end() && (kind->second == "pause" || kind->second == "yield");
            const auto creator = creators.find(c.target);
            const bool own_timer = kind != kinds.end() && kind->second == "sleep" && c.actor == kScheduler &&
                                   creator != creators.end() && in_group(creator->second);
            if (!yield && !own_timer) return Woken::other;
            w = Woken::itself;
          }
        }
        return w;
      };
      // The first hand-over by the group in [first, last], or none.
      const auto hand_over = [&](std::size_t first, std::size_t last) -> std::optional<std::size_t> {
        for (std::size_t i = first; i <= last; ++i) {
          const TraceEvent& h = events[i];
          if (!in_group(h.actor) || !is_thread(h.target) || in_group(h.target)) continue;
          if (h.head == RecordHead::resolve) {
            const auto creator = creators.find(h.target);
            if (creator != creators.end() && in_group(creator->second)) continue;
          } else if (h.head != RecordHead::notify) {
            continue;
          }
          return i;
        }
        return std::nullopt;
      };
      const Woken now = woken(prev, next, end);
      if (now == Woken::other) continue;
      if (now == Woken::nothing) {
        // The notify is its only wake-up: the turn has no recorded cause without it.
        notifies.push_back(Mutation{k, group, events[next].id, events[end].id});
        continue;
      }
      // Woken by itself, the notify stands for what it then hands over,
      // when its previous turn was an empty poll.
      const std::optional<std::size_t> handed = hand_over(next, end);
      if (!handed) continue;
      // The group's first act in the turn that holds `prev`: the turn began
      // after the latest switch, idle, end or record by the scheduler.
      std::size_t turn_first = prev;
      while (turn_first > 0) {
        const TraceEvent& b = events[turn_first - 1];
        if (b.head == RecordHead::switch_ && is_thread(b.actor)) {
          --turn_first;  // a switch to a thread is its turn's first record
          break;
        }
        if (b.head == RecordHead::switch_ || b.head == RecordHead::idle || b.head == RecordHead::end ||
            b.actor == kScheduler)
          break;
        --turn_first;
      }
      const auto first_it = std::lower_bound(a.begin(), a.end(), turn_first);
      if (first_it == a.end()) continue;
      const std::size_t prev_first = *first_it;
      const auto prev_it = first_it;
      const std::size_t before_prev = prev_it == a.begin() ? 0 : *(prev_it - 1);
      const std::size_t prev_last = turn_end(prev_first);
      if (woken(before_prev, prev_first, prev_last) != Woken::itself || hand_over(prev_first, prev_last)) continue;
      notifies.push_back(Mutation{k, group, events[*handed].id, events[*handed].id});
    }
  }
  // Merges whose removal leaves one more promise pending.
  const std::set<ThreadId> pending = pending_promises(events, -1);
  for (std::size_t k = 0; k < events.size(); ++k) {
    const TraceEvent& e = events[k];
    if (e.head != RecordHead::merge || !is_thread(e.actor) || !is_thread(e.target)) continue;
    const std::set<ThreadId> after = pending_promises(events, e.id);
    std::vector<ThreadId> fresh;
    std::set_difference(after.begin(), after.end(), pending.begin(), pending.end(), std::back_inserter(fresh));
    if (after.size() <= pending.size() || fresh.empty()) continue;
    merges.push_back(Mutation{k, fresh, 0, INT64_MAX});
    if (merges.size() > 4 * removals) break;  // enough to draw from; each check is a pass over the trace
  }
  std::vector<MutationRecall> rows;
  rows.push_back(measure("resolve", events, resolves, LintRuleId::missing_notification, settings, removals, seed));
  rows.push_back(measure("notify", events, notifies, LintRuleId::missing_notification, settings, removals, seed));
  rows.push_back(measure("merge", events, merges, LintRuleId::pending_at_end, settings, removals, seed));
  return rows;
}


}  // namespace skein::test
