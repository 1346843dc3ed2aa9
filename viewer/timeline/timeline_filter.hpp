// timeline_filter.hpp — decluttering the timeline without touching the
// database: a TimelineData derived from the loaded one, with some threads
// hidden and the rest laid out again. The viewer's toggles (View ▸ Simplify
// Binds, Fold Subtree, the summary's duration filter) only ever change the
// TimelineFilter; the loaded data and the trace database stay as they were,
// so turning a toggle off gives back exactly the original picture.
//
// Three ways a thread disappears, applied in this order:
//   1. Folded: every descendant of a folded thread R (by parent links,
//      transitively) is drawn as R: its activations run on R's row, its
//      edges start or end at R (edges inside the subtree vanish), and R's
//      line reaches the subtree's last end.
//   2. Plumbing (simplify binds, as the 2014 MirageOS viewer did): a bind,
//      map, catch or try thread whose only job is to read one input — it
//      reads or waits on exactly one thread and notifies nobody — stands
//      for that input. Its children are re-parented under what it read, its
//      edges are moved to its input, and its own activations are dropped
//      (they are the callback's; the filter counts their run time).
//   3. Short: with a duration bound, a thread whose lifetime is shorter is
//      hidden like `perf trace --duration` hides short calls; it stands for
//      nothing, so its edges and activations go, and its children are
//      re-parented under its nearest shown ancestor.
//
// Invariants of the result: `data` satisfies TimelineData's invariants
// (check_invariants()); thread ids are the original ones, so anything the
// docks hold by id stays valid; shown_as[i] is the index in `data` of the
// thread that stands for original thread i (-1 when it is hidden with no
// stand-in), and original[shown_as[i]] == i for every shown thread.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"

namespace skein {

struct TimelineFilter {
  bool simplify_binds = false;
  std::vector<ThreadId> folded;  // roots of folded subtrees
  TimeNs min_duration = 0;       // 0: no duration filter

  [[nodiscard]] bool empty() const { return !simplify_binds && folded.empty() && min_duration <= 0; }
};

struct FilteredTimeline {
  TimelineData data;
  std::vector<std::int32_t> shown_as;   // original index -> index in data, or -1
  std::vector<std::uint32_t> original;  // index in data -> original index
  std::size_t folded = 0;               // threads drawn as their folded ancestor
  std::size_t plumbing = 0;             // plumbing threads hidden
  std::size_t short_lived = 0;          // threads hidden by the duration bound
  TimeNs hidden_run_time = 0;           // run time of hidden threads no longer drawn
};

// What a filter decides, read from the threads and the edges alone: which
// threads it hides, where each is drawn, and the shown threads' new parents,
// merge targets and rows (the layout, run again). filter_timeline() derives
// it first and then moves the activations, edges and findings by it. A plan
// can be derived ahead: skein-view derives the simplify-binds plan of a
// loaded trace on a worker once the trace is loaded (app/filtered_view.hpp),
// so that the toggle only moves data. It holds 12 bytes a thread, 24 a
// shown thread, 8 a row and a bit an edge, and belongs to the one
// TimelineData it was derived from.
struct FilterPlan {
  TimelineFilter filter;
  // The shape of the trace it was derived from, which filter_timeline()
  // compares with the trace it is given.
  std::size_t thread_count = 0;
  std::size_t edge_count = 0;
  TimeNs end_time = 0;
  std::vector<std::int32_t> shown_as;  // as FilteredTimeline's
  // Original index -> the thread in the result whose row takes its
  // activations, and that row: a shown thread's own and a folded one's (its
  // root's); -1 for a plumbing or short-lived one's, which are not drawn.
  struct ActivationTarget {
    std::int32_t row = -1;
    std::int32_t thread = -1;
  };
  std::vector<ActivationTarget> activations_to;
  std::vector<std::uint32_t> original;  // as FilteredTimeline's
  // Per shown thread (index in the result): the original index of its new
  // parent and of its merge target (-1: none), its row and its merge
  // chain's head (an index in the result).
  std::vector<std::int32_t> parent;
  std::vector<std::int32_t> merged_into;
  std::vector<std::int32_t> rows;
  std::vector<std::uint32_t> chain_head;
  std::int32_t row_count = 0;
  // Each row's shown threads by start (group_rows, timeline_data.hpp), and
  // how many activations it takes.
  RowMembers members;
  std::vector<std::uint32_t> row_activations;
  // Which edges stay (a bit an edge, in the trace's order), and how many.
  std::vector<std::uint64_t> edge_kept;
  std::size_t edges_kept = 0;
  // Folded roots whose line now reaches their subtree's last end: (index in
  // the result, that end).
  std::vector<std::pair<std::uint32_t, TimeNs>> folded_ends;
  std::size_t folded = 0;
  std::size_t plumbing = 0;
  std::size_t short_lived = 0;
  TimeNs hidden_run_time = 0;
};

[[nodiscard]] FilterPlan plan_filter(const TimelineData& full, const TimelineFilter& filter);

// The indexes of `data`'s plumbing threads (rule 2 above), in index order.
[[nodiscard]] std::vector<std::uint32_t> plumbing_threads(const TimelineData& data);

// Derives the filtered timeline. An empty filter gives a copy of `full`.
[[nodiscard]] FilteredTimeline filter_timeline(const TimelineData& full, const TimelineFilter& filter);
// The same by a plan derived ahead from `full` (plan_filter). A plan whose
// trace had another shape (thread count, edge count, end) than `full` is
// not followed: the filter is derived anew.
[[nodiscard]] FilteredTimeline filter_timeline(const TimelineData& full, const FilterPlan& plan);

// The index, in the view the timeline shows, of the thread drawn for `id`:
// its index in `full` when `filtered` is null (an empty filter shows `full`
// itself), else its stand-in's (shown_as); nullopt for an id `full` lacks
// or a thread hidden with no stand-in.
[[nodiscard]] std::optional<std::uint32_t> shown_index(const TimelineData& full, const FilteredTimeline* filtered,
                                                       ThreadId id);

}  // namespace skein
