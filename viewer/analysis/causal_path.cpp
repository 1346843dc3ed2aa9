// causal_path.cpp — both walks run over the in-memory events by position;
// an event id maps to its position directly (ids are usually 1-based and
// dense), else by binary search. Merge groups are built once per call from
// the `merge` records. why() scans back from each record for its nearest
// cause and stops at a position met twice; for a wait, the resolve must lie
// between the wait and the effect, for a read, before the read. caused()
// is breadth first over (merge group, position) pairs, each turn ending at
// the next `switch` record.
#include "viewer/analysis/causal_path.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <utility>

#include "viewer/analysis/merge_groups.hpp"

namespace skein {
namespace {

bool is_thread(ThreadId t) { return t != kNoThread && t != -1; }

MergeGroups merge_groups_of(const std::vector<TraceEvent>& events) {
  MergeGroups groups;
  for (const TraceEvent& e : events)
    if (e.head == RecordHead::merge && is_thread(e.actor) && is_thread(e.target)) groups.merge(e.actor, e.target);
  return groups;
}

// The position of event id `id`, or events.size().
std::size_t index_of(const std::vector<TraceEvent>& events, std::int64_t id) {
  if (id >= 1 && static_cast<std::size_t>(id) <= events.size() && events[static_cast<std::size_t>(id - 1)].id == id)
    return static_cast<std::size_t>(id - 1);
  const auto it = std::lower_bound(events.begin(), events.end(), id,
                                   [](const TraceEvent& e, std::int64_t wanted) { return e.id < wanted; });
  return it != events.end() && it->id == id ? static_cast<std::size_t>(it - events.begin()) : events.size();
}

TimeNs time_of(const TraceEvent& e) { return e.has_time ? e.time : 0; }

class Walk {
 public:
  explicit Walk(const std::vector<TraceEvent>& events) : events_(events), groups_(merge_groups_of(events)) {}

  ThreadId group(ThreadId t) { return is_thread(t) ? groups_.root(t) : t; }
  bool same(ThreadId a, ThreadId b) { return is_thread(a) && is_thread(b) && group(a) == group(b); }

  CausalStep step(CauseKind kind, std::size_t cause, std::size_t effect, ThreadId effect_thread) const {
    CausalStep s;
    s.kind = kind;
    s.cause = events_[cause].actor;
    s.effect = effect_thread;
    s.cause_event = events_[cause].id;
    s.effect_event = events_[effect].id;
    s.cause_time = time_of(events_[cause]);
    s.effect_time = time_of(events_[effect]);
    return s;
  }

  // The latest resolve of `input` (or its merge group) at a position in
  // [from, to).
  std::optional<std::size_t> resolve_between(ThreadId input, std::size_t from, std::size_t to) {
    for (std::size_t k = to; k-- > from;) {
      const TraceEvent& e = events_[k];
      if (e.head == RecordHead::resolve && same(e.target, input)) return k;
    }
    return std::nullopt;
  }

  // The nearest cause of `actor` acting at position i: the step and the
  // position of the cause's record.
  std::optional<std::pair<CausalStep, std::size_t>> cause_of(ThreadId actor, std::size_t i) {
    for (std::size_t j = i; j-- > 0;) {
      const TraceEvent& e = events_[j];
      switch (e.head) {
        case RecordHead::notify:
          if (same(e.target, actor) && e.actor != kNoThread) return std::pair{step(CauseKind::notify, j, i, actor), j};
          break;
        case RecordHead::spawn:
          if (same(e.target, actor) && e.actor != kNoThread) return std::pair{step(CauseKind::spawn, j, i, actor), j};
          break;
        case RecordHead::read:
          // A read comes after its input's resolve.
          if (same(e.actor, actor) && is_thread(e.target)) {
            if (const auto k = resolve_between(e.target, 0, j); k && events_[*k].actor != kNoThread)
              return std::pair{step(CauseKind::read, *k, i, actor), *k};
          }
          break;
        case RecordHead::wait:
          // A wait comes before: the input's resolve lies between it and i.
          if (same(e.actor, actor) && is_thread(e.target)) {
            if (const auto k = resolve_between(e.target, j + 1, i); k && events_[*k].actor != kNoThread)
              return std::pair{step(CauseKind::wait, *k, i, actor), *k};
          }
          break;
        default: break;
      }
    }
    return std::nullopt;
  }

