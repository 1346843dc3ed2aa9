// lint_run.hpp — runs the selected lints over a trace: one pass over the
// events in id order (recorder/store/events_table.hpp), feeding each to the
// causality replay and to every rule, then each rule's findings, grouped
// by rule with the most severe group first.
//
// Two entry points: lint_store() reads a trace database (prepared
// statements only, the events on a second thread while the rules run:
// trace_event_prefetch.hpp; the heads table says whether the trace has
// notify records, meta whether it ended cleanly); lint_events() lints events held
// in memory (tests, the mutation test), working the same facts out from
// the events themselves. Both give the same report for the same trace.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/lint_rule.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

struct LintOptions {
  std::vector<LintRuleId> rules;  // empty: every rule
  LintSettings settings;
  // Keep every verdict of the causality replay in the report (the
  // `transfer_blocks` table, transfer_table.hpp): the replay then runs even when
  // no rule asks for it.
  bool keep_transfers = false;
  // Checked between batches of records by lint_store(): once set, the lint
  // stops and fails with lint_cancelled().
  const std::atomic<bool>* cancel = nullptr;
};

struct LintReport {
  std::vector<LintRuleId> rules;  // the rules that ran, in LintRuleId order
  std::vector<LintFinding> findings;
  std::array<std::uint64_t, kLintRuleCount> counts{};  // findings per rule
  std::vector<ControlTransfer> transfers;  // with keep_transfers: every verdict, as settled
};

[[nodiscard]] Result<LintReport> lint_store(TraceStore& store, LintOptions options);
// Whether a lint_store() failure is its cancellation.
[[nodiscard]] bool lint_cancelled(const Diagnostic& error);
[[nodiscard]] LintReport lint_events(const std::vector<TraceEvent>& events, const LintOptions& options);

}  // namespace skein
