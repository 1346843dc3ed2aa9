// blocking_activation.cpp — one open turn at a time, with the time of each
// thread that had control inside it. A record by the scheduler (or the
// loop's own thread), a switch, an idle or the end closes the turn, and a
// switch to another thread, or another thread's first record after the
// scheduler had control, opens the next. Between two timed records the
// time goes to `running_`, the thread that had control after the first.
// Spawns and labels are kept per thread to say what the culprit is.
// Untimed records are ignored; finish() closes at the trace's end time. A
// finding, stamped at the turn's start, needs a length strictly over the
// threshold.
#include "viewer/analysis/rules/blocking_activation.hpp"

#include <algorithm>
#include <cstdio>

namespace skein {
namespace {

constexpr std::uint32_t kNoLabel = ~std::uint32_t{0};

std::string ms(TimeNs ns) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

class BlockingActivation final : public LintRule {
 public:
  BlockingActivation(const LintSettings& settings)
      : threshold_(settings.block_threshold_ns),
        loop_(settings.semantics.scheduler_thread),
        site_name_(settings.site_name),
        // Before the loop first runs (Skein's runtime: the first switch to
        // -1), the main thread's code blocks no loop.
        loop_has_control_(loop_ != kScheduler) {}
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::blocking_activation; }
  [[nodiscard]] std::uint32_t observed_heads() const override {
    return head_mask({RecordHead::switch_, RecordHead::idle, RecordHead::end, RecordHead::spawn, RecordHead::wait,
                      RecordHead::read, RecordHead::notify, RecordHead::resolve, RecordHead::merge,
                      RecordHead::return_, RecordHead::label, RecordHead::lost});
  }
  void observe(const TraceEvent& e) override {
    if (e.head == RecordHead::spawn && is_thread(e.target)) {
      Info& info = info_.at(e.target);
      info.site = e.has_value ? e.value : -1;
      if (e.has_text) info.kind = intern_kind(e.text);
    } else if (e.head == RecordHead::label) {
      if (is_thread(e.actor) && e.has_text && info_.at(e.actor).label == kNoLabel) {
        labels_.emplace_back(e.text);
        info_.at(e.actor).label = static_cast<std::uint32_t>(labels_.size() - 1);
      }
      return;  // labelling a thread does not run it
    } else if (e.head == RecordHead::lost) {
      if (open_ && gap_ == 0) gap_ = e.id;
      return;
    }
    if (!e.has_time) return;
    if (e.head == RecordHead::switch_ || e.head == RecordHead::idle || e.head == RecordHead::end) {
      close(e.time);
      if (e.head == RecordHead::switch_ && is_thread(e.actor) && e.actor != loop_) open(e);
      return;
    }
    if (e.actor == kNoThread) return;
    if (e.actor == loop_ || e.actor == kScheduler) {
      close(e.time);
      return;
    }
    if (!open_) {
      if (loop_has_control_) open(e);
      return;
    }
    charge(e.time);
    running_ = e.actor;
  }
  void finish(const LintTraceEnd& end, std::vector<LintFinding>&) override {
    // A trace cut short ends at its latest time.
    close(std::max(end.end_time, last_time_));
  }

 private:
  struct Info {
    std::int64_t site = -1;
    std::uint32_t label = kNoLabel;
    std::uint8_t kind = 0;  // index in kinds_, 0: unknown
  };
  struct Share {
    ThreadId thread;
    TimeNs ns;
  };

  static bool is_thread(ThreadId t) { return t != kNoThread && t != kScheduler; }

  std::uint8_t intern_kind(std::string_view kind) {
    for (std::size_t i = 1; i < kinds_.size(); ++i)
      if (kinds_[i] == kind) return static_cast<std::uint8_t>(i);
    if (kinds_.size() >= 255) return 0;
    kinds_.emplace_back(kind);
    return static_cast<std::uint8_t>(kinds_.size() - 1);
  }

  void open(const TraceEvent& e) {
    open_ = true;
    loop_has_control_ = false;
    opener_ = e.actor;
    running_ = e.actor;
    start_ = e.time;
    last_time_ = e.time;
    event_ = e.id;
    gap_ = 0;
    shares_.clear();
  }
  // The time since the last timed record goes to the thread that had
  // control.
  void charge(TimeNs at) {
    if (at > last_time_) {
      const TimeNs ns = at - last_time_;
      auto it = std::find_if(shares_.begin(), shares_.end(), [&](const Share& s) { return s.thread == running_; });
      if (it == shares_.end()) shares_.push_back(Share{running_, ns});
      else it->ns += ns;
      last_time_ = at;
    }
  }
  void close(TimeNs at) {
    loop_has_control_ = true;
    if (!open_) {
      last_time_ = std::max(last_time_, at);
      return;
    }
    charge(at);
    open_ = false;
    const TimeNs length = at - start_;
    if (length <= threshold_) return;
    Share culprit{opener_, 0};
    for (const Share& s : shares_)
      if (s.ns > culprit.ns) culprit = s;
    LintFinding f;
    f.rule = LintRuleId::blocking_activation;
    f.severity = LintSeverity::warning;
    f.time = start_;
    f.thread = culprit.thread;
    if (opener_ != culprit.thread) f.from = opener_;
    f.event = event_;
    f.gap = gap_;
    const std::string who = what(culprit.thread);
    f.message = "the loop was blocked for " + ms(length) + " (threshold " + ms(threshold_) + "): " + who +
                (who.find(',') != std::string::npos ? ", ran " : " ran ") + ms(culprit.ns) +
                " of it without giving control back";
    hand_on(std::move(f));
  }
  // "thread 7 "parse", a bind callback created at parse (main.cpp:12)"
  [[nodiscard]] std::string what(ThreadId t) {
    std::string s = thread_phrase(t);
    const Info* info = info_.find(t);
    if (info == nullptr) return s;
    if (info->label != kNoLabel) s += " \"" + labels_[info->label] + "\"";
    const std::string_view kind = info->kind != 0 ? std::string_view(kinds_[info->kind]) : std::string_view();
    const bool callback = kind == "bind" || kind == "map" || kind == "catch" || kind == "finalize";
    const bool vowel = !kind.empty() && std::string_view("aeiou").find(kind.front()) != std::string_view::npos;
    const std::string role = kind.empty() ? std::string()
                                          : std::string(vowel ? ", an " : ", a ") + std::string(kind) +
                                                (callback ? " callback" : "");
    s += role;
    if (info->site >= 0)
      s += (role.empty() ? ", created at " : " created at ") +
           (site_name_ ? site_name_(info->site) : "site " + std::to_string(info->site));
    return s;
  }

  TimeNs threshold_;
  ThreadId loop_;  // TraceSemantics::scheduler_thread
  std::function<std::string(std::int64_t)> site_name_;
  bool open_ = false;
  bool loop_has_control_;
  ThreadId opener_ = kNoThread;   // the thread that took control at the turn's start
  ThreadId running_ = kNoThread;  // the thread that has control now
  TimeNs start_ = 0;
  TimeNs last_time_ = 0;
  std::int64_t event_ = 0;
  std::int64_t gap_ = 0;
  std::vector<Share> shares_;  // time per thread in the open turn (few threads a turn)
  ThreadTable<Info> info_;
  std::vector<std::string> labels_;
  std::vector<std::string> kinds_ = {""};
};

}  // namespace

std::unique_ptr<LintRule> make_blocking_activation_rule(const LintSettings& settings) {
  return std::make_unique<BlockingActivation>(settings);
}

}  // namespace skein
