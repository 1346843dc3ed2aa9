// summary_dock.hpp — the "Summary" dock: `skein summary` as a sortable
// table (SummaryModel behind a QSortFilterProxyModel sorting by its
// numeric SortRole), a grouping combo (label, kind, site) and a duration
// filter ("10ms", "1.5 s", "300us": viewer/analysis/units.hpp) that hides
// threads shorter than the bound. The main window connects it:
//
//   connect(dock, &SummaryDock::threads_highlighted, ...);     // highlight these threads
//   connect(dock, &SummaryDock::duration_filter_changed, ...); // hide dock->model()->hidden_threads()
//
// Selecting rows emits threads_highlighted with the union of their
// groups' thread ids (ascending); a change that clears the selection
// (grouping, filter, data) emits it empty when something was highlighted.
// An unparsable filter text keeps the previous filter and says why.
#pragma once

#include <QDockWidget>
#include <memory>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/models/summary_model.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace skein {

class SummaryDock : public QDockWidget {
  Q_OBJECT

 public:
  // The widest the name column is made; the user may drag it wider.
  static constexpr int kMaxNameWidth = 360;
  explicit SummaryDock(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> timeline);
  // Applies a filter text ("" or "0": none); false (and no change) when it
  // does not parse. What Return in the filter field does.
  bool set_duration_filter_text(const QString& text);

  [[nodiscard]] SummaryModel* model() const { return model_; }
  [[nodiscard]] QSortFilterProxyModel* proxy() const { return proxy_; }
  [[nodiscard]] QTableView* view() const { return view_; }
  [[nodiscard]] QComboBox* grouping_box() const { return grouping_; }
  [[nodiscard]] QLineEdit* duration_edit() const { return duration_; }
  [[nodiscard]] QLabel* status_label() const { return status_; }

 signals:
  void threads_highlighted(std::vector<skein::ThreadId> ids);
  void duration_filter_changed(skein::TimeNs bound);

 private:
  void selection_changed();
  void model_reset();
  void update_status();

  SummaryModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QTableView* view_ = nullptr;
  QComboBox* grouping_ = nullptr;
  QLineEdit* duration_ = nullptr;
  QLabel* status_ = nullptr;
  QString filter_error_;
  bool highlighted_ = false;
};

}  // namespace skein
