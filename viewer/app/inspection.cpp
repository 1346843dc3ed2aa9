// inspection.cpp — builds the central widget (overview strip, hidden search
// bar, timeline) and tabs the docks right and bottom. Highlights are kept
// per source by thread id and mapped to shown indexes in refresh_marks();
// a filter change re-derives `shown` and keeps the selection by id. The
// flame graph follows the view after a 120 ms single-shot timer. Findings
// from a stale analysis generation are dropped; the current ones are
// written once into the loaded trace here, on the UI thread. navigating_
// marks selections made in code, so Why? then asks at the thread's end.
#include "viewer/app/inspection.hpp"

#include <QDockWidget>
#include <QMainWindow>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/flame_graph_widget.hpp"
#include "viewer/app/overview_strip.hpp"
#include "viewer/app/search_bar.hpp"
#include "viewer/app/subsecond_heatmap_widget.hpp"
#include "viewer/app/summary_dock.hpp"
#include "viewer/app/thread_details_dock.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/trace_analysis.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/thread_details.hpp"

namespace skein {
namespace {

// The window a finding is shown in (or the whole trace when shorter).
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

Inspection::Inspection(QMainWindow* window, TimelineWidget* timeline)
    : QObject(window), window_(window), timeline_(timeline) {
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

  connect(timeline_, &TimelineWidget::selection_changed, this, &Inspection::on_selection_changed);
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
  connect(anomalies_, &AnomalyDock::hidden_rules_changed, this, [this](const QStringList& rules) {
    std::vector<std::string> hidden;
    for (const QString& r : rules) hidden.push_back(r.toStdString());
    timeline_->set_hidden_rules(std::move(hidden));
  });
  connect(summary_, &SummaryDock::threads_highlighted, this, [this](const std::vector<ThreadId>& ids) {
    summary_marks_ = ids;
    refresh_marks();
  });
  connect(summary_, &SummaryDock::duration_filter_changed, this, &Inspection::set_min_duration);
  connect(search_, &SearchBar::matches_changed, this, [this](const std::vector<ThreadId>& ids) {
    search_marks_ = ids;
    if (ids.empty()) current_match_.reset();
    refresh_marks();
  });
  connect(search_, &SearchBar::current_changed, this, [this](ThreadId id) {
    current_match_ = id;
    go_to_thread(id);
    refresh_marks();
  });
  connect(search_, &SearchBar::closed, this, [this] {
    search_marks_.clear();
    current_match_.reset();
    refresh_marks();
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

void Inspection::set_data(std::shared_ptr<const TimelineData> full) {
  full_ = std::move(full);
  filter_.folded.clear();  // ids of another trace
  filter_.min_duration = 0;
  summary_marks_.clear();
  search_marks_.clear();
  path_marks_.clear();
  current_match_.reset();
  derive_shown();
  timeline_->set_data(shown_);
  details_->set_data(full_);
  why_->set_data(full_);
  anomalies_->set_data(full_);
  summary_->set_data(full_);
  search_->set_data(full_);
  overview_->set_data(full_);
  heatmap_->set_data(full_);
  flame_->set_data(full_);
  on_view_changed();
  update_flame_graph();
  emit filter_changed();
  // The lints, after this first frame (the worker starts on the next turn
  // of the event loop).
  finding_to_show_.reset();
  if (full_) {
    analysis_->open(full_->source, full_);
    anomalies_->set_linting(true);
  }
}

void Inspection::resume_analysis(const QString& replaced) {
  if (!full_ || QString::fromStdString(full_->source) == replaced) return;
  analysis_->open(full_->source, full_);
  anomalies_->set_linting(true);
}

void Inspection::on_findings_ready(quint64 generation, std::vector<LintFinding> findings,
                                   std::vector<TimelineAnomaly> stored_findings, bool ran, const QString& error) {
  if (!full_ || generation != analysis_->generation()) return;
  anomalies_->set_linting(false);
  if (!error.isEmpty()) {
    anomalies_->set_error(error);
    finding_to_show_.reset();
    emit findings_settled();
    return;
  }
  {
    // The findings are the one part of the loaded trace the UI thread
    // changes, once, here: nothing else reads them off this thread (the
    // analysis worker reads only the thread index). The object was made
    // non-const by the loader.
    auto& anomalies = const_cast<TimelineData&>(*full_).anomalies;
    anomalies = std::move(stored_findings);  // sorted by time; empty when the lint ran now
    for (const LintFinding& f : findings) {
      TimelineAnomaly a;
      a.time = f.time;
      const auto index = [&](std::optional<ThreadId> id) -> std::int32_t {
        if (!id) return -1;
        const auto i = full_->thread_index(*id);
        return i ? static_cast<std::int32_t>(*i) : -1;
      };
      a.thread = index(f.thread);
      a.from = index(f.from);
      a.suspect = index(f.suspect);
      a.event = f.event.value_or(-1);
      a.rule = std::string(lint_rule_name(f.rule));
      a.severity = std::string(lint_severity_name(f.severity));
      a.message = f.message;
      a.number = f.number;
      anomalies.push_back(std::move(a));
    }
    if (ran)  // the lint's order is by rule; the stored ones come by time
      std::stable_sort(anomalies.begin(), anomalies.end(),
                       [](const TimelineAnomaly& x, const TimelineAnomaly& y) { return x.time < y.time; });
    anomalies_->set_data(full_);
    if (filtered_) {
      apply_filter();  // the shown view carries its own copy
    } else {
      timeline_->update();
    }
  }
  if (finding_to_show_) {
    const std::int64_t n = *finding_to_show_;
    finding_to_show_.reset();
    if (!show_finding(n)) emit finding_not_found(n);
  }
  emit findings_settled();
}

bool Inspection::show_finding(std::int64_t number) {
  if (!full_) return false;
  if (analysis_->linting()) {
    finding_to_show_ = number;
    return true;
  }
  for (std::size_t i = 0; i < full_->anomalies.size(); ++i)
    if (full_->anomalies[i].number == number) {
      show_anomaly(static_cast<int>(i));
      return true;
    }
  return false;
}

void Inspection::derive_shown() {
  if (filter_.empty()) {
    filtered_.reset();
    shown_ = full_;
  } else {
    filtered_ = std::make_shared<const FilteredTimeline>(filter_timeline(*full_, filter_));
    shown_ = std::shared_ptr<const TimelineData>(filtered_, &filtered_->data);
  }
}

void Inspection::apply_filter() {
  if (!full_) return;
  const std::optional<ThreadId> selected = selected_id();
  derive_shown();
  timeline_->replace_data(shown_);
  if (selected)
    if (auto i = shown_index(*selected)) timeline_->select(*i);
  refresh_marks();
  emit filter_changed();
}

void Inspection::set_simplify_binds(bool on) {
  if (filter_.simplify_binds == on) return;
  filter_.simplify_binds = on;
  apply_filter();
}

void Inspection::set_min_duration(TimeNs bound) {
  if (filter_.min_duration == bound) return;
  filter_.min_duration = bound;
  apply_filter();
}

void Inspection::toggle_fold(ThreadId thread) {
  auto& folded = filter_.folded;
  if (auto it = std::find(folded.begin(), folded.end(), thread); it != folded.end()) folded.erase(it);
  else folded.push_back(thread);
  apply_filter();
}

void Inspection::unfold_all() {
  if (filter_.folded.empty()) return;
  filter_.folded.clear();
  apply_filter();
}

std::optional<std::uint32_t> Inspection::shown_index(ThreadId id) const {
  if (!full_ || !shown_) return std::nullopt;
  if (!filtered_) return full_->thread_index(id);
  const auto i = full_->thread_index(id);
  if (!i) return std::nullopt;
  const std::int32_t s = filtered_->shown_as[*i];
  return s >= 0 ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(s)) : std::nullopt;
}

std::optional<ThreadId> Inspection::selected_id() const {
  const TimelineViewState& v = timeline_->view();
  if (!v.selected || !timeline_->data()) return std::nullopt;
  return timeline_->data()->threads[*v.selected].id;
}

std::vector<std::uint32_t> Inspection::shown_indexes(const std::vector<ThreadId>& ids) const {
  std::vector<std::uint32_t> out;
  out.reserve(ids.size());
  for (ThreadId id : ids)
    if (auto i = shown_index(id)) out.push_back(*i);
  return out;
}

void Inspection::go_to_thread(ThreadId id) {
  const auto i = shown_index(id);
  if (!i || !shown_) return;
  // Selects (one selection_changed), moves or zooms the window to the
  // thread when it is out of view or too thin to see, scrolls to its row.
  navigating_ = true;
  timeline_->reveal_thread(*i);
  navigating_ = false;
}

void Inspection::show_anomaly(int index) {
  if (!full_ || !shown_ || index < 0 || static_cast<std::size_t>(index) >= full_->anomalies.size()) return;
  const TimelineAnomaly& a = full_->anomalies[static_cast<std::size_t>(index)];
  // The finding as the shown view holds it (a filtered view has its own
  // indexes), then its focus: the turn that acted, a few tens of µs
  // around it, only its edges, the suspect named (finding_focus.hpp).
  const TimelineAnomaly* shown = &a;
  if (filtered_) {
    shown = nullptr;
    for (const TimelineAnomaly& s : shown_->anomalies)
      if (s.time == a.time && s.number == a.number && s.rule == a.rule) shown = &s;
  }
  if (const std::optional<FindingFocus> focus = shown ? focus_on_finding(*shown_, *shown) : std::nullopt) {
    navigating_ = true;
    timeline_->show_focus(*focus);
    navigating_ = false;
  } else {
    const double width = std::min(kFindingWindowNs, std::max(1000.0, double(full_->end_time - full_->first_time)));
    timeline_->show_window(double(a.time) - width / 2, double(a.time) + width / 2);
  }
  if (a.thread >= 0) {
    const ThreadId id = full_->threads[static_cast<std::size_t>(a.thread)].id;
    // Why? at the finding's record, not at the thread's end, answered now:
    // the finding is a question about that record.
    if (a.event > 0) why_->set_subject_record(id, a.event, a.time);
    else why_->set_subject(id, a.time);
    for (QDockWidget* dock : docks_)
      if (dock->widget() == why_) dock->raise();
    why_->ask(CausalDirection::why);
  }
  refresh_marks();
}

void Inspection::show_step(ThreadId thread, TimeNs from, TimeNs to) {
  // The step's span, with room on both sides: at least kStepWindowNs wide.
  const double centre = (double(from) + double(to)) / 2;
  const double width = std::max(kStepWindowNs, 1.5 * double(to - from));
  timeline_->show_window(centre - width / 2, centre + width / 2);
  if (auto i = shown_index(thread)) {
    navigating_ = true;
    timeline_->select(*i);
    navigating_ = false;
    timeline_->scroll_to_row(shown_->threads[*i].row);
  }
}

QString Inspection::selected_details_text() const {
  const auto id = selected_id();
  if (!id || !full_) return {};
  const auto i = full_->thread_index(*id);
  return i ? QString::fromStdString(thread_details_text(*full_, *i)) : QString();
}

void Inspection::show_search() { search_->activate(); }

void Inspection::refresh_marks() {
  if (!shown_) return;
  std::vector<ThreadId> ids = summary_marks_;
  ids.insert(ids.end(), search_marks_.begin(), search_marks_.end());
  ids.insert(ids.end(), path_marks_.begin(), path_marks_.end());
  timeline_->set_highlight(shown_indexes(ids));
  timeline_->set_current_match(current_match_ ? shown_index(*current_match_) : std::nullopt);
  std::vector<TimelinePathLink> links;
  for (const WhyStep& s : why_->model()->steps()) {
    TimelinePathLink l{s.cause_time, s.effect_time, -1, -1};
    if (s.cause != -1) {
      const auto c = shown_index(s.cause);
      if (!c) continue;
      l.cause = static_cast<std::int32_t>(*c);
    }
    const auto e = shown_index(s.effect);
    if (!e) continue;
    l.effect = static_cast<std::int32_t>(*e);
    links.push_back(l);
  }
  timeline_->set_path(std::move(links));
}

void Inspection::on_selection_changed() {
  const auto id = selected_id();
  if (!id) {
    details_->show_thread(std::nullopt);
    why_->set_subject(std::nullopt, 0);
    return;
  }
  const auto full_index = full_->thread_index(*id);
  details_->show_thread(full_index);
  // The question's time: where the user clicked on the thread, else its end.
  const TimelineThread& t = full_->threads[*full_index];
  const TimeNs click = timeline_->last_click_time();
  why_->set_subject(*id, !navigating_ && click >= t.start && click <= t.end ? click : t.end);
}

void Inspection::on_view_changed() {
  if (!shown_) return;
  const TimelineViewState& v = timeline_->view();
  overview_->set_visible_range(v.mapping.t_of(0), v.mapping.t_of(timeline_->width()));
}

void Inspection::update_flame_graph() {
  if (!full_) return;
  // The window as far as it lies within the trace (the fitted view has a
  // margin before the first record).
  const TimelineViewState& v = timeline_->view();
  const double t0 = std::max(v.mapping.t_of(0), double(full_->first_time));
  const double t1 = std::min(v.mapping.t_of(timeline_->width()), double(full_->end_time));
  flame_->set_range(t0, std::max(t0, t1));
}

void Inspection::on_path_changed() {
  path_marks_.clear();
  for (const WhyStep& s : why_->model()->steps()) {
    if (s.cause != -1) path_marks_.push_back(s.cause);
    path_marks_.push_back(s.effect);
  }
  refresh_marks();
}

}  // namespace skein
