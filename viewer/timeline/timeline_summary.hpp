// timeline_summary.hpp — `skein summary` (summary.hpp) over a loaded
// timeline, for the viewer's Summary dock: the rows summarize() gives for
// the store's threads, plus which threads make up each row (so selecting
// a row can highlight them), and the duration filter (hide threads
// shorter than a bound, like `perf trace --duration`). No Qt.
//
// Computed over the timeline's interned strings rather than by converting
// every thread to a StoredThread: a million threads take about a tenth of
// a second, not a second and a quarter of a gigabyte.
//
// Differences from `skein summary`, both deliberate: a thread's label is
// the timeline's (all its distinct labels joined by " · ", what the user
// sees), where the command line groups by the first label only; and the
// threads hidden by the duration filter are left out of the rows and the
// total.
//
// Invariants: rows[k] equals summarize()'s row k (default sort: run time,
// then name) for the kept threads, field for field; members[k] lists
// exactly the kept threads of that group (its `threads` count), sorted by
// (start, id); a thread is hidden by the filter iff its lifetime
// (summary.hpp's: resolved, or the trace's end, minus created) is strictly
// less than the bound, so a bound of 0 hides nothing.
#pragma once

#include <cstdint>
#include <vector>

#include "viewer/analysis/summary.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

// resolved (or the trace's end, when pending) - created, as thread_lifetime().
[[nodiscard]] TimeNs timeline_thread_lifetime(const TimelineData& data, const TimelineThread& thread);

// Per thread index: true when the duration filter hides it (lifetime < bound).
[[nodiscard]] std::vector<bool> threads_hidden_by_duration(const TimelineData& data, TimeNs bound);

struct TimelineSummary {
  Summary summary;
  std::vector<std::vector<std::uint32_t>> members;  // per row, its threads' indexes by (start, id)
  std::uint64_t hidden = 0;                         // threads left out by the duration filter
};

[[nodiscard]] TimelineSummary summarize_timeline(const TimelineData& data, SummaryGrouping by,
                                                 TimeNs min_lifetime = 0);

}  // namespace skein
