// timeline_marks.hpp — what the inspection docks mark on the timeline, kept
// by thread id in one named layer per source, and those marks resolved into
// the view the timeline shows. No Qt: the viewer's selection controller
// (viewer/app/timeline_selection.hpp) holds one and applies what resolve()
// gives to the widget; the tests check the same mapping headless.
//
// The layers:
//   search    the matching threads (a band behind each) and the current
//             match (outlined);
//   summary   the threads of the selected summary row (bands);
//   why_path  the Why? answer: its links, bold from cause to effect, and
//             the threads they join (bands);
//   finding   the finding the selection opened (a copy of it as the loaded
//             trace holds it): its turn and named rows, derived again in
//             each view (finding_focus.hpp); it draws no band.
// Invariant: setting or clearing a layer leaves every other layer as it was.
//
// Resolving into a view (`full`, and `filtered` when a declutter filter is
// on, timeline_filter.hpp): an id maps to the index of the thread drawn for
// it (shown_index: a hidden thread to its stand-in). A band or the current
// match on a thread hidden with no stand-in is dropped, so is a link with
// an end there; a link's cause -1 (the scheduler) stays -1. The bands are
// the union of every layer's, sorted and without duplicates, as
// TimelineViewState::highlighted holds them; the links keep their order.
// Ids survive a change of view: resolving the same marks into another view
// of the same trace gives that view's indexes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_filter.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein {

enum class MarkLayer : std::uint8_t { search, summary, why_path, finding };
inline constexpr std::size_t kMarkLayerCount = 4;

// A link of a causal path by thread id (TimelinePathLink by index): cause
// -1 is the scheduler.
struct MarkedLink {
  TimeNs cause_time = 0;
  TimeNs effect_time = 0;
  ThreadId cause = -1;
  ThreadId effect = -1;
};

// The marks as one view's indexes: TimelineViewState's highlighted,
// current_match and path.
struct ResolvedMarks {
  std::vector<std::uint32_t> highlighted;
  std::optional<std::uint32_t> current_match;
  std::vector<TimelinePathLink> path;
};

class TimelineMarks {
 public:
  // A layer's bands (why_path's come with set_path; finding has none).
  void set_threads(MarkLayer layer, std::vector<ThreadId> ids);
  // The search layer's outlined match.
  void set_current_match(std::optional<ThreadId> id);
  // The why_path layer: its links, and as its bands every thread they join.
  void set_path(std::vector<MarkedLink> links);
  // The finding layer (a finding of the loaded trace, `full`'s indexes).
  void set_finding(std::optional<TimelineAnomaly> finding);
  void clear(MarkLayer layer);
  void clear();

  [[nodiscard]] const std::vector<ThreadId>& threads(MarkLayer layer) const {
    return bands_[static_cast<std::size_t>(layer)];
  }
  [[nodiscard]] std::optional<ThreadId> current_match() const { return current_match_; }
  [[nodiscard]] const std::vector<MarkedLink>& path() const { return path_; }
  [[nodiscard]] const std::optional<TimelineAnomaly>& finding() const { return finding_; }
  [[nodiscard]] bool empty(MarkLayer layer) const;

  // The bands, the current match and the links in the view of `full`
  // through `filtered` (null: `full` itself).
  [[nodiscard]] ResolvedMarks resolve(const TimelineData& full, const FilteredTimeline* filtered) const;
  // The finding layer's focus in that view; nullopt when the layer is
  // empty or the view has no such finding, or it names no thread there.
  [[nodiscard]] std::optional<FindingFocus> finding_focus(const TimelineData& full,
                                                          const FilteredTimeline* filtered) const;

 private:
  std::array<std::vector<ThreadId>, kMarkLayerCount> bands_;
  std::optional<ThreadId> current_match_;
  std::vector<MarkedLink> path_;
  std::optional<TimelineAnomaly> finding_;
};

// `finding` (as `full` holds it) as the view of `full` through `filtered`
// holds it: itself when `filtered` is null, else the filtered view's copy
// with the same time, number and rule (the last, should several be equal;
// its threads are that view's indexes); null when there is none.
[[nodiscard]] const TimelineAnomaly* finding_in_view(const FilteredTimeline* filtered, const TimelineAnomaly& finding);

}  // namespace skein
