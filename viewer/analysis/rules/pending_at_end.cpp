// pending_at_end.cpp — the pending-at-end rule. Spawns, labels, waits,
// reads, resolves and merges are kept per thread as they come; everything
// is decided at the end, when the merge groups are complete: one finding
// per merge group that holds a spawned thread and no resolve.
#include "viewer/analysis/rules/pending_at_end.hpp"

#include <algorithm>
#include <map>

#include "viewer/analysis/merge_groups.hpp"

namespace skein {
namespace {

constexpr int kWaitChainLimit = 1000;
constexpr std::uint32_t kNoLabel = ~std::uint32_t{0};

class PendingAtEnd final : public LintRule {
 public:
  explicit PendingAtEnd(LintSettings settings) : settings_(std::move(settings)) {}
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::pending_at_end; }

  [[nodiscard]] std::uint32_t observed_heads() const override {
    return head_mask({RecordHead::spawn, RecordHead::label, RecordHead::resolve, RecordHead::wait,
                      RecordHead::read, RecordHead::merge, RecordHead::should_resolve, RecordHead::lost,
                      RecordHead::drop, RecordHead::no_waiter, RecordHead::queued});
  }
  void observe(const TraceEvent& e) override {
    switch (e.head) {
      case RecordHead::lost:
        if (e.has_value && e.value > 0) gaps_.push_back(e.id);
        break;
      case RecordHead::drop:
        // Its last resolver (or the primitive it waited in) is gone: nothing
        // can settle it now. The first drop counts.
        if (is_thread(e.target) && state_.at(e.target).dropped == 0) {
          State& s = state_.at(e.target);
          s.dropped = e.id;
          s.dropped_time = e.time;
          s.dropped_by = e.actor;
        }
        break;
      case RecordHead::no_waiter:
        // A condition's signal with nobody waiting is lost (the other
        // primitives keep a permit or a value for whoever comes).
        if (e.has_value && e.has_text && e.text == "condition")
          lost_signals_[e.value] = LostSignal{e.id, e.time, e.actor};
        break;
      case RecordHead::queued:
        if (is_thread(e.target) && e.has_value) {
          const auto it = lost_signals_.find(e.value);
          if (it != lost_signals_.end()) {
            State& s = state_.at(e.target);
            s.missed = it->second;
            s.object = e.value;
          }
        }
        break;
      case RecordHead::spawn: {
        if (!is_thread(e.target)) return;
        State& s = state_.at(e.target);
        if (s.spawn_event != 0) return;  // spawned again: the import warned, the first counts
        s.spawn_event = e.id;
        s.spawn_time = e.time;
        // A blocking call on a primitive: it waits in the primitive's queue.
        if (e.has_text && (e.text == "mutex" || e.text == "condition" || e.text == "mailbox" || e.text == "stream" ||
                           e.text == "semaphore"))
          s.queued_kind = std::string(e.text);
        s.site = e.has_value ? e.value : -1;
        s.parent = e.actor;
        spawns_.push_back(e.target);
        break;
      }
      case RecordHead::label:
        if (is_thread(e.actor) && e.has_text && state_.at(e.actor).label == kNoLabel) {
          labels_.emplace_back(e.text);
          state_.at(e.actor).label = static_cast<std::uint32_t>(labels_.size() - 1);
        }
        break;
      case RecordHead::resolve:
        if (is_thread(e.target) && state_.at(e.target).resolved == 0) state_.at(e.target).resolved = e.id;
        break;
      case RecordHead::wait:
        if (is_thread(e.actor) && is_thread(e.target)) {
          State& s = state_.at(e.actor);
          s.waits_on = e.target;
          s.wait_event = e.id;
        }
        break;
      case RecordHead::read:
        // Reading what it waited on ends the wait: the wake-up came. In
        // Lwt's traces the loop's first thread reads for the iteration
        // that waited (its callbacks run as the representative), so a read
        // by another member of the waiter's group counts too (finish()).
        if (is_thread(e.actor)) {
          State& s = state_.at(e.actor);
          if (s.waits_on == e.target) {
            s.waits_on = kNoThread;
            s.wait_event = 0;
          }
        }
        if (is_thread(e.target)) {
          State& input = state_.at(e.target);
          input.last_read = e.id;
          input.last_reader = e.actor;
        }
        break;
      case RecordHead::merge:
        if (is_thread(e.actor) && is_thread(e.target)) groups_.merge(e.actor, e.target);
        break;
      case RecordHead::should_resolve:
        if (is_thread(e.target) && state_.at(e.target).should_resolve == 0) {
          state_.at(e.target).should_resolve = e.id;
          state_.at(e.target).should_resolve_time = e.time;
        }
        break;
      default:
        break;
    }
  }

