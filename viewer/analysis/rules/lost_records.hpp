// lost_records.hpp — the `lost-records` rule: a note at every `(lost TIME
// COUNT)` record, the place where the capture dropped COUNT records.
//
// Nothing may be concluded across such a gap: a cause, a resolve, a read or
// the end of a turn may be among the records lost. So every other rule
// marks the findings whose evidence spans a gap (LintFinding::gap: a
// transfer whose thread last ran before it, a promise created before it, a
// failure before it, a turn holding it), and the lint pass (lint_run.cpp)
// leaves them out, counting them in the gap's note instead: "27,008
// records lost at 136.660000 ms: causes across this gap are unknown; 6
// missing-notification and 16 pending-at-end findings that depend on it
// are left out". A `lost` record of count 0 lost nothing and gets no note.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_lost_records_rule();

}  // namespace skein