  // The first position after `from` where `thread` acts.
  std::optional<std::size_t> next_act(ThreadId thread, std::size_t from) {
    for (std::size_t k = from + 1; k < events_.size(); ++k)
      if (events_[k].head != RecordHead::label && same(events_[k].actor, thread)) return k;
    return std::nullopt;
  }

  const std::vector<TraceEvent>& events_;
  MergeGroups groups_;
};

}  // namespace

std::string_view cause_kind_name(CauseKind kind) {
  switch (kind) {
    case CauseKind::spawn: return "spawn";
    case CauseKind::notify: return "notify";
    case CauseKind::read: return "read";
    case CauseKind::wait: return "wait";
  }
  return "unknown";
}

std::vector<CausalStep> why(const std::vector<TraceEvent>& events, std::int64_t event_id, std::size_t max_steps) {
  std::vector<CausalStep> path;
  std::size_t i = index_of(events, event_id);
  if (i == events.size()) return path;
  ThreadId actor = events[i].actor;
  Walk walk(events);
  std::vector<bool> seen(events.size(), false);
  while (is_thread(actor) && path.size() < max_steps && !seen[i]) {
    seen[i] = true;
    const auto cause = walk.cause_of(actor, i);
    if (!cause) break;
    path.push_back(cause->first);
    i = cause->second;
    actor = events[i].actor;
  }
  return path;
}

std::vector<CausalStep> caused(const std::vector<TraceEvent>& events, std::int64_t event_id, std::size_t max_steps) {
  std::vector<CausalStep> steps;
  const std::size_t start = index_of(events, event_id);
  if (start == events.size() || !is_thread(events[start].actor)) return steps;
  Walk walk(events);
  std::deque<std::pair<ThreadId, std::size_t>> frontier{{events[start].actor, start}};
  std::set<std::pair<ThreadId, std::size_t>> visited{{walk.group(events[start].actor), start}};
  const auto reach = [&](const CausalStep& s, ThreadId thread, std::size_t at) {
    if (steps.size() >= max_steps) return;
    if (!visited.insert({walk.group(thread), at}).second) return;
    steps.push_back(s);
    frontier.emplace_back(thread, at);
  };
  while (!frontier.empty() && steps.size() < max_steps) {
    const auto [thread, from] = frontier.front();
    frontier.pop_front();
    for (std::size_t j = from; j < events.size() && steps.size() < max_steps; ++j) {
      const TraceEvent& e = events[j];
      if (e.head == RecordHead::switch_ && j > from) break;  // the turn is over
      if (!walk.same(e.actor, thread)) continue;
      if ((e.head == RecordHead::notify || e.head == RecordHead::spawn) && is_thread(e.target)) {
        if (const auto k = walk.next_act(e.target, j)) {
          const auto kind = e.head == RecordHead::notify ? CauseKind::notify : CauseKind::spawn;
          reach(walk.step(kind, j, *k, e.target), e.target, *k);
        }
      } else if (e.head == RecordHead::resolve && is_thread(e.target)) {
        for (std::size_t k = j + 1; k < events.size() && steps.size() < max_steps; ++k) {
          const TraceEvent& r = events[k];
          if ((r.head == RecordHead::read || r.head == RecordHead::wait) && walk.same(r.target, e.target) &&
              is_thread(r.actor) && !walk.same(r.actor, thread)) {
            const auto kind = r.head == RecordHead::read ? CauseKind::read : CauseKind::wait;
            reach(walk.step(kind, j, k, r.actor), r.actor, k);
          }
        }
      }
    }
  }
  return steps;
}

std::optional<std::int64_t> last_record_of(const std::vector<TraceEvent>& events, ThreadId thread, TimeNs at) {
  if (!is_thread(thread)) return std::nullopt;
  MergeGroups groups = merge_groups_of(events);
  const ThreadId group = groups.root(thread);
  // Records are in time order unless time went backwards: start from the
  // first record after `at` and scan back over the records at or before it.
  std::size_t k = static_cast<std::size_t>(
      std::partition_point(events.begin(), events.end(), [&](const TraceEvent& e) { return time_of(e) <= at; }) -
      events.begin());
  while (k-- > 0) {
    const TraceEvent& e = events[k];
    if (time_of(e) > at) continue;
    if (is_thread(e.actor) && groups.root(e.actor) == group) return e.id;
  }
  return std::nullopt;
}

}  // namespace skein
