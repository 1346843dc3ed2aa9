// inspection.cpp — builds the central widget (overview strip, hidden search
// bar, timeline) and tabs the docks right and bottom, then connects each
// dock to the selection, the filtered view or the timeline; marks go to
// the selection by id and layer, filter toggles to the filtered view, whose
// views the selection shows as they arrive. The flame graph follows the
// view after a 120 ms single-shot timer. Findings from a stale analysis
// generation are dropped; the current ones are written once into the
// loaded trace here, on the UI thread, when no filtering job reads it.
#include "viewer/app/inspection.hpp"

#include <QDockWidget>
#include <QMainWindow>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/filtered_view.hpp"
#include "viewer/app/flame_graph_widget.hpp"
#include "viewer/app/overview_strip.hpp"
#include "viewer/app/search_bar.hpp"
#include "viewer/app/subsecond_heatmap_widget.hpp"
#include "viewer/app/summary_dock.hpp"
#include "viewer/app/thread_details_dock.hpp"
#include "viewer/app/timeline_selection.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/trace_analysis.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/thread_details.hpp"
#include "viewer/timeline/timeline_findings.hpp"

namespace skein {
namespace {

// The narrowest window a Why? step is shown in.
constexpr double kStepWindowNs = 40e3;

QDockWidget* add_dock(QMainWindow* window, const QString& title, const QString& name, QWidget* content,
                      Qt::DockWidgetArea area) {
  auto* dock = qobject_cast<QDockWidget*>(content);
  if (!dock) {
    dock = new QDockWidget(title, window);
    dock->setWidget(content);
  }
  dock->setWindowTitle(title);
  dock->setObjectName(name);
  window->addDockWidget(area, dock);
  return dock;
}

}  // namespace

Inspection::Inspection(QMainWindow* window, TimelineWidget* timeline) : QObject(window), timeline_(timeline) {
  selection_ = new TimelineSelection(timeline_, this);
  view_ = new FilteredView(this);
  build_docks(window);
  connect_docks();
}

void Inspection::build_docks(QMainWindow* window) {
  central_ = new QWidget(window);
  overview_ = new OverviewStrip(central_);
  search_ = new SearchBar(central_);
  search_->hide();
  auto* layout = new QVBoxLayout(central_);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(overview_);
  layout->addWidget(search_);
  layout->addWidget(timeline_, 1);

  analysis_ = new TraceAnalysis(this);
  details_ = new ThreadDetailsDock(window);
  why_ = new WhyDock(analysis_, window);
  anomalies_ = new AnomalyDock(window);
  summary_ = new SummaryDock(window);
  flame_ = new FlameGraphWidget(window);
  heatmap_ = new SubsecondHeatmapWidget(window);
  QDockWidget* details = add_dock(window, QStringLiteral("Thread"), QStringLiteral("dock-details"), details_,
                                  Qt::RightDockWidgetArea);
  QDockWidget* why = add_dock(window, QStringLiteral("Why?"), QStringLiteral("dock-why"), why_, Qt::RightDockWidgetArea);
  QDockWidget* anomalies = add_dock(window, QStringLiteral("Anomalies"), QStringLiteral("dock-anomalies"), anomalies_,
                                    Qt::RightDockWidgetArea);
  QDockWidget* summary = add_dock(window, QStringLiteral("Summary"), QStringLiteral("dock-summary"), summary_,
                                  Qt::BottomDockWidgetArea);
  QDockWidget* flame = add_dock(window, QStringLiteral("Flame Graph"), QStringLiteral("dock-flame"), flame_,
                                Qt::BottomDockWidgetArea);
  QDockWidget* heat = add_dock(window, QStringLiteral("Subsecond Heat Map"), QStringLiteral("dock-heatmap"), heatmap_,
                               Qt::BottomDockWidgetArea);
  window->tabifyDockWidget(details, why);
  window->tabifyDockWidget(why, anomalies);
  details->raise();
  window->tabifyDockWidget(summary, flame);
  window->tabifyDockWidget(flame, heat);
  summary->raise();
  docks_ = {details, why, anomalies, summary, flame, heat};
  // The timeline keeps most of the window.
  window->resizeDocks({details}, {400}, Qt::Horizontal);
  window->resizeDocks({summary}, {230}, Qt::Vertical);
}

void Inspection::connect_docks() {
  connect(selection_, &TimelineSelection::selection_changed, this, &Inspection::on_selection_changed);
  connect(view_, &FilteredView::view_ready, this, [this] {
    selection_->set_view(view_->filtered());
    emit filter_applied();
  });
  connect(timeline_, &TimelineWidget::view_changed, this, &Inspection::on_view_changed);
  connect(why_, &WhyDock::path_changed, this, &Inspection::on_path_changed);
  connect(why_, &WhyDock::step_activated, this, &Inspection::show_step);
  connect(details_, &ThreadDetailsDock::thread_activated, this, &Inspection::go_to_thread);
  connect(anomalies_, &AnomalyDock::anomaly_activated, this, &Inspection::show_anomaly);
  connect(analysis_, &TraceAnalysis::findings_ready, this,
          [this](quint64 generation, std::vector<LintFinding> findings, std::vector<TimelineAnomaly> stored_findings,
                 bool ran, bool, const QString& error) {
            on_findings_ready(generation, std::move(findings), std::move(stored_findings), ran, error);
          });
  connect(analysis_, &TraceAnalysis::labels_ready, this, &Inspection::on_labels_ready);
  connect(anomalies_, &AnomalyDock::hidden_rules_changed, this, [this](const QStringList& rules) {
    std::vector<std::string> hidden;
    for (const QString& r : rules) hidden.push_back(r.toStdString());
    timeline_->set_hidden_rules(std::move(hidden));
  });
  connect(summary_, &SummaryDock::threads_highlighted, this,
          [this](const std::vector<ThreadId>& ids) { selection_->set_threads(MarkLayer::summary, ids); });
  connect(summary_, &SummaryDock::duration_filter_changed, this, &Inspection::set_min_duration);
  connect(search_, &SearchBar::matches_changed, this, [this](const std::vector<ThreadId>& ids) {
    selection_->set_threads(MarkLayer::search, ids);
    if (ids.empty()) selection_->set_current_match(std::nullopt);
  });
  connect(search_, &SearchBar::current_changed, this, [this](ThreadId id) {
    selection_->set_current_match(id);
    go_to_thread(id);
  });
  connect(search_, &SearchBar::closed, this, [this] {
    selection_->clear(MarkLayer::search);
    timeline_->setFocus();
  });
  connect(overview_, &OverviewStrip::range_requested, timeline_, &TimelineWidget::show_window);
  connect(heatmap_, &SubsecondHeatmapWidget::range_selected, timeline_, &TimelineWidget::show_window);
  // The flame graph follows the window, after the user stops moving it.
  auto* flame_timer = new QTimer(this);
  flame_timer->setSingleShot(true);
  flame_timer->setInterval(120);
  connect(flame_timer, &QTimer::timeout, this, &Inspection::update_flame_graph);
  connect(timeline_, &TimelineWidget::view_changed, flame_timer, qOverload<>(&QTimer::start));
}

const TimelineData* Inspection::full() const { return view_->full().get(); }
std::shared_ptr<const TimelineData> Inspection::full_data() const { return view_->full(); }
const TimelineData* Inspection::shown() const { return timeline_->data(); }
const TimelineFilter& Inspection::filter() const { return view_->filter(); }
const FilteredTimeline* Inspection::filtered() const { return selection_->filtered(); }
std::optional<std::uint32_t> Inspection::shown_index(ThreadId id) const { return selection_->shown_index(id); }
std::optional<ThreadId> Inspection::selected_id() const { return selection_->selected(); }

void Inspection::set_data(std::shared_ptr<const TimelineData> full) {
  // The trace as loaded first; a filtered view follows when simplify binds is on.
  // The Anomalies dock hears first that the lints are to run, so it never
  // counts the new trace's findings before they are in.
  if (full) anomalies_->set_linting(true);
  view_->set_data(full);
  selection_->set_trace(full);
  details_->set_data(full);
  why_->set_data(full);
  anomalies_->set_data(full);
  summary_->set_data(full);
  search_->set_data(full);
  overview_->set_data(full);
  heatmap_->set_data(full);
  flame_->set_data(full);
  on_view_changed();
  update_flame_graph();
  if (!view_->pending()) emit filter_applied();
  // The lints, after this first frame (the worker starts on the next turn
  // of the event loop).
  finding_to_show_.reset();
  if (full) analysis_->open(full->database, full);
}

void Inspection::resume_analysis(const QString& replaced) {
  const std::shared_ptr<const TimelineData> full = view_->full();
  if (!full || QString::fromStdString(full->source) == replaced) return;
  analysis_->open(full->database, full);
  anomalies_->set_linting(true);
}

void Inspection::on_findings_ready(quint64 generation, std::vector<LintFinding> findings,
                                   std::vector<TimelineAnomaly> stored_findings, bool ran, const QString& error) {
  if (!full() || generation != analysis_->generation()) return;
  if (!error.isEmpty()) {
    anomalies_->set_linting(false);
    anomalies_->set_error(error);
    finding_to_show_.reset();
    emit findings_settled();
    return;
  }
  // Written into the loaded trace once no filtering job reads it.
  const TimelineData* trace = full();
  view_->when_idle([this, trace, generation, findings = std::move(findings),
                    stored_findings = std::move(stored_findings), ran]() mutable {
    if (full() != trace || generation != analysis_->generation()) return;  // another trace since
    // The findings are the one part of the loaded trace the UI thread
    // changes, once, here: nothing else reads them off this thread (the
    // analysis worker reads only the thread index, and no filtering job
    // runs now). The object was made non-const by the loader.
    auto& loaded = const_cast<TimelineData&>(*trace);
    loaded.anomalies = timeline_findings(*trace, std::move(stored_findings), findings, ran);
    index_finding_rows(loaded);
    anomalies_->set_data(view_->full());
    // Done once the findings are in: until then the dock says the lints run.
    anomalies_->set_linting(false);
    if (view_->filter().empty()) timeline_->update();
    else view_->refilter();  // a filtered view carries its own copy
    if (finding_to_show_) {
      const std::int64_t n = *finding_to_show_;
      finding_to_show_.reset();
      if (!show_finding(n)) emit finding_not_found(n);
    }
    emit findings_settled();
  });
}

void Inspection::on_labels_ready(quint64 generation, std::shared_ptr<const ThreadLabelLists> lists,
                                 const QString& error) {
  if (!full() || generation != analysis_->generation()) return;
  // Written into the loaded trace once no filtering job reads it, as the
  // findings are; a list that could not be read leaves the lists empty and
  // says why.
  const TimelineData* trace = full();
  view_->when_idle([this, trace, generation, lists = std::move(lists), error]() mutable {
    if (full() != trace || generation != analysis_->generation()) return;  // another trace since
    auto& loaded = const_cast<TimelineData&>(*trace);
    loaded.label_lists = lists ? std::move(lists) : std::make_shared<const ThreadLabelLists>();
    loaded.label_lists_error = error.toStdString();
    if (!view_->filter().empty()) view_->refilter();  // a filtered view carries its own copy
    details_->refresh();
    search_->search_again();
    emit labels_settled();
  });
}

bool Inspection::show_finding(std::int64_t number) {
  const TimelineData* trace = full();
  if (!trace) return false;
  if (analysis_->linting()) {
    finding_to_show_ = number;
    return true;
  }
  for (std::size_t i = 0; i < trace->anomalies.size(); ++i)
    if (trace->anomalies[i].number == number) {
      show_anomaly(static_cast<int>(i));
      return true;
    }
  return false;
}

void Inspection::set_simplify_binds(bool on) {
  if (view_->filter().simplify_binds == on) return;
  TimelineFilter f = view_->filter();
  f.simplify_binds = on;
  view_->set_filter(std::move(f));
}

void Inspection::set_min_duration(TimeNs bound) {
  if (view_->filter().min_duration == bound) return;
  TimelineFilter f = view_->filter();
  f.min_duration = bound;
  view_->set_filter(std::move(f));
}

void Inspection::toggle_fold(ThreadId thread) {
  TimelineFilter f = view_->filter();
  auto& folded = f.folded;
  if (auto it = std::find(folded.begin(), folded.end(), thread); it != folded.end()) folded.erase(it);
  else folded.push_back(thread);
  view_->set_filter(std::move(f));
}

void Inspection::unfold_all() {
  if (view_->filter().folded.empty()) return;
  TimelineFilter f = view_->filter();
  f.folded.clear();
  view_->set_filter(std::move(f));
}

void Inspection::go_to_thread(ThreadId id) { selection_->reveal(id); }

void Inspection::show_anomaly(int index) {
  const TimelineData* trace = full();
  if (!trace || !shown() || index < 0 || static_cast<std::size_t>(index) >= trace->anomalies.size()) return;
  const TimelineAnomaly& a = trace->anomalies[static_cast<std::size_t>(index)];
  // Its focus in the view shown (finding_focus.hpp): the turn that acted,
  // a few tens of µs around it, only its edges, the suspect named.
  if (!selection_->open_finding(a)) {
    const double width = std::min(kFindingWindowNs, std::max(1000.0, double(trace->end_time - trace->first_time)));
    timeline_->show_window(double(a.time) - width / 2, double(a.time) + width / 2);
  }
  if (a.thread >= 0) {
    const ThreadId id = trace->threads[static_cast<std::size_t>(a.thread)].id;
    // Why? at the finding's record, not at the thread's end, answered now:
    // the finding is a question about that record. Raising Why? hides the
    // Anomalies dock, so Why? states the finding and what to do about it.
    // A promise pending at the end is asked what ended its wait: nothing,
    // and what made sure nothing would (a dropped resolver, a lost signal).
    if (a.rule() == "pending-at-end") why_->set_subject_waiting(id, a.time);
    else if (a.event > 0) why_->set_subject_record(id, a.event, a.time);
    else why_->set_subject(id, a.time);
    why_->set_finding(anomalies_->explanation_html(index));
    for (QDockWidget* dock : docks_)
      if (dock->widget() == why_) dock->raise();
    why_->ask(CausalDirection::why);
  }
}

void Inspection::show_step(ThreadId thread, TimeNs from, TimeNs to) {
  // The step's span, with room on both sides: at least kStepWindowNs wide.
  const double centre = (double(from) + double(to)) / 2;
  const double width = std::max(kStepWindowNs, 1.5 * double(to - from));
  timeline_->show_window(centre - width / 2, centre + width / 2);
  selection_->select(thread);
}

QString Inspection::selected_details_text() const {
  const auto id = selected_id();
  if (!id || !full()) return {};
  const auto i = full()->thread_index(*id);
  return i ? QString::fromStdString(thread_details_text(*full(), *i)) : QString();
}

void Inspection::show_search() { search_->activate(); }

void Inspection::on_selection_changed(bool on_timeline) {
  const auto id = selected_id();
  const TimelineData* trace = full();
  const auto full_index = id && trace ? trace->thread_index(*id) : std::nullopt;
  if (!full_index) {
    details_->show_thread(std::nullopt);
    why_->set_subject(std::nullopt, 0);
    return;
  }
  details_->show_thread(full_index);
  // The question's time: where the user clicked on the thread, else its end.
  const TimelineThread& t = trace->threads[*full_index];
  const TimeNs click = timeline_->last_click_time();
  why_->set_subject(*id, on_timeline && click >= t.start && click <= t.end ? click : t.end);
}

void Inspection::on_view_changed() {
  if (!timeline_->data()) return;
  const TimelineViewState& v = timeline_->view();
  overview_->set_visible_range(v.mapping.t_of(0), v.mapping.t_of(timeline_->width()));
}

void Inspection::update_flame_graph() {
  const TimelineData* trace = full();
  if (!trace) return;
  // The window as far as it lies within the trace (the fitted view has a
  // margin before the first record).
  const TimelineViewState& v = timeline_->view();
  const double t0 = std::max(v.mapping.t_of(0), double(trace->first_time));
  const double t1 = std::min(v.mapping.t_of(timeline_->width()), double(trace->end_time));
  flame_->set_range(t0, std::max(t0, t1));
}

void Inspection::on_path_changed() {
  std::vector<MarkedLink> links;
  for (const WhyStep& s : why_->model()->steps()) links.push_back({s.cause_time, s.effect_time, s.cause, s.effect});
  selection_->set_path(std::move(links));
}

}  // namespace skein
