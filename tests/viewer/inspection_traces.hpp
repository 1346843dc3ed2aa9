// inspection_traces.hpp — the hand-built traces the inspection docks are
// tested on (thread_details_test.cpp, inspection_models_test.cpp, and the
// window's tests in tests/viewer/app/), with
// every derived value worked out here once.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/lint_run.hpp"

namespace skein::test {

// The running thread follows the actors (SCHEMA.md, rule 2), so:
//   0: runs 1000-1200 and 2600-2680 (280 ns), created 1000 (first record), pending;
//   1: "poll", task, site 0; runs 1200-1400 and 1800-2100 (500 ns), resolves itself (fail) at 2000;
//   2: "reader", bind, 1's child; runs 1400-1600 and 2100-2200 (300 ns), waits on 1 at 1500,
//      reads it at 2100, pending;
//   3: map, 2's child, runs 2200-2500 (300 ns), reads 1 at 2200, resolves itself at 2300;
//   4: task, runs 2680-2700 (20 ns), merges into 5, pending at the end (5000);
//   5: bind, never runs, pending.
// Lifetimes: 0: 4000, 1: 1000, 2: 3700, 3: 900, 4: 2400, 5: 2350.
// first_time is 1000: the user sees every time 1000 ns earlier.
inline const char* const kDetailsTrace = R"((skein-trace 1 (process "details"))
(site 0 "src/poll.cpp" 41 "poll_loop")
(spawn 1000 1 0 task 0)
(label 1000 1 "poll")
(switch 1200 1)
(spawn 1300 2 1 bind)
(label 1300 2 "reader")
(spawn 1400 3 2 map)
(wait 1500 2 1)
(switch 1600 -1)
(notify 1700 -1 1 io)
(switch 1800 1)
(resolve 2000 1 1 fail "boom")
(read 2100 2 1)
(read 2200 3 1)
(resolve 2300 3 3 ok)
(switch 2500 -1)
(spawn 2600 4 0 task)
(spawn 2650 5 0 bind)
(merge 2680 4 5)
(switch 2700 -1)
(end 5000)
)";

// Findings for kDetailsTrace, written by hand (not by the lints, so the
// test says exactly what is stored), in the order of a report (most severe
// rule first; numbered 1-5 in this order when stored), which is not their
// time order. By time, data.anomalies holds:
//   0: late-notify 1700 (#4; 1, from 0, suspect 2), 1: unread-failure 2000 (#1; 1, from 1),
//   2: self-wake 2300 (#5; 3), 3: pending-at-end 4900 (#3; 5, error), 4: pending-at-end 5000 (#2; 4).
inline std::vector<LintFinding> details_findings() {
  const auto finding = [](LintRuleId rule, LintSeverity severity, TimeNs time, ThreadId thread,
                          std::optional<ThreadId> from, std::optional<ThreadId> suspect, std::string message) {
    LintFinding f;
    f.rule = rule;
    f.severity = severity;
    f.time = time;
    f.thread = thread;
    f.from = from;
    f.suspect = suspect;
    f.message = std::move(message);
    return f;
  };
  return {
      finding(LintRuleId::unread_failure, LintSeverity::error, 2000, 1, 1, std::nullopt,
              "thread 1 failed (boom) and no other thread read its outcome"),
      finding(LintRuleId::pending_at_end, LintSeverity::warning, 5000, 4, std::nullopt, std::nullopt,
              "thread 4 is still pending at the end"),
      finding(LintRuleId::pending_at_end, LintSeverity::error, 4900, 5, std::nullopt, std::nullopt,
              "thread 5 is still pending at the end: a lost wake-up"),
      finding(LintRuleId::late_notify, LintSeverity::warning, 1700, 1, 0, 2, "thread 1 was notified late"),
      finding(LintRuleId::self_wake, LintSeverity::note, 2300, 3, 3, std::nullopt, "thread 3 woke itself"),
  };
}