  void finish(const LintTraceEnd& end, std::vector<LintFinding>& out) override {
    // What each merge group holds, at its root.
    ThreadTable<Group> groups;
    state_.for_each([&](ThreadId id, const State& s) {
      Group& g = groups.at(groups_.root(id));
      if (s.resolved != 0) g.resolved = true;
      if (s.dropped != 0 && (g.dropped == kNoThread || s.dropped < state_.at(g.dropped).dropped)) g.dropped = id;
      if (s.missed.event != 0 && g.missed == kNoThread) g.missed = id;
      if (s.should_resolve != 0 && (g.should_resolve == 0 || s.should_resolve < g.should_resolve)) {
        g.should_resolve = s.should_resolve;
        g.should_resolve_time = s.should_resolve_time;
      }
    });
    // A group's open wait: its members' latest wait that no member's read
    // of the same thread followed.
    state_.for_each([&](ThreadId id, const State& s) {
      if (s.waits_on == kNoThread) return;
      const ThreadId root = groups_.root(id);
      const State* input = state_.find(s.waits_on);  // find(): at() could move `s`
      if (input != nullptr && input->last_read > s.wait_event && is_thread(input->last_reader) &&
          groups_.root(input->last_reader) == root)
        return;
      Group& g = groups.at(root);
      if (s.wait_event > g.wait_event) {
        g.wait_event = s.wait_event;
        g.waits_on = s.waits_on;
        g.waiter = id;
      }
    });
    for (const ThreadId t : spawns_) {  // in spawn order
      Group& g = groups.at(groups_.root(t));
      if (g.first == kNoThread) g.first = t;
      else ++g.merged;
      g.latest = t;
      if (g.label == kNoLabel) g.label = state_.at(t).label;
      if (g.site < 0) g.site = state_.at(t).site;
    }
    // Labels of threads no spawn created (the main thread) name groups too.
    state_.for_each([&](ThreadId id, const State& s) {
      Group& g = groups.at(groups_.root(id));
      if (g.label == kNoLabel && s.label != kNoLabel) g.label = s.label;
    });

    // After a clean end, a promise pending only because what it waits on
    // is pending is part of that promise's finding: its waiters are named
    // there, and not reported apart (one fault, one finding). A promise
    // the program said should resolve keeps its own finding.
    ThreadTable<Waiters> waiters;  // by the root of the promise waited on
    if (end.ended_cleanly) {
      for (const ThreadId t : spawns_) {
        const ThreadId root = groups_.root(t);
        Group& g = groups.at(root);
        if (g.resolved || g.first != t || g.should_resolve != 0) continue;
        const ThreadId end_root = chain_end(root, groups);
        if (end_root == kNoThread || end_root == root) continue;
        g.folded = true;
        waiters.at(end_root).threads.push_back(t);
      }
    }

    // The promises some pending promise's open wait names.
    ThreadTable<Flag> waited;
    groups.for_each([&](ThreadId, const Group& g) {
      if (!g.resolved && g.waits_on != kNoThread) waited.at(groups_.root(g.waits_on)).set = true;
    });

    std::vector<Pending> found;
    std::map<std::string, std::size_t> key_order;  // group key -> first appearance
    for (const ThreadId t : spawns_) {
      const ThreadId root = groups_.root(t);
      const Group g = groups.at(root);
      if (g.resolved || g.first != t || g.folded) continue;
      const State s = state_.at(t);
      LintFinding f;
      f.rule = LintRuleId::pending_at_end;
      f.time = s.spawn_time;
      f.thread = t;
      f.event = s.spawn_event;
      std::string what = thread_phrase(t) + " is still pending " +
                         (end.ended_cleanly ? "at the end (" + time_phrase(end.end_time) + ")"
                                            : "when the trace stops (" + time_phrase(end.end_time) +
                                                  "; no (end): a snapshot)");
      if (g.merged > 0) {
        what += "; " + std::to_string(g.merged) + (g.merged == 1 ? " iteration" : " iterations") +
                " merged into it, the latest " + thread_phrase(g.latest) + " (created at " +
                time_phrase(state_.at(g.latest).spawn_time) + ")";
      }
      std::string waits = g.waits_on == kNoThread
                              ? "waits on nothing recorded"
                              : (g.waiter == t ? "" : thread_phrase(g.waiter) + " ") + "waits on " +
                                    thread_phrase(g.waits_on);
      bool lost = false;
      // A promise nothing can settle any more, which something waits on:
      // its resolver was dropped (or the primitive it waited in), or it
      // waits in a condition whose signal came before it and found nobody.
      const Flag* named = waited.find(root);
      const bool waited_on = named != nullptr && named->set;
      // The signal lost before the wait comes first: a condition that dies
      // with the waiter in it (a drop) is its consequence.
      if (g.missed != kNoThread) {
        const State& m = state_.at(g.missed);
        waits += "; " + (g.missed == t ? std::string("it waits") : thread_phrase(g.missed) + " waits") +
                 " in condition " + std::to_string(m.object) + ", which " + thread_phrase(m.missed.by) +
                 " signalled at " + time_phrase(m.missed.time) +
                 " with nobody waiting: a lost wake-up, the signal came before the wait";
        if (is_thread(m.missed.by) || m.missed.by == kScheduler) f.suspect = m.missed.by;
        lost = true;
      } else if (g.dropped != kNoThread) {
        const State& d = state_.at(g.dropped);
        const std::string whose = g.dropped == t ? std::string("its") : thread_phrase(g.dropped) + "'s";
        waits += "; " +
                 (d.queued_kind.empty() ? whose + " last resolver was dropped by "
                                        : "the " + d.queued_kind + " " + (g.dropped == t ? std::string("it") : thread_phrase(g.dropped)) +
                                              " waited in was destroyed by ") +
                 thread_phrase(d.dropped_by) + " at " + time_phrase(d.dropped_time) + ": nothing can settle it";
        if (is_thread(d.dropped_by) || d.dropped_by == kScheduler) f.suspect = d.dropped_by;
        lost = waited_on;
        if (lost) waits += ", and it is waited on: a lost wake-up";
      }
      if (!lost && end.ended_cleanly && g.waits_on != kNoThread) {
        // Follow the chain of waits, group by group, to what nobody can resolve.
        ThreadId at = g.waits_on;
        for (int i = 0; i < kWaitChainLimit; ++i) {
          const ThreadId at_root = groups_.root(at);
          const Group& next = groups.at(at_root);
          if (next.resolved) {
            lost = true;
            f.suspect = at;
            waits += ": lost wake-up, " + thread_phrase(at) + " was resolved but the wake-up never came";
            break;
          }
          if (at_root == root) {
            lost = true;
            waits += ": lost wake-up, its waits come back to itself";
            break;
          }
          if (next.waits_on == kNoThread) break;
          at = next.waits_on;
        }
      }
      if (g.should_resolve != 0) {
        f.severity = LintSeverity::error;
        what += "; the program said it should resolve (should-resolve at " + time_phrase(g.should_resolve_time) +
                ")";
      } else if (lost) {
        f.severity = LintSeverity::error;
      } else {
        f.severity = end.ended_cleanly ? LintSeverity::warning : LintSeverity::note;
      }
      f.message = what + "; " + waits;
      // A loop in a snapshot of a running program: pending by design.
      if (!end.ended_cleanly && g.merged > 0 && f.severity == LintSeverity::note)
        f.message += "; a loop, pending as a running program's loops are: expected";
      if (const Waiters* w = waiters.find(root); w != nullptr && !w->threads.empty()) {
        const std::vector<ThreadId>& by = w->threads;
        std::string names = thread_phrase(by[0]);
        for (std::size_t i = 1; i < by.size() && i < 3; ++i)
          names += (i + 1 == by.size() ? " and " : ", ") + std::to_string(by[i]);
        if (by.size() > 3) names += " and " + std::to_string(by.size() - 3) + " more";
        if (by.size() > 1) names.replace(0, 6, "threads");
        f.message += "; " + names + (by.size() == 1 ? " waits on it" : " wait on it") +
                     ", pending because it is";
        f.related = by;
      }
      // Created before a gap, it may have been settled among the records
      // lost.
      if (const auto gap = std::upper_bound(gaps_.begin(), gaps_.end(), s.spawn_event); gap != gaps_.end())
        f.gap = *gap;
      const std::string key = group_key(g, s, groups);
      key_order.emplace(key, key_order.size());
      found.push_back(Pending{std::move(f), key, g.merged});
    }
    // The most severe first, then by group (in the order groups first
    // appear), then in creation order.
    std::stable_sort(found.begin(), found.end(), [&](const Pending& a, const Pending& b) {
      if (a.finding.severity != b.finding.severity) return a.finding.severity < b.finding.severity;
      return key_order.at(a.key) < key_order.at(b.key);
    });
    // Each run of one group gets its heading, with what it folds.
    for (std::size_t i = 0; i < found.size();) {
      std::size_t j = i;
      std::uint64_t merged = 0;
      TimeNs since = found[i].finding.time;
      while (j < found.size() && found[j].key == found[i].key &&
             found[j].finding.severity == found[i].finding.severity) {
        merged += found[j].merged;
        since = std::min(since, found[j].finding.time);
        ++j;
      }
      const std::size_t n = j - i;
      std::string heading = found[i].key + ": " + std::to_string(n) + (n == 1 ? " promise" : " promises") +
                            " pending since " + time_phrase(since);
      if (merged > 0)
        heading += " (" + std::to_string(merged) + (merged == 1 ? " iteration" : " iterations") + " merged into " +
                   (n == 1 ? "it" : "them") + ")";
      for (; i < j; ++i) {
        found[i].finding.group = heading;
        out.push_back(std::move(found[i].finding));
      }
    }
  }

