// timeline_findings.hpp — the lints' findings as the loaded timeline holds
// them (TimelineData::anomalies, the markers the timeline draws and the
// Anomalies dock's rows): the findings stored with the trace, then those
// the lint found now, each with its threads as indexes into the trace's
// threads. No Qt.
//
// Invariants of the result: the stored findings come as given (sorted by
// time); a lint run now ("ran") puts its findings by rule, so the whole is
// sorted again by time, stably; a thread id the trace lacks, or none,
// becomes -1, a record none -1.
//
// finding_tally() counts them for the status bar: "16 findings: 16 notes",
// "3 findings: 1 error, 2 warnings" (most severe first, severities with
// none left out), "No findings"; findings of no known severity (an older
// table) count in the total only.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

[[nodiscard]] std::vector<TimelineAnomaly> timeline_findings(const TimelineData& trace,
                                                             std::vector<TimelineAnomaly> stored,
                                                             const std::vector<LintFinding>& found, bool ran);

[[nodiscard]] std::string finding_tally(const std::vector<TimelineAnomaly>& findings);

// A finding's severity as drawn ("error", "warning", "note"): its own; for
// a table too old to record it, "error" for a missing notification (its
// rule's severity) and "" (drawn as a note) for the rest.
[[nodiscard]] std::string_view finding_severity(const TimelineAnomaly& finding);

}  // namespace skein
