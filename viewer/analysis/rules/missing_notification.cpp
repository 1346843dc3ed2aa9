// missing_notification.cpp — unexplained transfers of control become
// findings; the replay has done the deciding (causality_replay.hpp).
#include "viewer/analysis/rules/missing_notification.hpp"

#include <cstdio>

namespace skein {
namespace {

std::string duration_phrase(TimeNs ns) {
  char buf[48];
  if (ns < 1'000'000) std::snprintf(buf, sizeof buf, "%.1f µs", static_cast<double>(ns) / 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f ms", static_cast<double>(ns) / 1e6);
  return buf;
}

// How a polling thread woke itself, as the finding says it.
std::string self_wake_phrase(PollWake wake, TimeNs timer_ns) {
  switch (wake) {
    case PollWake::pause: return "its own pause";
    case PollWake::yield: return "its own yield";
    case PollWake::timer: return "its own " + duration_phrase(timer_ns) + " timer";
    case PollWake::notify: return "its own notify";
    case PollWake::none: break;
  }
  return "itself";
}

std::string describe(const ControlTransfer& t) {
  // Built by appending into one buffer: a trace with many findings builds
  // many of these.
  std::string m;
  m.reserve(240);
  if (t.hand_off) {
    m += thread_phrase(t.to);
    m += t.head == RecordHead::notify ? " notified " : " resolved ";
    m += thread_phrase(t.input);
    m += " with no recorded cause: only ";
    m += self_wake_phrase(t.wake, t.timer_ns);
    m += " woke it (event ";
    m += std::to_string(t.wake_event);
    m += "), and its previous ";
    m += t.idle_turns == 1 ? std::string("turn, woken the same way, handed nothing off")
                           : std::to_string(t.idle_turns) + " turns, woken the same way, handed nothing off";
    m += ": it polls something the trace does not record, and no thread notified it";
    if (t.suspect != kNoThread) {
      m += ". Most likely set by ";
      m += thread_phrase(t.suspect);
      m += ", which last took control ";
      m += duration_phrase(t.time - t.suspect_time);
      m += " before the hand-off (what the missing notification cost at most)";
      std::size_t others = 0;
      for (std::size_t i = 1; i < t.candidates.size(); ++i) others += t.candidates[i] != kNoThread ? 1 : 0;
      for (std::size_t i = 1, k = 0; i < t.candidates.size(); ++i) {
        if (t.candidates[i] == kNoThread) continue;
        m += k == 0 ? "; or " : (k + 1 == others ? " or " : ", ");
        m += thread_phrase(t.candidates[i]);
        ++k;
      }
    }
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
    f.gap = t.gap;
    f.message = describe(t);
    hand_on(std::move(f));
  }
  void finish(const LintTraceEnd&, std::vector<LintFinding>&) override {}
};

}  // namespace

std::unique_ptr<LintRule> make_missing_notification_rule() { return std::make_unique<MissingNotification>(); }

}  // namespace skein