 private:
  struct LostSignal {
    std::int64_t event = 0;  // 0: none
    TimeNs time = 0;
    ThreadId by = kNoThread;
  };
  struct State {
    std::int64_t dropped = 0;  // its first drop record; 0: none
    TimeNs dropped_time = 0;
    ThreadId dropped_by = kNoThread;
    LostSignal missed;          // the lost signal of the condition it queued in after it; event 0: none
    std::int64_t object = 0;    // that condition's number
    std::string queued_kind;    // a primitive's waiter: the primitive's kind ("condition", ...); "" otherwise
    std::int64_t spawn_event = 0;
    TimeNs spawn_time = 0;
    std::int64_t site = -1;
    ThreadId parent = kNoThread;
    std::uint32_t label = kNoLabel;  // its first label, in labels_
    std::int64_t resolved = 0;
    std::int64_t should_resolve = 0;
    TimeNs should_resolve_time = 0;
    ThreadId waits_on = kNoThread;  // its latest wait not followed by its read of the same thread
    std::int64_t wait_event = 0;
    std::int64_t last_read = 0;  // the latest read of this thread, and by whom
    ThreadId last_reader = kNoThread;
  };
  struct Group {
    bool resolved = false;
    ThreadId first = kNoThread;   // its first spawned thread: the promise the program made
    ThreadId latest = kNoThread;  // its latest spawned thread: the iteration now running
    std::uint64_t merged = 0;     // spawned threads after the first
    std::uint32_t label = kNoLabel;
    std::int64_t site = -1;
    std::int64_t should_resolve = 0;
    TimeNs should_resolve_time = 0;
    ThreadId waits_on = kNoThread;  // the latest open wait of a member
    ThreadId waiter = kNoThread;
    std::int64_t wait_event = 0;
    bool folded = false;  // reported with the promise at the end of its waits
    ThreadId dropped = kNoThread;  // the member whose last resolver was dropped first
    ThreadId missed = kNoThread;   // a member waiting in a condition after its signal was lost
  };
  struct Pending {
    LintFinding finding;
    std::string key;
    std::uint64_t merged;
  };
  struct Flag {
    bool set = false;
  };
  struct Waiters {
    std::vector<ThreadId> threads;  // the first threads of the promises folded into this one
  };

