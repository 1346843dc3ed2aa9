// summary_dock.cpp — the grouping and the duration bound live in
// SummaryModel; the dock parses and forwards. The filter text is applied
// on Return and again when editing finishes ("" or "0": no bound), and
// duration_filter_changed is emitted only when the bound really changes.
// Selected rows are mapped through the proxy, their groups' ids merged,
// sorted and deduped. Each model reset refreshes the status, caps the name
// column at kMaxNameWidth, and emits an empty highlight if one was shown.
#include "viewer/app/summary_dock.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>
#include <algorithm>

#include "viewer/analysis/units.hpp"

namespace skein {

SummaryDock::SummaryDock(QWidget* parent)
    : QDockWidget(tr("Summary"), parent), model_(new SummaryModel(this)), proxy_(new QSortFilterProxyModel(this)) {
  setObjectName(QStringLiteral("summary-dock"));
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(SummaryModel::SortRole);

  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Group by"), body));
  grouping_ = new QComboBox(body);
  grouping_->addItem(tr("Label"), static_cast<int>(SummaryGrouping::label));
  grouping_->addItem(tr("Kind"), static_cast<int>(SummaryGrouping::kind));
  grouping_->addItem(tr("Site"), static_cast<int>(SummaryGrouping::site));
  controls->addWidget(grouping_);
  controls->addSpacing(12);
  controls->addWidget(new QLabel(tr("Hide threads shorter than"), body));
  duration_ = new QLineEdit(body);
  duration_->setPlaceholderText(tr("e.g. 10ms"));
  duration_->setClearButtonEnabled(true);
  duration_->setToolTip(tr("A duration with a unit: ns, us (µs), ms or s. Empty: show every thread."));
  controls->addWidget(duration_, 1);
  layout->addLayout(controls);

  view_ = new QTableView(body);
  view_->setModel(proxy_);
  view_->setSortingEnabled(true);
  view_->sortByColumn(SummaryModel::RunTimeColumn, Qt::DescendingOrder);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->verticalHeader()->hide();
  // Numbers fit their contents; the name column is sized by its contents
  // up to kMaxNameWidth (a merge chain's label runs to hundreds of
  // characters), elided in the middle, whole in its tooltip.
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setSectionResizeMode(SummaryModel::NameColumn, QHeaderView::Interactive);
  view_->setTextElideMode(Qt::ElideMiddle);
  layout->addWidget(view_, 1);
  status_ = new QLabel(body);
  status_->setWordWrap(true);
  layout->addWidget(status_);
  setWidget(body);

  connect(grouping_, &QComboBox::currentIndexChanged, this,
          [this] { model_->set_grouping(static_cast<SummaryGrouping>(grouping_->currentData().toInt())); });
  connect(duration_, &QLineEdit::returnPressed, this, [this] { (void)set_duration_filter_text(duration_->text()); });
  connect(duration_, &QLineEdit::editingFinished, this, [this] { (void)set_duration_filter_text(duration_->text()); });
  connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SummaryDock::selection_changed);
  connect(model_, &QAbstractItemModel::modelReset, this, &SummaryDock::model_reset);
  model_reset();
}

void SummaryDock::set_data(std::shared_ptr<const TimelineData> timeline) { model_->set_data(std::move(timeline)); }

bool SummaryDock::set_duration_filter_text(const QString& text) {
  const QString trimmed = text.trimmed();
  TimeNs bound = 0;
  if (!trimmed.isEmpty() && trimmed != QLatin1String("0")) {
    const auto parsed = parse_duration_ns(trimmed.toStdString());
    if (!parsed) {
      filter_error_ = tr("'%1' is not a duration: write a number and a unit, e.g. 10ms, 1.5s, 300us").arg(trimmed);
      update_status();
      return false;
    }
    bound = *parsed;
  }
  filter_error_.clear();
  if (bound == model_->duration_filter()) {
    update_status();
    return true;
  }
  model_->set_duration_filter(bound);
  emit duration_filter_changed(bound);
  return true;
}

void SummaryDock::model_reset() {
  update_status();
  view_->resizeColumnToContents(SummaryModel::NameColumn);
  if (view_->columnWidth(SummaryModel::NameColumn) > kMaxNameWidth)
    view_->setColumnWidth(SummaryModel::NameColumn, kMaxNameWidth);
  // A reset clears the selection silently: say so.
  if (highlighted_) {
    highlighted_ = false;
    emit threads_highlighted({});
  }
}

void SummaryDock::update_status() {
  QString text;
  if (!filter_error_.isEmpty()) {
    text = filter_error_;
  } else if (model_->rowCount() > 0) {
    const SummaryRow& total = model_->total();
    text = tr("%1, %2 run time in all")
               .arg(QString::fromStdString(counted(total.threads, "thread")),
                    QString::fromStdString(format_duration_ns(total.run_time)));
    if (model_->hidden_count() > 0)
      text += tr("; %1 shorter than %2 hidden")
                  .arg(QString::fromStdString(group_thousands(static_cast<std::int64_t>(model_->hidden_count()))),
                       QString::fromStdString(format_duration_ns(model_->duration_filter())));
  }
  status_->setText(text);
  status_->setStyleSheet(filter_error_.isEmpty() ? QString() : QStringLiteral("color: #c0392b"));
}

void SummaryDock::selection_changed() {
  std::vector<ThreadId> ids;
  for (const QModelIndex& row : view_->selectionModel()->selectedRows()) {
    const auto group = model_->thread_ids(proxy_->mapToSource(row).row());
    ids.insert(ids.end(), group.begin(), group.end());
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  highlighted_ = !ids.empty();
  emit threads_highlighted(ids);
}

}  // namespace skein
