// timeline_findings.cpp — one pass over the lint's findings, each thread id
// looked up in the trace's id index, then one stable sort by time when the
// lint ran now; the tally is one pass counting by severity name.
#include "viewer/timeline/timeline_findings.hpp"

#include <algorithm>
#include <array>

#include "viewer/analysis/units.hpp"

namespace skein {

std::vector<TimelineAnomaly> timeline_findings(const TimelineData& trace, std::vector<TimelineAnomaly> stored,
                                               const std::vector<LintFinding>& found, bool ran) {
  std::vector<TimelineAnomaly> out = std::move(stored);
  const auto index = [&](std::optional<ThreadId> id) -> std::int32_t {
    if (!id) return -1;
    const auto i = trace.thread_index(*id);
    return i ? static_cast<std::int32_t>(*i) : -1;
  };
  FindingWordings wordings;
  for (const LintFinding& f : found) {
    TimelineAnomaly a;
    a.time = f.time;
    a.thread = index(f.thread);
    a.from = index(f.from);
    a.suspect = index(f.suspect);
    a.event = f.event.value_or(-1);
    wordings.word(a, lint_rule_name(f.rule), lint_severity_name(f.severity), f.message, f.group);
    a.number = f.number;
    out.push_back(std::move(a));
  }
  if (ran)  // the lint's order is by rule; the stored ones come by time
    std::stable_sort(out.begin(), out.end(),
                     [](const TimelineAnomaly& x, const TimelineAnomaly& y) { return x.time < y.time; });
  return out;
}

std::string_view finding_severity(const TimelineAnomaly& finding) {
  if (!finding.severity().empty()) return finding.severity();
  return finding.rule() == lint_rule_name(LintRuleId::missing_notification) ? lint_severity_name(LintSeverity::error)
                                                                           : std::string_view();
}

std::string finding_tally(const std::vector<TimelineAnomaly>& findings) {
  if (findings.empty()) return "No findings";
  // In LintSeverity order, most severe first.
  constexpr std::array<LintSeverity, 3> kSeverities = {LintSeverity::error, LintSeverity::warning, LintSeverity::note};
  std::array<std::uint64_t, 3> counts{};
  for (const TimelineAnomaly& a : findings)
    for (std::size_t s = 0; s < kSeverities.size(); ++s)
      if (a.severity() == lint_severity_name(kSeverities[s])) ++counts[s];
  std::string out = counted(findings.size(), "finding");
  std::string parts;
  for (std::size_t s = 0; s < kSeverities.size(); ++s)
    if (counts[s] > 0) parts += (parts.empty() ? "" : ", ") + counted(counts[s], lint_severity_name(kSeverities[s]));
  return parts.empty() ? out : out + ": " + parts;
}

}  // namespace skein