// A report over kDetailsTrace whose pending-at-end findings come in two
// groups, as `skein lint` groups them (by what created them), in an order
// that is neither by time nor by thread: #1 missing-notification (1, 1800);
// pending-at-end #2 (4, 5000) and #3 (5, 2650) under "created by thread 0:
// ...", #4 (2, 1300) under "reader loop: ..."; #5 self-wake (3, 2300). The
// findings are numbered as lint_run numbers a report.
inline LintReport grouped_report() {
  const auto finding = [](LintRuleId rule, LintSeverity severity, TimeNs time, ThreadId thread, std::string group,
                          std::string message) {
    LintFinding f;
    f.rule = rule;
    f.severity = severity;
    f.time = time;
    f.thread = thread;
    f.group = std::move(group);
    f.message = std::move(message);
    return f;
  };
  const std::string by_zero = "created by thread 0: 2 promises pending since 0.002650 ms";
  const std::string reader = "reader loop: 1 promise pending since 0.001300 ms";
  LintReport report;
  report.rules.assign(all_lint_rules().begin(), all_lint_rules().end());
  report.findings = {
      finding(LintRuleId::missing_notification, LintSeverity::error, 1800, 1, "", "thread 1 was woken by nobody"),
      finding(LintRuleId::pending_at_end, LintSeverity::warning, 5000, 4, by_zero, "thread 4 is still pending"),
      finding(LintRuleId::pending_at_end, LintSeverity::warning, 2650, 5, by_zero, "thread 5 is still pending"),
      finding(LintRuleId::pending_at_end, LintSeverity::note, 1300, 2, reader, "thread 2 is still pending"),
      finding(LintRuleId::self_wake, LintSeverity::note, 2300, 3, "", "thread 3 woke itself"),
  };
  std::uint32_t number = 0;
  for (LintFinding& f : report.findings) {
    f.number = ++number;
    ++report.counts[static_cast<std::size_t>(f.rule)];
  }
  return report;
}

// Threads 1-10 "alpha" (run 200 ns each, live 220 ns), 11-19 "beta" (run
// 100, live 120), 20-21 "gamma" (run 5000, live 5020); the implicit thread
// 0 spawns them all, running 10 ns per spawn (210 ns), unlabelled. So by
// label, by run time: gamma 10000, alpha 2000, beta 900, (no label) 210;
// by threads: (no label) 1, gamma 2, beta 9, alpha 10 — orders that text
// sorting would get wrong ("10.0 µs" < "2.00 µs" < "900 ns"; "10" < "2").
inline std::string groups_trace() {
  std::string trace = "(skein-trace 1 (process \"groups\"))\n";
  long t = 1000;
  int id = 1;
  const auto add = [&](const char* label, int count, long run) {
    for (int k = 0; k < count; ++k, ++id) {
      const std::string i = std::to_string(id);
      trace += "(spawn " + std::to_string(t) + " " + i + " 0 task)\n";
      trace += "(label " + std::to_string(t) + " " + i + " \"" + label + "\")\n";
      trace += "(switch " + std::to_string(t + 10) + " " + i + ")\n";
      trace += "(switch " + std::to_string(t + 10 + run) + " -1)\n";
      trace += "(resolve " + std::to_string(t + 20 + run) + " " + i + " -1 ok)\n";
      t += 100 + run;
    }
  };
  add("alpha", 10, 200);
  add("beta", 9, 100);
  add("gamma", 2, 5000);
  trace += "(end " + std::to_string(t) + ")\n";
  return trace;
}

// 1 "server" is woken by a timer and resolves; 2 is a bind that only reads
// 1 and creates 3 "handler", which creates 4 "worker"; 3 reads 4. 5
// "orphan" is still pending at the clean end: a lint finding. 1 and 5 live
// 300 µs each, every other thread longer. Simplify Binds hides 2; folding 3
// draws 4 on its row. (inspection_window_test.cpp, filtered_view_test.cpp,
// timeline_selection_test.cpp.)
inline const char* const kInspectionTrace = R"((skein-trace 1 (process "inspect"))
(spawn 0 1 0 task)
(label 0 1 "server")
(spawn 10000 2 1 bind)
(wait 20000 2 1)
(spawn 30000 3 2 task)
(label 30000 3 "handler")
(spawn 40000 4 3 task)
(label 40000 4 "worker")
(switch 100000 1)
(switch 200000 -1)
(notify 250000 -1 1 io)
(switch 260000 1)
(resolve 300000 1 1 ok)
(read 310000 2 1)
(switch 320000 3)
(resolve 400000 4 3 ok)
(read 410000 3 4)
(resolve 500000 3 3 ok)
(resolve 510000 2 2 ok)
(switch 550000 -1)
(spawn 600000 5 0 task)
(label 600000 5 "orphan")
(end 900000)
)";

}  // namespace skein::test
