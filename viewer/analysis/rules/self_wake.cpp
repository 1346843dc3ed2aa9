// self_wake.cpp — during the pass, the parent of each `pause` or `yield`
// thread is taken from its spawn, and each notify is kept in order as a
// wake-up (thread that will run, sender, yield reason or not), redirected
// to that parent when the spawn came first. Counting waits for finish(),
// when the merge groups are complete: per group root, in order of the
// group's first wake-up; "own" counts yields and senders in the same group.
#include "viewer/analysis/rules/self_wake.hpp"

#include <algorithm>

#include "viewer/analysis/merge_groups.hpp"

namespace skein {
namespace {

class SelfWake final : public LintRule {
 public:
  explicit SelfWake(std::uint64_t minimum) : minimum_(minimum) {}
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::self_wake; }
  [[nodiscard]] std::uint32_t observed_heads() const override {
    return head_mask({RecordHead::spawn, RecordHead::merge, RecordHead::notify});
  }
  void observe(const TraceEvent& e) override {
    switch (e.head) {
      case RecordHead::spawn:
        if (e.target != kNoThread && e.target != kScheduler && e.has_text &&
            (e.text == "pause" || e.text == "yield"))
          yield_parent_.at(e.target).id = e.actor;
        break;
      case RecordHead::merge:
        if (e.actor != kNoThread && e.target != kNoThread) groups_.merge(e.actor, e.target);
        break;
      case RecordHead::notify: {
        if (e.target == kNoThread || e.target == kScheduler) break;
        ThreadId woken = e.target;
        if (const auto* p = yield_parent_.find(woken); p != nullptr && p->id != kNoThread) woken = p->id;
        if (woken == kScheduler) break;
        wakeups_.push_back(Wakeup{woken, e.actor, e.time, e.has_text && e.text == "yield"});
        break;
      }
      default:
        break;
    }
  }
  void finish(const LintTraceEnd&, std::vector<LintFinding>& out) override {
    struct Count {
      std::uint64_t wakeups = 0;
      std::uint64_t own = 0;
      TimeNs first = 0;
    };
    ThreadTable<Count> counts;
    std::vector<ThreadId> order;
    for (const Wakeup& w : wakeups_) {
      const ThreadId g = groups_.root(w.thread);
      Count& c = counts.at(g);
      if (c.wakeups == 0) {
        c.first = w.time;
        order.push_back(g);
      }
      ++c.wakeups;
      if (w.yield || (w.sender != kNoThread && w.sender != kScheduler && groups_.root(w.sender) == g)) ++c.own;
    }
    for (const ThreadId g : order) {
      const Count c = counts.at(g);
      if (c.wakeups < minimum_ || c.own * 2 <= c.wakeups) continue;
      LintFinding f;
      f.rule = LintRuleId::self_wake;
      f.severity = LintSeverity::note;
      f.time = c.first;
      f.thread = g;
      f.message = thread_phrase(g) + " was woken " + std::to_string(c.wakeups) + " times, " +
                  std::to_string(c.own) + " of them by its own yields: it polls rather than waits";
      out.push_back(std::move(f));
    }
  }

 private:
  struct Parent {
    ThreadId id = kNoThread;
  };
  struct Wakeup {
    ThreadId thread;
    ThreadId sender;
    TimeNs time;
    bool yield;
  };
  std::uint64_t minimum_;
  ThreadTable<Parent> yield_parent_;
  MergeGroups groups_;
  std::vector<Wakeup> wakeups_;
};

}  // namespace

std::unique_ptr<LintRule> make_self_wake_rule(const LintSettings& settings) {
  return std::make_unique<SelfWake>(settings.self_wake_minimum);
}

}  // namespace skein
