// trace_check.cpp — one pass over the reader, keeping sets of the thread
// and site ids seen so far. Time is compared with the latest time so far
// (which never moves back), and only the first five backward steps, and the
// first record after (end), get a warning of their own; totals follow at
// the end. The reader's warnings are put before the check's own, then cut
// to the limit; "no (end)" is added only for a headed, error-free,
// untruncated trace.
#include "recorder/format/trace_check.hpp"

#include <unordered_set>

namespace skein {

TraceCheckReport check_trace(TraceReader& reader, const TraceCheckOptions& options) {
  TraceCheckReport report;
  report.name = reader.name();
  std::unordered_set<ThreadId> threads;
  std::unordered_set<SiteId> sites;
  std::uint64_t backwards = 0;
  std::uint64_t after_end = 0;

  const auto warn = [&](std::uint64_t line, std::string message) {
    ++report.warning_count;
    if (report.warnings.size() < options.max_warnings_kept)
      report.warnings.push_back(Diagnostic{Severity::warning, report.name, line, 0, std::move(message)});
  };

  for (;;) {
    const TraceReader::Step step = reader.next();
    if (step == TraceReader::Step::end) break;
    if (step == TraceReader::Step::error) {
      ++report.error_count;
      if (report.errors.size() < options.max_errors_kept) report.errors.push_back(reader.error());
      continue;
    }
    const Record& record = reader.record();
    const RecordHead head = head_of(record);
    ++report.records;
    ++report.records_per_head[static_cast<std::size_t>(head)];
    if (report.ended_cleanly) {
      if (after_end++ == 0) warn(reader.line(), "records after (end): the first is here");
    }
    for_each_thread(record, [&](ThreadId id) {
      if (id != kScheduler) threads.insert(id);
    });
    if (const auto t = time_of(record)) {
      if (!report.first_time) report.first_time = *t;
      if (report.last_time && *t < *report.last_time) {
        if (backwards++ < 5)
          warn(reader.line(), "time goes backwards: " + std::to_string(*t) + " ns after " +
                                  std::to_string(*report.last_time) + " ns");
      } else {
        report.last_time = *t;
      }
    }
    if (const auto* site = std::get_if<SiteRecord>(&record)) {
      if (!sites.insert(site->site).second)
        warn(reader.line(), "site " + std::to_string(site->site) + " is declared twice");
    } else if (const auto* spawn = std::get_if<SpawnRecord>(&record)) {
      if (spawn->site && !sites.contains(*spawn->site))
        warn(reader.line(), "spawn names site " + std::to_string(*spawn->site) +
                                " before any (site " + std::to_string(*spawn->site) + " ...) record");
    } else if (head == RecordHead::end) {
      report.ended_cleanly = true;
    }
  }

  if (backwards > 5) warn(0, "time goes backwards " + std::to_string(backwards) + " times in all");
  if (after_end > 1) warn(0, std::to_string(after_end) + " records after (end) in all");
  if (const auto* header = reader.header()) report.header = *header;
  report.threads = threads.size();
  report.unknown_heads = reader.unknown_heads();
  report.truncated = reader.truncated();
  // The reader's own warnings (unknown heads, truncation) come first.
  std::vector<Diagnostic> all = reader.warnings();
  report.warning_count += reader.warning_count();
  all.insert(all.end(), report.warnings.begin(), report.warnings.end());
  if (all.size() > options.max_warnings_kept) all.resize(options.max_warnings_kept);
  report.warnings = std::move(all);
  if (report.header && !report.ended_cleanly && report.error_count == 0 && !report.truncated) {
    ++report.warning_count;
    if (report.warnings.size() < options.max_warnings_kept)
      report.warnings.push_back(Diagnostic{Severity::warning, report.name, 0, 0,
                                           "no (end) record: the program stopped without closing the trace"});
  }
  return report;
}

}  // namespace skein
