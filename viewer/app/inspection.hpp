// inspection.hpp — skein-view's inspection: it creates the docks (thread
// details, Why?, anomalies, summary, flame graph, subsecond heat map), the
// overview strip and the search bar above the timeline, and connects them
// with the timeline, both ways; the window only creates it and hands it
// each loaded trace. It holds no marks and no view of its own: what is
// selected and highlighted is the TimelineSelection's
// (timeline_selection.hpp), the declutter filter and its view are the
// FilteredView's (filtered_view.hpp), the findings' lints are the
// TraceAnalysis's (trace_analysis.hpp).
//
// Docks speak in thread ids, which the loaded trace and every filtered view
// of it share, so nothing a dock holds goes stale when a toggle changes the
// picture.
//
// Links:
//   timeline selection  -> details, Why? subject
//   details / Why? step -> select that thread on the timeline (and show it)
//   Why? path           -> the selection's why_path layer (bold links, its
//                          threads highlighted)
//   anomaly click       -> the selection opens the finding's focus
//                          (finding_focus.hpp: tens of µs around the turn
//                          that acted, that turn and its edges selected,
//                          the suspect named on its row); Why? is asked at
//                          the finding's record and its dock raised, the
//                          finding and what to do about it stated above
//                          the answer; hidden rules are not drawn
//   lints on open       -> the trace's analysis lints a trace never linted
//                          after its first frame; its findings become the
//                          markers and the Anomalies dock's rows when they
//                          arrive, written into the loaded trace once no
//                          filtering job reads it
//   summary row         -> its threads in the summary layer; duration
//                          bound -> filter
//   search              -> its matches in the search layer, the current
//                          one outlined and brought into view
//   declutter toggles   -> the filtered view, computed off the UI thread;
//                          the timeline shows the previous picture until it
//                          arrives, then filter_applied()
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

namespace skein {

class TimelineWidget;
class TimelineSelection;
class FilteredView;
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

  // A newly loaded trace: every dock reset, every mark dropped, the filter
  // kept (simplify binds; folds and the duration bound are another trace's).
  void set_data(std::shared_ptr<const TimelineData> full);
  [[nodiscard]] const TimelineData* full() const;
  [[nodiscard]] std::shared_ptr<const TimelineData> full_data() const;
  // The view the timeline shows (the filter's last view that arrived).
  [[nodiscard]] const TimelineData* shown() const;

  // Declutter (never changes the database). Each asks for a new filtered
  // view; filter_applied() says when the timeline shows it.
  void set_simplify_binds(bool on);
  void set_min_duration(TimeNs bound);
  // Folds the subtree of `thread` into its row, or unfolds it.
  void toggle_fold(ThreadId thread);
  void unfold_all();
  // The filter asked for last, and the view shown.
  [[nodiscard]] const TimelineFilter& filter() const;
  [[nodiscard]] const FilteredTimeline* filtered() const;

  [[nodiscard]] TimelineSelection* selection() const { return selection_; }
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
  // The timeline shows the view of the filter asked for last (after a
  // toggle, once its view arrived; after a new trace): the window updates
  // its status.
  void filter_applied();
  // The lints' results for the open trace are in (or failed), and a
  // finding asked for with show_finding() while they ran has been shown.
  void findings_settled();
  // The label lists of the open trace are in (or could not be read), and
  // the details and the search have them.
  void labels_settled();
  // show_finding() asked, while the lints ran, for a number they did not find.
  void finding_not_found(qint64 number);

 private:
  void build_docks(QMainWindow* window);
  void connect_docks();
  void on_selection_changed(bool on_timeline);
  void on_view_changed();
  void on_path_changed();
  void on_findings_ready(quint64 generation, std::vector<LintFinding> findings,
                         std::vector<TimelineAnomaly> stored_findings, bool ran, const QString& error);
  void on_labels_ready(quint64 generation, std::shared_ptr<const ThreadLabelLists> lists, const QString& error);
  void update_flame_graph();

  TimelineWidget* timeline_;
  TimelineSelection* selection_ = nullptr;
  FilteredView* view_ = nullptr;
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
};

}  // namespace skein
