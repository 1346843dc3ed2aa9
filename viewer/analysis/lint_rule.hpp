// lint_rule.hpp — the interface every lint implements, and what they share.
//
// A rule sees the trace once, in record order: the events of the heads it
// asks for (observed_heads, observe), and, if it asks, every verdict of the
// causality replay (observe_transfer, after the event that settled it).
// A finding known as soon as a record shows it is handed on at once
// (hand_on(): the lint keeps or spools it, finding_spool.hpp, so a trace
// with millions of findings holds none of them in the rule); those known
// only at the end, finish() appends. A rule's group prints in the order
// handed on, then appended. Rules keep their own state, in
// ThreadTable slots, so a million records cost a few array lookups each;
// none goes back to the database.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "viewer/analysis/causality_replay.hpp"
#include "viewer/analysis/lint_finding.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

// How a trace's records are to be read, from what its source says (the
// header options FORMAT.md lists: scheduler-thread, source-format).
struct TraceSemantics {
  // The thread the event loop's own code runs as: -1 in Skein's runtime, 0
  // in the 2014 MirageOS traces (Lwt's initial current thread, which
  // MirageOS's main loop keeps). Control back at this thread is control
  // back at the loop.
  ThreadId scheduler_thread = kScheduler;
  // Whether a read always consumes a resolved outcome. Not in Lwt's
  // traces: `return v` takes the current thread's id (lwt.ml), so a read
  // of that value names a thread that may still be pending.
  bool reads_are_of_resolved = true;
};
// Reads them from a trace's header options (as `skein import` keeps them
// in meta, without the "header." prefix).
[[nodiscard]] TraceSemantics semantics_from_header(const std::string* scheduler_thread,
                                                   const std::string* source_format);

struct LintSettings {
  TraceSemantics semantics;
  TimeNs block_threshold_ns = 10'000'000;  // blocking-activation (--block-ms)
  std::uint64_t self_wake_minimum = 100;   // self-wake: wake-ups before it judges
  // Names a creation site for pending-at-end's groups ("function (file:line)");
  // empty: "site N".
  std::function<std::string(std::int64_t)> site_name;
};

// What is known once every record has been seen.
struct LintTraceEnd {
  TimeNs end_time = 0;         // the latest time of any record
  bool ended_cleanly = false;  // an (end) record was read
};

// Where a rule's findings go as they are found (the lint's per-rule spool).
class FindingSink {
 public:
  virtual ~FindingSink() = default;
  virtual void add(LintFinding&& f) = 0;
};

class LintRule {
 public:
  virtual ~LintRule() = default;
  // Set by the lint before the first record.
  void attach(FindingSink& sink) { sink_ = &sink; }
  [[nodiscard]] virtual LintRuleId id() const = 0;
  // The heads whose events observe() gets, as a mask of 1 << RecordHead.
  [[nodiscard]] virtual std::uint32_t observed_heads() const { return 0; }
  // Whether observe_transfer() wants the replay's verdicts (the replay runs
  // only when some rule does).
  [[nodiscard]] virtual bool observes_transfers() const { return false; }
  virtual void observe(const TraceEvent& e) { (void)e; }
  virtual void observe_transfer(const ControlTransfer& t) { (void)t; }
  virtual void finish(const LintTraceEnd& end, std::vector<LintFinding>& out) = 0;

 protected:
  // Hands a finding on now (attach() came first).
  void hand_on(LintFinding&& f) { sink_->add(std::move(f)); }

 private:
  FindingSink* sink_ = nullptr;
};

// The mask of observed_heads() for a list of heads.
[[nodiscard]] constexpr std::uint32_t head_mask(std::initializer_list<RecordHead> heads) {
  std::uint32_t mask = 0;
  for (const RecordHead h : heads) mask |= 1u << static_cast<unsigned>(h);
  return mask;
}

[[nodiscard]] std::unique_ptr<LintRule> make_lint_rule(LintRuleId rule, const LintSettings& settings);

// "thread 12" — how messages name a thread (the scheduler is "the scheduler").
[[nodiscard]] std::string thread_phrase(ThreadId t);
// "12.345678 ms"
[[nodiscard]] std::string time_phrase(TimeNs t);

}  // namespace skein
