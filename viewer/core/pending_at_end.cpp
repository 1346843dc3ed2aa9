// pending_at_end.cpp — see pending_at_end.hpp. Spawns are kept in record
// order; resolution and merges are per thread; everything is decided at
// the end, when merge groups are complete.
#include "viewer/core/pending_at_end.hpp"

#include <algorithm>

#include "viewer/core/merge_groups.hpp"

namespace skein {
namespace {

constexpr int kWaitChainLimit = 1000;

class PendingAtEnd final : public LintRule {
 public:
  explicit PendingAtEnd(LintSettings settings) : settings_(std::move(settings)) {}
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::pending_at_end; }

  [[nodiscard]] std::uint32_t observed_heads() const override {
    return head_mask({RecordHead::spawn, RecordHead::resolve, RecordHead::wait, RecordHead::merge});
  }
  void observe(const TraceEvent& e) override {
    if (e.target == kNoThread || e.target == kScheduler) return;
    switch (e.head) {
      case RecordHead::spawn: {
        State& s = state_.at(e.target);
        if (s.spawned) return;
        s.spawned = true;
        s.site = e.has_value ? e.value : -1;
        spawns_.push_back(Spawn{e.target, e.time, e.id});
        break;
      }
      case RecordHead::resolve:
        if (state_.at(e.target).resolved == 0) state_.at(e.target).resolved = e.id;
        break;
      case RecordHead::wait:
        if (e.actor != kNoThread && e.actor != kScheduler) state_.at(e.actor).waits_on = e.target;
        break;
      case RecordHead::merge:
        if (e.actor == kNoThread || e.actor == kScheduler) return;
        state_.at(e.actor).merged = true;
        groups_.merge(e.actor, e.target);
        break;
      default:
        break;
    }
  }

  void finish(const LintTraceEnd& end, std::vector<LintFinding>& out) override {
    // Which merge groups hold a resolve.
    struct Group {
      bool resolved = false;
    };
    ThreadTable<Group> groups;
    state_.for_each([&](ThreadId id, const State& s) {
      if (s.resolved != 0) groups.at(groups_.root(id)).resolved = true;
    });
    const auto pending = [&](ThreadId t) { return !groups.at(groups_.root(t)).resolved; };

    struct Pending {
      LintFinding finding;
      std::int64_t site;
    };
    std::vector<Pending> found;
    for (const Spawn& sp : spawns_) {
      const State s = state_.at(sp.thread);
      if (s.merged || !pending(sp.thread)) continue;
      LintFinding f;
      f.rule = LintRuleId::pending_at_end;
      f.severity = LintSeverity::warning;
      f.time = sp.time;
      f.thread = sp.thread;
      f.event = sp.event;
      std::string waits = s.waits_on == kNoThread ? "waits on nothing recorded"
                                                  : "waits on " + thread_phrase(s.waits_on);
      if (end.ended_cleanly && s.waits_on != kNoThread) {
        // Follow the chain of waits to what nobody can resolve.
        ThreadId at = s.waits_on;
        for (int i = 0; i < kWaitChainLimit; ++i) {
          if (!pending(at)) {
            f.severity = LintSeverity::error;
            f.suspect = at;
            waits += ": lost wake-up, " + thread_phrase(at) + " was resolved but the wake-up never came";
            break;
          }
          if (at == sp.thread || groups_.root(at) == groups_.root(sp.thread)) {
            f.severity = LintSeverity::error;
            waits += ": lost wake-up, its waits come back to itself";
            break;
          }
          const ThreadId next = state_.at(at).waits_on;
          if (next == kNoThread) break;
          at = next;
        }
      }
      f.group = site_phrase(s.site);
      f.message = thread_phrase(sp.thread) + " is still pending at the end (" + time_phrase(end.end_time) + "); " +
                  waits;
      found.push_back(Pending{std::move(f), s.site});
    }
    // Lost wake-ups first, then by site, then in creation order.
    std::stable_sort(found.begin(), found.end(), [](const Pending& a, const Pending& b) {
      if (a.finding.severity != b.finding.severity) return a.finding.severity < b.finding.severity;
      return a.site < b.site;
    });
    for (auto& p : found) out.push_back(std::move(p.finding));
  }

 private:
  [[nodiscard]] std::string site_phrase(std::int64_t site) const {
    if (site < 0) return "(no site)";
    if (settings_.site_name) return settings_.site_name(site);
    return "site " + std::to_string(site);
  }

  struct State {
    bool spawned = false;
    bool merged = false;  // merged into another thread
    std::int64_t site = -1;
    std::int64_t resolved = 0;
    ThreadId waits_on = kNoThread;
  };
  struct Spawn {
    ThreadId thread;
    TimeNs time;
    std::int64_t event;
  };
  LintSettings settings_;
  ThreadTable<State> state_;
  std::vector<Spawn> spawns_;
  MergeGroups groups_;
};

}  // namespace

std::unique_ptr<LintRule> make_pending_at_end_rule(const LintSettings& settings) {
  return std::make_unique<PendingAtEnd>(settings);
}

}  // namespace skein
