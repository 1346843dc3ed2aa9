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
//
// Rules hand their findings on as they find them. The report keeps them
// in `findings` (the default), or, for a caller that only walks them once
// (`skein lint`, storing them), in a spool a rule (finding_spool.hpp),
// whose memory stays bounded whatever their number; for_each_finding()
// walks either.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/analysis/finding_spool.hpp"
#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/lint_rule.hpp"
#include "viewer/analysis/transfer_block_codec.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

struct LintOptions {
  std::vector<LintRuleId> rules;  // empty: every rule
  LintSettings settings;
  // Keep every verdict of the causality replay in the report (the
  // `transfer_blocks` table, transfer_table.hpp): the replay then runs even when
  // no rule asks for it.
  bool keep_transfers = false;
  // With keep_transfers, lint_store() keeps each verdict as the table
  // does (StoredTransfer, keyed by the store's merge groups) in
  // LintReport::keyed_transfers: 64 bytes a verdict instead of the whole
  // ControlTransfer's 144, for a caller that only stores them.
  bool keyed_transfers = false;
  // Checked between batches of records by lint_store(): once set, the lint
  // stops and fails with lint_cancelled().
  const std::atomic<bool>* cancel = nullptr;
  // Keep every finding in LintReport::findings; false: spool them, in
  // LintReport::spooled, for for_each_finding().
  bool findings_in_memory = true;
  // The size at which a spool's buffer goes to its file (tests make it
  // small to see findings go there).
  std::size_t spool_segment_bytes = kSpoolSegmentBytes;
};

// The findings of a report left in their spools: one a rule, in report
// order, and, for each `lost` record, how many findings of each rule were
// left out because they rest on it (the lost-records note of that record
// says so when it is read).
struct SpooledFindings {
  std::vector<FindingSpool> groups;
  std::map<std::int64_t, std::array<std::uint64_t, kLintRuleCount>> left_out;
};

struct LintReport {
  std::vector<LintRuleId> rules;  // the rules that ran, in LintRuleId order
  std::vector<LintFinding> findings;  // numbered from 1; empty when spooled
  std::array<std::uint64_t, kLintRuleCount> counts{};  // findings per rule
  std::vector<ControlTransfer> transfers;  // with keep_transfers: every verdict, as settled
  std::vector<StoredTransfer> keyed_transfers;  // ... or so, with keyed_transfers
  std::shared_ptr<const SpooledFindings> spooled;  // without findings_in_memory
};

// Every finding of the report, in report order and numbered from 1: those
// in `findings`, or those read back from the spools. Stops, with no error,
// when `visit` returns false; fails when a spool cannot be read back.
[[nodiscard]] Status for_each_finding(const LintReport& report,
                                      const std::function<bool(const LintFinding&)>& visit);
// How many findings the report holds, in memory or spooled.
[[nodiscard]] std::uint64_t finding_count(const LintReport& report);

[[nodiscard]] Result<LintReport> lint_store(TraceStore& store, LintOptions options);
// Whether a lint_store() failure is its cancellation.
[[nodiscard]] bool lint_cancelled(const Diagnostic& error);
[[nodiscard]] LintReport lint_events(const std::vector<TraceEvent>& events, const LintOptions& options);

}  // namespace skein
