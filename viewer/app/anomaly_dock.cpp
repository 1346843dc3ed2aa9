// anomaly_dock.cpp — a status line, the tree over AnomalyModel, and an
// advice label, stacked vertically. Every model reset (and every change of
// the lints' state) recounts the findings and rewrites the status line
// (error first, then "running", "nothing found", or a count), the tab's
// title and the tally; the tree shows only when there are findings, its
// group rows spanned, and is expanded only up to kExpandAllFindings. A
// click or Enter on a row that carries an anomaly index explains it, then
// emits anomaly_activated; rule and group rows carry none. Finding text is
// HTML-escaped into the rich label.
#include "viewer/app/anomaly_dock.hpp"

#include <QHeaderView>
#include <QLabel>
#include <QTreeView>
#include <QVBoxLayout>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/models/qt_text.hpp"
#include "viewer/render/timeline_style.hpp"
#include "viewer/timeline/thread_details.hpp"
#include "viewer/timeline/timeline_findings.hpp"

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
  error_.clear();
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
  const QString text = explanation_html(index);
  advice_->setText(text);
  advice_->setVisible(!text.isEmpty());
}

QString AnomalyDock::explanation_html(int index) const {
  if (!data_ || index < 0 || static_cast<std::size_t>(index) >= data_->anomalies.size()) return {};
  const TimelineAnomaly& a = data_->anomalies[static_cast<std::size_t>(index)];
  const auto name = [&](std::int32_t t) { return t >= 0 ? thread_display_name(*data_, t) : std::string(); };
  const std::string advice = lint_advice(a.rule(), a.severity(), name(a.thread), name(a.from), name(a.suspect));
  QString text = QStringLiteral("<b>#%1</b> ").arg(a.number);
  if (!a.severity().empty())
    text += QStringLiteral("<b style='color:%1'>%2</b> ")
                .arg(style::finding_colour(a.severity()).name(), qt_text(a.severity()).toHtmlEscaped());
  // The finding's sentence, ended, so "Suspect:" and "What to do:" read as sentences of their own.
  QString sentence = QString::fromStdString(a.message());
  if (!sentence.isEmpty() && !sentence.endsWith(QLatin1Char('.'))) sentence += QLatin1Char('.');
  text += QStringLiteral("(%1): %2")
              .arg(qt_text(a.rule()).toHtmlEscaped(), sentence.toHtmlEscaped());
  if (a.suspect >= 0)
    text += QStringLiteral(" Suspect: <b>%1</b>.").arg(QString::fromStdString(name(a.suspect)).toHtmlEscaped());
  // A note needs no fix (lint_advice): it says what is, and nothing more.
  if (!advice.empty())
    text += QStringLiteral("<br><i>What to do:</i> %1.").arg(QString::fromStdString(advice).toHtmlEscaped());
  return text;
}

void AnomalyDock::model_reset() {
  const auto findings = static_cast<std::uint64_t>(model_->display_order().size());
  const auto rules = static_cast<std::uint64_t>(model_->rowCount());
  QString tally;
  if (!error_.isEmpty()) {
    status_->setText(tr("The lints could not run: %1").arg(error_));
    setWindowTitle(tr("Anomalies"));
    tally = tr("The lints could not run");
  } else if (linting_ && findings == 0) {
    status_->setText(tr("Running the lints on this trace… Their findings appear here and on the timeline as soon as "
                        "they are done."));
    setWindowTitle(tr("Anomalies"));
    tally = tr("Running the lints…");
  } else {
    if (findings == 0)
      status_->setText(tr("The lints found nothing in this trace: every change of control has a recorded cause, "
                          "and nothing failed unread or was left pending."));
    else
      status_->setText(tr("%1 under %2, numbered as skein lint numbers them. Click one to show it on the timeline; "
                          "uncheck a rule to hide it.")
                           .arg(QString::fromStdString(counted(findings, "finding")),
                                QString::fromStdString(counted(rules, "rule"))));
    if (data_) {
      setWindowTitle(tr("Anomalies (%1)").arg(findings));
      tally = QString::fromStdString(finding_tally(data_->anomalies));
    } else {
      setWindowTitle(tr("Anomalies"));
    }
  }
  view_->setVisible(findings > 0);
  // A group's heading spans its row, as the report's sub-heading does.
  for (int r = 0; r < model_->rowCount(); ++r) {
    const QModelIndex rule = model_->index(r, 0);
    for (int c = 0; c < model_->rowCount(rule); ++c)
      if (model_->is_group(model_->index(c, 0, rule))) view_->setFirstColumnSpanned(c, rule, true);
  }
  // Expanding is per row: a few thousand findings open, a lint of a
  // million-record trace (180,000 findings) shows its rules closed.
  if (findings <= kExpandAllFindings) view_->expandAll();
  if (tally != tally_) {
    tally_ = tally;
    emit tally_changed(tally_);
  }
}

void AnomalyDock::on_clicked(const QModelIndex& index) {
  const QVariant i = index.data(AnomalyModel::AnomalyIndexRole);
  if (!i.isValid()) return;
  explain(i.toInt());
  emit anomaly_activated(i.toInt());
}

}  // namespace skein
