// anomaly_dock.cpp — see anomaly_dock.hpp.
#include "viewer/app/anomaly_dock.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

namespace skein {

AnomalyDock::AnomalyDock(QWidget* parent) : QDockWidget(tr("Anomalies"), parent), model_(new AnomalyModel(this)) {
  setObjectName(QStringLiteral("anomaly-dock"));
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);
  status_ = new QLabel(body);
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(status_);
  view_ = new QTreeView(body);
  view_->setModel(model_);
  view_->setUniformRowHeights(true);
  view_->setSelectionBehavior(QAbstractItemView::SelectRows);
  view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  view_->header()->setSectionResizeMode(AnomalyModel::WhatColumn, QHeaderView::ResizeToContents);
  view_->header()->setSectionResizeMode(AnomalyModel::ThreadColumn, QHeaderView::ResizeToContents);
  view_->header()->setStretchLastSection(true);
  layout->addWidget(view_, 1);
  setWidget(body);

  connect(view_, &QTreeView::clicked, this, &AnomalyDock::on_clicked);
  connect(view_, &QTreeView::activated, this, &AnomalyDock::on_clicked);
  connect(model_, &AnomalyModel::hidden_rules_changed, this, &AnomalyDock::hidden_rules_changed);
  connect(model_, &QAbstractItemModel::modelReset, this, &AnomalyDock::model_reset);
  model_reset();
}

namespace {
constexpr int kExpandAllFindings = 5000;
}  // namespace

void AnomalyDock::set_data(std::shared_ptr<const TimelineData> timeline) { model_->set_data(std::move(timeline)); }

void AnomalyDock::model_reset() {
  int findings = 0;
  for (int r = 0; r < model_->rowCount(); ++r) findings += model_->rowCount(model_->index(r, 0));
  if (findings == 0)
    status_->setText(tr("No findings in this trace's database. Run `skein lint TRACE` (it stores them) to look for "
                        "missing notifications, unread failures and the other rules, then reopen it."));
  else
    status_->setText(tr("%1 findings under %2 rules. Click one to show it on the timeline; uncheck a rule to hide it.")
                         .arg(findings)
                         .arg(model_->rowCount()));
  view_->setVisible(findings > 0);
  // Expanding is per row: a few thousand findings open, a lint of a
  // million-record trace (180,000 findings) shows its rules closed.
  if (findings <= kExpandAllFindings) view_->expandAll();
}

void AnomalyDock::on_clicked(const QModelIndex& index) {
  const QVariant i = index.data(AnomalyModel::AnomalyIndexRole);
  if (i.isValid()) emit anomaly_activated(i.toInt());
}

}  // namespace skein
