// late_notify.cpp — per target thread, only its first resolve is kept
// (record, time, resolver). Notifies before it pass silently; every notify
// or resolve after it is a finding in record order, with the first
// resolver as the suspect. Targets that are no thread or the scheduler are
// skipped.
#include "viewer/analysis/rules/late_notify.hpp"

namespace skein {
namespace {

class LateNotify final : public LintRule {
 public:
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::late_notify; }
  [[nodiscard]] std::uint32_t observed_heads() const override {
    return head_mask({RecordHead::notify, RecordHead::resolve});
  }
  void observe(const TraceEvent& e) override {
    if (e.head != RecordHead::notify && e.head != RecordHead::resolve) return;
    if (e.target == kNoThread || e.target == kScheduler) return;
    State& s = state_.at(e.target);
    if (s.resolved_event == 0) {
      if (e.head == RecordHead::resolve) {
        s.resolved_event = e.id;
        s.resolved_time = e.time;
        s.resolver = e.actor;
      }
      return;
    }
    LintFinding f;
    f.rule = LintRuleId::late_notify;
    f.severity = LintSeverity::warning;
    f.time = e.time;
    f.thread = e.target;
    if (e.actor != kNoThread) f.from = e.actor;
    if (s.resolver != kNoThread) f.suspect = s.resolver;
    f.event = e.id;
    const std::string what = e.head == RecordHead::notify
                                 ? "notify" + (e.has_text ? " (" + std::string(e.text) + ")" : std::string())
                                 : std::string("second resolve");
    f.message = what + " from " + thread_phrase(e.actor) + " to " + thread_phrase(e.target) +
                ", which was already resolved at " + time_phrase(s.resolved_time) + " by " +
                thread_phrase(s.resolver);
    hand_on(std::move(f));
  }
  void finish(const LintTraceEnd&, std::vector<LintFinding>&) override {}

 private:
  struct State {
    std::int64_t resolved_event = 0;
    TimeNs resolved_time = 0;
    ThreadId resolver = kNoThread;
  };
  ThreadTable<State> state_;
};

}  // namespace

std::unique_ptr<LintRule> make_late_notify_rule() { return std::make_unique<LateNotify>(); }

}  // namespace skein
