// unread_failure.cpp — only a thread's first resolve counts (a later one is
// late-notify's); a resolve with value 1 is a failure, kept in record
// order. Reads other than a thread's read of itself are kept as (reader,
// input) pairs and resolved to merge groups only in finish(), once every
// merge is known: a group counts as read when a reader outside it read one
// of its threads. A failure in an unread group is an error-severity finding.
#include "viewer/analysis/rules/unread_failure.hpp"

#include <algorithm>

#include "viewer/analysis/merge_groups.hpp"

namespace skein {
namespace {

class UnreadFailure final : public LintRule {
 public:
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::unread_failure; }
  [[nodiscard]] std::uint32_t observed_heads() const override {
    return head_mask({RecordHead::resolve, RecordHead::read, RecordHead::merge, RecordHead::lost});
  }
  void observe(const TraceEvent& e) override {
    switch (e.head) {
      case RecordHead::lost:
        if (e.has_value && e.value > 0) gaps_.push_back(e.id);
        break;
      case RecordHead::resolve:
        if (e.target == kNoThread || e.target == kScheduler) return;
        if (resolved_.at(e.target).done) return;  // a second resolve is late-notify's
        resolved_.at(e.target).done = true;
        if (e.value == 1) failures_.push_back(Failure{e.target, e.actor, e.time, e.id, std::string(e.text)});
        break;
      case RecordHead::read:
        if (e.target != kNoThread && e.target != kScheduler && e.actor != e.target)
          reads_.push_back(Read{e.actor, e.target});
        break;
      case RecordHead::merge:
        if (e.actor != kNoThread && e.target != kNoThread) groups_.merge(e.actor, e.target);
        break;
      default:
        break;
    }
  }
  void finish(const LintTraceEnd&, std::vector<LintFinding>& out) override {
    if (failures_.empty()) return;
    struct Seen {
      bool read = false;
    };
    // A group is "read" when a thread outside it read one of its threads.
    ThreadTable<Seen> read_groups;
    for (const Read& r : reads_) {
      const ThreadId g = groups_.root(r.input);
      if (r.reader == kNoThread || r.reader == kScheduler || groups_.root(r.reader) != g) read_groups.at(g).read = true;
    }
    for (const Failure& f : failures_) {
      if (read_groups.at(groups_.root(f.thread)).read) continue;
      LintFinding finding;
      finding.rule = LintRuleId::unread_failure;
      finding.severity = LintSeverity::error;
      finding.time = f.time;
      finding.thread = f.thread;
      if (f.by != kNoThread) finding.from = f.by;
      finding.event = f.event;
      finding.message = thread_phrase(f.thread) + " failed" + (f.message.empty() ? "" : " (" + f.message + ")") +
                        " and no other thread read its outcome";
      // A read after a gap may be among the records lost.
      if (const auto gap = std::upper_bound(gaps_.begin(), gaps_.end(), f.event); gap != gaps_.end())
        finding.gap = *gap;
      out.push_back(std::move(finding));
    }
  }

 private:
  struct Failure {
    ThreadId thread;
    ThreadId by;
    TimeNs time;
    std::int64_t event;
    std::string message;
  };
  struct Read {
    ThreadId reader;
    ThreadId input;
  };
  struct Resolved {
    bool done = false;
  };
  ThreadTable<Resolved> resolved_;
  std::vector<Failure> failures_;
  std::vector<Read> reads_;
  MergeGroups groups_;
  std::vector<std::int64_t> gaps_;  // `lost` records that lost something, in order
};

}  // namespace

std::unique_ptr<LintRule> make_unread_failure_rule() { return std::make_unique<UnreadFailure>(); }

}  // namespace skein
