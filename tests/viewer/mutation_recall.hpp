// mutation_recall.hpp — the recall of `missing-notification`, measured by
// mutation: take a complete trace, remove one causal record (a resolve or
// a notify that another thread then reacts to), lint, and see whether the
// removal is reported at the thread that reacted.
//
// "Reacts to" comes from the replay itself: on the complete trace, every
// explained transfer of control names the record that explains it
// (ControlTransfer::cause_event). The candidates are those records that
// are resolves or notifies; the reaction is the first transfer each
// explains. A removal is reported when, on the trace without it, some
// finding names the reacting thread at the reacting record. Removals are
// drawn with a fixed seed, so a run is reproducible.
#pragma once

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "viewer/core/causality_replay.hpp"
#include "viewer/core/lint_run.hpp"

namespace skein::test {

struct RecallResult {
  std::size_t candidates = 0;  // causal records in the trace
  std::size_t removals = 0;
  std::size_t reported = 0;
  std::vector<std::string> misses;  // "event E (head) -> thread T at event R"

  [[nodiscard]] double rate() const {
    return removals == 0 ? 0.0 : static_cast<double>(reported) / static_cast<double>(removals);
  }
};

inline RecallResult mutation_recall(const std::vector<TraceEvent>& events, std::size_t removals,
                                    std::uint64_t seed) {
  bool has_notify = false;
  bool has_wait = false;
  std::map<std::int64_t, RecordHead> heads;
  for (const TraceEvent& e : events) {
    has_notify = has_notify || e.head == RecordHead::notify;
    has_wait = has_wait || e.head == RecordHead::wait;
    heads[e.id] = e.head;
  }
  struct Reaction {
    std::int64_t event;
    ThreadId thread;
  };
  std::map<std::int64_t, Reaction> reactions;  // cause record -> its first reaction
  CausalityReplay replay(CausalityReplayOptions{has_notify, has_wait});
  std::vector<ControlTransfer> verdicts;
  for (const TraceEvent& e : events) replay.step(e, verdicts);
  replay.finish(verdicts);
  for (const ControlTransfer& t : verdicts) {
    if (!t.explained() || t.cause_event == 0) continue;
    const RecordHead h = heads[t.cause_event];
    if (h != RecordHead::resolve && h != RecordHead::notify) continue;
    reactions.emplace(t.cause_event, Reaction{t.event, t.to});
  }
  RecallResult result;
  result.candidates = reactions.size();
  std::vector<std::int64_t> causes;
  for (const auto& [cause, reaction] : reactions) causes.push_back(cause);
  std::mt19937_64 rng(seed);
  std::shuffle(causes.begin(), causes.end(), rng);
  if (causes.size() > removals) causes.resize(removals);

  LintOptions options;
  options.rules = {LintRuleId::missing_notification};
  std::vector<TraceEvent> mutated;
  for (const std::int64_t cause : causes) {
    mutated.clear();
    for (const TraceEvent& e : events)
      if (e.id != cause) mutated.push_back(e);
    const LintReport report = lint_events(mutated, options);
    const Reaction r = reactions.at(cause);
    const bool found = std::any_of(report.findings.begin(), report.findings.end(), [&](const LintFinding& f) {
      return f.thread == r.thread && f.event == r.event;
    });
    ++result.removals;
    if (found) ++result.reported;
    else
      result.misses.push_back("event " + std::to_string(cause) + " (" + std::string(head_name(heads[cause])) +
                              ") -> thread " + std::to_string(r.thread) + " at event " + std::to_string(r.event));
  }
  return result;
}

}  // namespace skein::test
