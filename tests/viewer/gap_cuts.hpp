// gap_cuts.hpp — the lints across a `(lost ...)` gap, tested the way the
// capture makes one: cut a block of records out of a trace and put in
// their place one `(lost TIME COUNT)` record, stamped with the time of the
// first record cut and counting the records cut. No verdict may rest on
// such a gap, so a trace with no error and no warning must still have none
// after any cut: what the cut removed (a resolve, a wake-up, the end of a
// turn) is unknown, not missing. Cuts are drawn with a fixed seed: a
// position anywhere in the trace and a length of 1 to 5% of it.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "viewer/analysis/lint_run.hpp"

namespace skein::test {

struct GapCuts {
  std::size_t cuts = 0;
  std::size_t errors = 0;    // error findings over all the cut traces
  std::size_t warnings = 0;  // warning findings over all the cut traces
  std::size_t notes = 0;     // lost-records notes (one a cut is expected)
  std::vector<std::string> examples;  // the first few findings that should not be there
};

inline GapCuts gap_cuts(const std::vector<TraceEvent>& events, const LintSettings& settings, std::size_t cuts,
                        std::uint64_t seed) {
  GapCuts out;
  if (events.size() < 4) return out;
  std::mt19937_64 rng(seed);
  LintOptions options;
  options.settings = settings;
  std::vector<TraceEvent> cut;
  for (std::size_t c = 0; c < cuts; ++c) {
    const std::size_t n = events.size();
    const std::size_t longest = std::max<std::size_t>(1, n / 20);
    const std::size_t length = 1 + static_cast<std::size_t>(rng() % longest);
    // Keep the first record (the header's first) and the last (the end).
    const std::size_t first = 1 + static_cast<std::size_t>(rng() % (n - 2));
    const std::size_t last = std::min(n - 1, first + length);  // one past the block
    cut.clear();
    cut.insert(cut.end(), events.begin(), events.begin() + static_cast<std::ptrdiff_t>(first));
    TraceEvent lost;
    lost.id = events[first].id;
    lost.head = RecordHead::lost;
    lost.has_time = events[first].has_time;
    lost.time = events[first].time;
    lost.has_value = true;
    lost.value = static_cast<std::int64_t>(last - first);
    cut.push_back(lost);
    cut.insert(cut.end(), events.begin() + static_cast<std::ptrdiff_t>(last), events.end());
    ++out.cuts;
    for (const LintFinding& f : lint_events(cut, options).findings) {
      if (f.rule == LintRuleId::lost_records) ++out.notes;
      if (f.severity == LintSeverity::note) continue;
      (f.severity == LintSeverity::error ? out.errors : out.warnings) += 1;
      if (out.examples.size() < 5)
        out.examples.push_back("cut of " + std::to_string(last - first) + " records at event " +
                               std::to_string(lost.id) + ": " + std::string(lint_rule_name(f.rule)) + " at event " +
                               std::to_string(f.event.value_or(-1)) + ": " + f.message);
    }
  }
  return out;
}

}  // namespace skein::test
