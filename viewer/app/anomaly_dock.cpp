// anomaly_dock.cpp — a status line, the tree over AnomalyModel, and an
// advice label, stacked vertically. Every model reset recounts the
// findings and rewrites the status line (error first, then "running",
// "nothing found", or a count); the tree shows only when there are findings
// and is expanded only up to kExpandAllFindings. A click or Enter on a row
// that carries an anomaly index explains it, then emits anomaly_activated;
// rule rows carry none. Finding text is HTML-escaped into the rich label.
#include "viewer/app/anomaly_dock.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/timeline/thread_details.hpp"

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
  advice_ = new QLabel(body);
  advice_->setWordWrap(true);
  advice_->setTextFormat(Qt::RichText);
  advice_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  advice_->hide();
  layout->addWidget(advice_);
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

void AnomalyDock::set_data(std::shared_ptr<const TimelineData> timeline) {
  data_ = timeline;
  advice_->hide();
  model_->set_data(std::move(timeline));
}

void AnomalyDock::set_linting(bool running) {
  linting_ = running;
  if (running) error_.clear();
  model_reset();
}

void AnomalyDock::set_error(const QString& message) {
  error_ = message;
  model_reset();
}

void AnomalyDock::explain(int index) {
  if (!data_ || index < 0 || static_cast<std::size_t>(index) >= data_->anomalies.size()) {
    advice_->hide();
    return;
  }
  const TimelineAnomaly& a = data_->anomalies[static_cast<std::size_t>(index)];
  const auto name = [&](std::int32_t t) { return t >= 0 ? thread_display_name(*data_, t) : std::string(); };
  const std::string advice = lint_advice(a.rule, name(a.thread), name(a.from), name(a.suspect));
  QString text = QStringLiteral("<b>#%1</b> %2").arg(a.number).arg(QString::fromStdString(a.message).toHtmlEscaped());
  if (a.suspect >= 0)
    text += QStringLiteral(" Suspect: <b>%1</b>.").arg(QString::fromStdString(name(a.suspect)).toHtmlEscaped());
  text += QStringLiteral("<br><i>What to do:</i> %1.").arg(QString::fromStdString(advice).toHtmlEscaped());
  advice_->setText(text);
  advice_->show();
}

void AnomalyDock::model_reset() {
  int findings = 0;
  for (int r = 0; r < model_->rowCount(); ++r) findings += model_->rowCount(model_->index(r, 0));
  if (!error_.isEmpty())
    status_->setText(tr("The lints could not run: %1").arg(error_));
  else if (linting_ && findings == 0)
    status_->setText(tr("Running the lints on this trace… Their findings appear here and on the timeline as soon as "
                        "they are done."));
  else if (findings == 0)
    status_->setText(tr("The lints found nothing in this trace: every change of control has a recorded cause, and "
                        "nothing failed unread or was left pending."));
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
  if (!i.isValid()) return;
  explain(i.toInt());
  emit anomaly_activated(i.toInt());
}

}  // namespace skein
