// inspection.hpp — the inspection docks of skein-view and their links with
// the timeline, both ways. It owns the docks (thread details, Why?,
// anomalies, summary, flame graph, subsecond heat map), the overview strip
// and the search bar above the timeline, and the declutter filter; the
// window only creates it and hands it each loaded trace.
//
// Two views of one trace. `full` is the trace as loaded; the timeline shows
// `shown`, the full trace through the declutter filter (timeline_filter.hpp:
// simplify binds, folded subtrees, the summary's duration bound), which is
// `full` itself while the filter is empty. Docks speak in thread ids, which
// both views share, so nothing a dock holds goes stale when a toggle
// changes the picture; this class maps ids to the shown view's indexes
// (a hidden thread maps to the thread drawn for it, if any).
//
// Links:
//   timeline selection  -> details, Why? subject
//   details / Why? step -> select that thread on the timeline (and show it)
//   Why? path           -> bold links on the timeline, its threads highlighted
//   anomaly click       -> the timeline opens the finding's focus
//                          (finding_focus.hpp: tens of µs around the turn
//                          that acted, that turn and its edges selected,
//                          the suspect named on its row); Why? is asked at
//                          the finding's record and its dock raised;
//                          hidden rules are not drawn
//   lints on open       -> the trace's analysis (trace_analysis.hpp) lints
//                          a trace never linted after its first frame; its
//                          findings become the markers and the Anomalies
//                          dock's rows when they arrive
//   summary row         -> its threads highlighted; duration bound -> filter
//   search              -> matches highlighted, the current one outlined
//                          and brought into view
//   overview strip      <-> the visible range
//   heat map range, flame graph <- the visible range; heat map -> zoom
#pragma once

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/timeline/timeline_filter.hpp"

class QMainWindow;
class QDockWidget;
class QWidget;
class QToolBar;

namespace skein {

class TimelineWidget;
class TraceAnalysis;
class WhyDock;
class ThreadDetailsDock;
class SummaryDock;
class AnomalyDock;
class SearchBar;
class OverviewStrip;
class SubsecondHeatmapWidget;
class FlameGraphWidget;

class Inspection : public QObject {
  Q_OBJECT

 public:
  // Adds the docks to `window` and puts the overview strip and the search
  // bar above `timeline` in the widget it returns (the central widget).
  Inspection(QMainWindow* window, TimelineWidget* timeline);
  [[nodiscard]] QWidget* central() const { return central_; }

  // A newly loaded trace: every dock reset, the filter kept.
  void set_data(std::shared_ptr<const TimelineData> full);
  [[nodiscard]] const TimelineData* full() const { return full_.get(); }
  [[nodiscard]] std::shared_ptr<const TimelineData> full_data() const { return full_; }
  [[nodiscard]] const TimelineData* shown() const { return shown_.get(); }

  // Declutter (never changes the database).
  void set_simplify_binds(bool on);
  void set_min_duration(TimeNs bound);
  // Folds the subtree of `thread` into its row, or unfolds it.
  void toggle_fold(ThreadId thread);
  void unfold_all();
  [[nodiscard]] const TimelineFilter& filter() const { return filter_; }
  [[nodiscard]] const FilteredTimeline* filtered() const { return filtered_.get(); }

  // The index in the shown view that draws thread `id`.
  [[nodiscard]] std::optional<std::uint32_t> shown_index(ThreadId id) const;
  [[nodiscard]] std::optional<ThreadId> selected_id() const;
  // Selects `id` on the timeline, scrolls to its row and, when it is not in
  // the window, moves the window to it (zooming out when needed).
  void go_to_thread(ThreadId id);
  // Opens the finding data.anomalies[index] on the timeline (its focus)
  // and asks Why? at its record.
  void show_anomaly(int index);
  // Shows the finding numbered `number` (`skein lint`'s #N); when the
  // lints are still running, once they are done. False when the trace has
  // no such finding (known only once the lints are done).
  bool show_finding(std::int64_t number);
  // After a load that failed, the shown trace is analysed again (its
  // findings come back from its database), unless `replaced`, the database
  // that load imported anew, is the shown trace's: its findings stay drawn,
  // and Why? has no database to ask.
  void resume_analysis(const QString& replaced);
  [[nodiscard]] TraceAnalysis* analysis() const { return analysis_; }
  // Shows a Why? step: the window from its cause to its effect, with a
  // margin, and its effect's thread selected.
  void show_step(ThreadId thread, TimeNs from, TimeNs to);
  // The selected thread's details as plain text ("" when none).
  [[nodiscard]] QString selected_details_text() const;
  void show_search();

  [[nodiscard]] WhyDock* why() const { return why_; }
  [[nodiscard]] ThreadDetailsDock* details() const { return details_; }
  [[nodiscard]] SummaryDock* summary() const { return summary_; }
  [[nodiscard]] AnomalyDock* anomalies() const { return anomalies_; }
  [[nodiscard]] SearchBar* search() const { return search_; }
  [[nodiscard]] OverviewStrip* overview() const { return overview_; }
  [[nodiscard]] SubsecondHeatmapWidget* heatmap() const { return heatmap_; }
  [[nodiscard]] FlameGraphWidget* flame_graph() const { return flame_; }
  [[nodiscard]] const std::vector<QDockWidget*>& docks() const { return docks_; }

 signals:
  // The shown view changed (a toggle): the window updates its status.
  void filter_changed();
  // The lints' results for the open trace are in (or failed), and a
  // finding asked for with show_finding() while they ran has been shown.
  void findings_settled();
  // show_finding() asked, while the lints ran, for a number they did not find.
  void finding_not_found(qint64 number);

 private:
  // shown_ (and filtered_) from full_ through filter_.
  void derive_shown();
  void apply_filter();
  void refresh_marks();
  void on_selection_changed();
  void on_view_changed();
  void on_path_changed();
  void on_findings_ready(quint64 generation, std::vector<LintFinding> findings,
                         std::vector<TimelineAnomaly> stored_findings, bool ran, const QString& error);
  void update_flame_graph();
  [[nodiscard]] std::vector<std::uint32_t> shown_indexes(const std::vector<ThreadId>& ids) const;

  QMainWindow* window_;
  TimelineWidget* timeline_;
  TraceAnalysis* analysis_ = nullptr;
  std::optional<std::int64_t> finding_to_show_;  // asked while the lints ran
  QWidget* central_ = nullptr;
  WhyDock* why_ = nullptr;
  ThreadDetailsDock* details_ = nullptr;
  SummaryDock* summary_ = nullptr;
  AnomalyDock* anomalies_ = nullptr;
  SearchBar* search_ = nullptr;
  OverviewStrip* overview_ = nullptr;
  SubsecondHeatmapWidget* heatmap_ = nullptr;
  FlameGraphWidget* flame_ = nullptr;
  std::vector<QDockWidget*> docks_;

  std::shared_ptr<const TimelineData> full_;
  std::shared_ptr<const TimelineData> shown_;
  std::shared_ptr<const FilteredTimeline> filtered_;  // null while the filter is empty
  TimelineFilter filter_;

  // What each source highlights, by id.
  std::vector<ThreadId> summary_marks_;
  std::vector<ThreadId> search_marks_;
  std::vector<ThreadId> path_marks_;
  std::optional<ThreadId> current_match_;
  bool navigating_ = false;  // a selection made by go_to_thread, not a click
};

}  // namespace skein
