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
#pragma once

#include <vector>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

[[nodiscard]] std::vector<TimelineAnomaly> timeline_findings(const TimelineData& trace,
                                                             std::vector<TimelineAnomaly> stored,
                                                             const std::vector<LintFinding>& found, bool ran);

}  // namespace skein
