// blocking_activation.cpp — a single open activation (thread, start, first
// record) at a time. A switch, idle or end closes it, and a switch into a
// real thread other than the loop opens the next. When the loop is a thread
// of its own, more heads are observed: a record by the loop or the scheduler
// closes, and the first record by another thread after that opens. Untimed
// records are ignored; finish() closes at the trace's end time. A finding,
// stamped at the activation's start, needs a length strictly over threshold.
#include "viewer/analysis/rules/blocking_activation.hpp"

#include <cstdio>

namespace skein {
namespace {

class BlockingActivation final : public LintRule {
 public:
  BlockingActivation(TimeNs threshold, ThreadId loop) : threshold_(threshold), loop_(loop) {}
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::blocking_activation; }
  [[nodiscard]] std::uint32_t observed_heads() const override {
    if (loop_ == kScheduler) return head_mask({RecordHead::switch_, RecordHead::idle, RecordHead::end});
    return head_mask({RecordHead::switch_, RecordHead::idle, RecordHead::end, RecordHead::spawn, RecordHead::wait,
                      RecordHead::read, RecordHead::notify, RecordHead::resolve, RecordHead::merge,
                      RecordHead::return_});
  }
  void observe(const TraceEvent& e) override {
    if (!e.has_time) return;
    if (e.head == RecordHead::switch_ || e.head == RecordHead::idle || e.head == RecordHead::end) {
      close(e.time);
      if (e.head == RecordHead::switch_ && e.actor != kScheduler && e.actor != loop_ && e.actor != kNoThread)
        open(e);
      return;
    }
    // The loop runs as a thread of its own (TraceSemantics): a record by it
    // is the loop having control again, and the first record by another
    // thread after it is a callback the loop's wakeup started.
    if (e.actor == kNoThread) return;
    if (e.actor == loop_ || e.actor == kScheduler) close(e.time);
    else if (!open_ && loop_has_control_) open(e);
  }
  void finish(const LintTraceEnd& end, std::vector<LintFinding>& out) override {
    // A trace cut short ends at its latest time.
    close(end.end_time);
    append_findings(findings_, out);
  }

 private:
  void open(const TraceEvent& e) {
    open_ = true;
    loop_has_control_ = false;
    thread_ = e.actor;
    start_ = e.time;
    event_ = e.id;
  }
  void close(TimeNs at) {
    loop_has_control_ = true;
    if (!open_) return;
    open_ = false;
    const TimeNs length = at - start_;
    if (length <= threshold_) return;
    LintFinding f;
    f.rule = LintRuleId::blocking_activation;
    f.severity = LintSeverity::warning;
    f.time = start_;
    f.thread = thread_;
    f.event = event_;
    char ms[64];
    std::snprintf(ms, sizeof ms, "%.3f ms (threshold %.3f ms)", static_cast<double>(length) / 1e6,
                  static_cast<double>(threshold_) / 1e6);
    f.message = thread_phrase(thread_) + " ran " + ms + " without giving control back: the loop was blocked";
    findings_.push_back(std::move(f));
  }

  TimeNs threshold_;
  ThreadId loop_;  // TraceSemantics::scheduler_thread
  bool open_ = false;
  bool loop_has_control_ = true;
  ThreadId thread_ = kNoThread;
  TimeNs start_ = 0;
  std::int64_t event_ = 0;
  std::vector<LintFinding> findings_;
};

}  // namespace

std::unique_ptr<LintRule> make_blocking_activation_rule(const LintSettings& settings) {
  return std::make_unique<BlockingActivation>(settings.block_threshold_ns, settings.semantics.scheduler_thread);
}

}  // namespace skein