  // Where a pending group's chain of open waits ends: the last pending
  // promise (a spawned group with no resolve) along it, the group itself
  // when it waits on nothing pending; kNoThread for a cycle or a chain too
  // long to follow.
  [[nodiscard]] ThreadId chain_end(ThreadId root, ThreadTable<Group>& groups) {
    ThreadId at = root;
    for (int i = 0; i < kWaitChainLimit; ++i) {
      const Group& g = groups.at(at);
      if (g.waits_on == kNoThread) return at;
      const ThreadId next = groups_.root(g.waits_on);
      if (next == root) return kNoThread;
      const Group& n = groups.at(next);
      if (n.resolved || n.first == kNoThread) return at;
      at = next;
    }
    return kNoThread;
  }

  static bool is_thread(ThreadId t) { return t != kNoThread && t != kScheduler; }

  // What created a pending promise, as its findings' heading: its creation
  // site, else its label, else the loop its creator belongs to; "loop" when
  // that group has merged iterations.
  [[nodiscard]] std::string group_key(const Group& g, const State& first, ThreadTable<Group>& groups) {
    const auto loop = [](std::string name, const Group& of) { return of.merged > 0 ? name + " loop" : name; };
    if (g.site >= 0) return loop(site_phrase(g.site), g);
    if (g.label != kNoLabel) return loop(labels_[g.label], g);
    if (is_thread(first.parent)) {
      const ThreadId root = groups_.root(first.parent);
      const Group& creator = groups.at(root);
      if (creator.first == kNoThread) {  // the main thread, or another no spawn created
        std::string name = "created by " + thread_phrase(root);
        if (creator.label != kNoLabel) name += " \"" + labels_[creator.label] + "\"";
        return name;
      }
      std::string creator_name = creator.site >= 0        ? site_phrase(creator.site)
                                 : creator.label != kNoLabel ? labels_[creator.label]
                                                             : thread_phrase(creator.first);
      return "created in " + loop(std::move(creator_name), creator);
    }
    return first.parent == kScheduler ? "created by the scheduler" : "(no site or label)";
  }

  [[nodiscard]] std::string site_phrase(std::int64_t site) const {
    if (settings_.site_name) return settings_.site_name(site);
    return "site " + std::to_string(site);
  }

  LintSettings settings_;
  ThreadTable<State> state_;
  std::vector<ThreadId> spawns_;  // spawned threads, in spawn order
  std::vector<std::string> labels_;
  MergeGroups groups_;
  std::vector<std::int64_t> gaps_;  // `lost` records that lost something, in order
  std::map<std::int64_t, LostSignal> lost_signals_;  // by condition number: its latest signal nobody heard
};

}  // namespace

std::unique_ptr<LintRule> make_pending_at_end_rule(const LintSettings& settings) {
  return std::make_unique<PendingAtEnd>(settings);
}

}  // namespace skein
