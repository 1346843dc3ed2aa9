// anomaly_dock.hpp — the "Anomalies" dock: the lints' findings in the
// order and groups of `skein lint`'s report (AnomalyModel,
// viewer/models/anomaly_model.hpp: by rule, most severe first, #1 at the
// top), with a check box per rule to hide it; a group's heading spans its
// row. Its tab reads "Anomalies (N)" once the lints are done, and
// tally_changed() gives the status bar "16 findings: 16 notes" (or
// "Running the lints…", or that they failed). The main window connects it:
//
//   connect(dock, &AnomalyDock::anomaly_activated, ...);    // zoom to data.anomalies[index],
//                                                           // highlight thread, from, suspect
//   connect(dock, &AnomalyDock::hidden_rules_changed, ...); // redraw markers of
//                                                           // dock->model()->visible_anomalies()
//
// A click (or Enter) on a finding emits anomaly_activated with its index
// into data.anomalies, and states the finding in one sentence with what to
// do about it (lint_advice) below the tree (explanation_html(), which the
// Why? panel shows too); rule and group rows only toggle or fold. While
// the lints run on a newly opened trace (trace_analysis.hpp) the dock says
// so; a trace whose lints found nothing says that.
#pragma once

#include <QDockWidget>
#include <QStringList>
#include <memory>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/models/anomaly_model.hpp"

class QLabel;
class QTreeView;

namespace skein {

class AnomalyDock : public QDockWidget {
  Q_OBJECT

 public:
  explicit AnomalyDock(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> timeline);
  // The lints are running (true) or done (false) on the trace shown.
  void set_linting(bool running);
  void set_error(const QString& message);
  // States the finding data.anomalies[index] and what to do about it.
  void explain(int index);
  // That statement, as rich text: "#N (severity) sentence Suspect: X.",
  // then "What to do: ..."; "" for an index out of range.
  [[nodiscard]] QString explanation_html(int index) const;
  // What the status bar says of the findings ("" with no trace).
  [[nodiscard]] QString tally() const { return tally_; }

  [[nodiscard]] AnomalyModel* model() const { return model_; }
  [[nodiscard]] QTreeView* view() const { return view_; }
  [[nodiscard]] QLabel* status_label() const { return status_; }
  [[nodiscard]] QLabel* advice_label() const { return advice_; }

 signals:
  void anomaly_activated(int index);
  void hidden_rules_changed(const QStringList& rules);
  // The tally changed: the lints started, finished or failed, or another trace.
  void tally_changed(const QString& tally);

 private:
  void on_clicked(const QModelIndex& index);
  void model_reset();

  std::shared_ptr<const TimelineData> data_;
  AnomalyModel* model_ = nullptr;
  QTreeView* view_ = nullptr;
  QLabel* status_ = nullptr;
  QLabel* advice_ = nullptr;
  bool linting_ = false;
  QString error_;
  QString tally_;
};

}  // namespace skein
