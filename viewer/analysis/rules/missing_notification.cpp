// missing_notification.cpp — unexplained transfers of control become
// findings; the replay has done the deciding (causality_replay.hpp).
#include "viewer/analysis/rules/missing_notification.hpp"

namespace skein {
namespace {

std::string describe(const ControlTransfer& t) {
  // Built by appending into one buffer: a trace with many findings builds
  // many of these.
  std::string m;
  m.reserve(240);
  if (t.hand_off) {
    m += thread_phrase(t.to);
    m += t.head == RecordHead::notify ? " notified " : " resolved ";
    m += thread_phrase(t.input);
    m += " with no recorded cause: only its own yield woke it (event ";
    m += std::to_string(t.wake_event);
    m += "), and its previous ";
    m += t.idle_turns == 1 ? "turn, also woken only by its yield, handed nothing off"
                           : std::to_string(t.idle_turns) + " turns, also woken only by its yield, handed nothing off";
    m += ": it polls something the trace does not record, and no thread notified it";
    return m;
  }
  if (t.head == RecordHead::switch_) {
    m += "switch to ";
    m += thread_phrase(t.to);
    m += " with no recorded cause: since it last ran it was not notified and nothing it waits on was resolved";
    if (t.input != kNoThread) {
      m += " (its first record uses ";
      m += thread_phrase(t.input);
      m += ')';
    }
    return m;
  }
  if (t.from == t.to) {
    m += thread_phrase(t.to);
    m += " read ";
    m += thread_phrase(t.input);
    m += ", which no record resolved";
    return m;
  }
  m += thread_phrase(t.to);
  m += " took control from ";
  m += thread_phrase(t.from);
  m += " at its ";
  m += head_name(t.head);
  if (t.input != kNoThread) {
    m += " of ";
    m += thread_phrase(t.input);
  }
  m += " with no recorded cause: ";
  if (t.head == RecordHead::read || t.head == RecordHead::wait) {
    m += thread_phrase(t.input);
    m += " was not resolved since the last switch, ";
  }
  m += "it was not notified since it last ran, and no callback it called returns to it";
  return m;
}

class MissingNotification final : public LintRule {
 public:
  [[nodiscard]] LintRuleId id() const override { return LintRuleId::missing_notification; }
  [[nodiscard]] bool observes_transfers() const override { return true; }
  void observe_transfer(const ControlTransfer& t) override {
    if (t.explained()) return;
    LintFinding f;
    f.rule = LintRuleId::missing_notification;
    f.severity = LintSeverity::error;
    f.time = t.time;
    f.thread = t.to;
    if (t.from != kNoThread) f.from = t.from;
    if (t.suspect != kNoThread) f.suspect = t.suspect;
    f.event = t.event;
    f.message = describe(t);
    findings_.push_back(std::move(f));
  }
  void finish(const LintTraceEnd&, std::vector<LintFinding>& out) override {
    append_findings(findings_, out);
  }

 private:
  std::vector<LintFinding> findings_;
};

}  // namespace

std::unique_ptr<LintRule> make_missing_notification_rule() { return std::make_unique<MissingNotification>(); }

}  // namespace skein
