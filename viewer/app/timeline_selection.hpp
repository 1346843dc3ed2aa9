// timeline_selection.hpp — the one owner of what is selected and marked on
// the timeline: the selected thread, by id, and every highlight, by id, in
// one layer per source (viewer/timeline/timeline_marks.hpp: search,
// summary, Why? path, finding). It knows the view the timeline shows (the
// loaded trace, or that trace through the declutter filter), maps ids to
// that view's indexes and applies the result to the TimelineWidget; the
// docks talk to it, never to the widget's marks.
//
// Invariants:
//   1. The widget's highlighted, current_match and path are always
//      marks().resolve() for the view the widget shows: every change of a
//      layer, and every new view, applies them again.
//   2. selected() is the thread the user or the code chose, by id. The
//      widget selects the thread drawn for it (its stand-in when a filter
//      hides it; nothing when it is hidden with no stand-in), and a new view
//      of the same trace keeps it: unfolding gives the chosen thread back.
//      The finding layer stands for a selection opened on a finding (its
//      turn and named rows); a new view opens that finding there again, and
//      any other selection clears the layer.
//   3. Only a change of the selection emits selection_changed: a new view
//      that keeps the chosen id does not. A selection made on the timeline
//      (a click, a key, a select() of the widget's) is taken from the
//      widget; one made here (select, reveal, open_finding) is applied to
//      it without the widget's signal coming back as a second change.
#pragma once

#include <QObject>
#include <memory>
#include <optional>
#include <vector>

#include "viewer/timeline/timeline_filter.hpp"
#include "viewer/timeline/timeline_marks.hpp"

namespace skein {

class TimelineWidget;

class TimelineSelection : public QObject {
  Q_OBJECT

 public:
  explicit TimelineSelection(TimelineWidget* timeline, QObject* parent = nullptr);

  // A newly loaded trace, shown as it is: the widget's first screen, no
  // selection, every layer empty.
  void set_trace(std::shared_ptr<const TimelineData> full);
  // Another view of the same trace (null: the trace itself): the widget
  // shows it in the same window, and the selection and every layer are
  // applied to it again by id.
  void set_view(std::shared_ptr<const FilteredTimeline> filtered);
  [[nodiscard]] const TimelineData* full() const { return full_.get(); }
  // The view the widget shows: `full` or the filtered view's data.
  [[nodiscard]] std::shared_ptr<const TimelineData> shown() const;
  [[nodiscard]] const FilteredTimeline* filtered() const { return filtered_.get(); }
  // The index, in the view shown, of the thread drawn for `id`.
  [[nodiscard]] std::optional<std::uint32_t> shown_index(ThreadId id) const;

  [[nodiscard]] std::optional<ThreadId> selected() const { return selected_; }
  // Selects `id` in the window as it is and scrolls to its row.
  void select(ThreadId id);
  // Selects `id` and brings it into view (TimelineWidget::reveal_thread).
  void reveal(ThreadId id);
  // Opens `finding` (as the loaded trace holds it) on the timeline: its
  // window, its turn selected, its rows named (finding_focus.hpp). False
  // when the view shown has no focus for it (a view derived before the
  // finding arrived, or one hiding its thread): its thread is selected as
  // drawn there, the window is the caller's to move, and the next view
  // that has the finding opens it. False, and nothing changed, when it
  // names no thread of the trace.
  bool open_finding(const TimelineAnomaly& finding);

  [[nodiscard]] const TimelineMarks& marks() const { return marks_; }
  void set_threads(MarkLayer layer, std::vector<ThreadId> ids);
  void set_current_match(std::optional<ThreadId> id);
  void set_path(std::vector<MarkedLink> links);
  void clear(MarkLayer layer);

 signals:
  // selected() changed, or was chosen again. `on_timeline`: the selection
  // was made on the widget (its last click time applies), not by code.
  void selection_changed(bool on_timeline);
  // A layer changed (the widget shows it already).
  void marks_changed();

 private:
  void on_widget_selection();
  void apply_marks();
  // Runs `change` on the widget with its selection signal taken as ours.
  template <class Change>
  void quietly(Change&& change);

  TimelineWidget* timeline_;
  std::shared_ptr<const TimelineData> full_;
  std::shared_ptr<const FilteredTimeline> filtered_;  // null: the trace as loaded is shown
  std::optional<ThreadId> selected_;
  TimelineMarks marks_;
  bool applying_ = false;  // the widget's signals come from a change made here
};

}  // namespace skein
