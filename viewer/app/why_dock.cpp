// why_dock.cpp — the Why? panel's widgets (the subject, the finding it
// came from when it did, the buttons, the status and the steps, top to
// bottom); its questions run on the trace's analysis worker
// (trace_analysis.hpp).
#include "viewer/app/why_dock.hpp"

#include "viewer/app/trace_analysis.hpp"

#include <QCoreApplication>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "viewer/analysis/causal_path.hpp"
#include "viewer/analysis/units.hpp"

namespace skein {

WhyDock::WhyDock(TraceAnalysis* analysis, QWidget* parent) : QWidget(parent), analysis_(analysis) {
  model_ = new CausalPathModel(this);
  subject_label_ = new QLabel(QStringLiteral("Select a thread on the timeline."), this);
  subject_label_->setWordWrap(true);
  subject_label_->setTextFormat(Qt::RichText);
  finding_label_ = new QLabel(this);
  finding_label_->setObjectName(QStringLiteral("why-finding"));
  finding_label_->setWordWrap(true);
  finding_label_->setTextFormat(Qt::RichText);
  finding_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  finding_label_->setFrameShape(QFrame::StyledPanel);
  finding_label_->setMargin(4);
  finding_label_->hide();
  why_ = new QPushButton(QStringLiteral("Why?"), this);
  why_->setToolTip(QStringLiteral("Walk the recorded causes back to the root: resolve, read, notify, spawn"));
  caused_ = new QPushButton(QStringLiteral("What did it cause?"), this);
  other_ = new QPushButton(this);
  other_->setObjectName(QStringLiteral("why-other-question"));
  other_->hide();
  status_ = new QLabel(this);
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::RichText);
  table_ = new QTableView(this);
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(why_);
  buttons->addWidget(caused_);
  buttons->addWidget(other_);
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(subject_label_);
  layout->addWidget(finding_label_);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(table_, 1);
  connect(why_, &QPushButton::clicked, this, [this] { ask(CausalDirection::why); });
  connect(caused_, &QPushButton::clicked, this, [this] { ask(CausalDirection::caused); });
  connect(other_, &QPushButton::clicked, this, [this] { ask_other_question(); });
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const ThreadId thread = model_->data(index, CausalPathModel::EffectRole).toLongLong();
    const TimeNs from = model_->data(index, CausalPathModel::CauseTimeRole).toLongLong();
    const TimeNs to = model_->data(index, CausalPathModel::TimeRole).toLongLong();
    emit step_activated(thread, std::min(from, to), std::max(from, to));
  });
  set_subject(std::nullopt, 0);
}

void WhyDock::set_data(std::shared_ptr<const TimelineData> loaded) {
  data_ = std::move(loaded);
  pending_ = 0;  // an answer in flight is for the old trace
  answer_.reset();
  asked_.reset();
  error_.clear();
  model_->set_data(data_);
  set_subject(std::nullopt, 0);
  status_->clear();
}

void WhyDock::set_finding(const QString& html) {
  finding_label_->setText(html);
  finding_label_->setVisible(!html.isEmpty());
}

void WhyDock::set_subject_waiting(ThreadId thread, TimeNs shown_at) {
  set_finding(QString());
  ask_ = WhyAsk::ended_wait;
  at_end_ = true;
  subject_ = thread;
  subject_event_.reset();
  at_ = shown_at;
  show_subject();
}

void WhyDock::set_subject(std::optional<ThreadId> thread, TimeNs at) {
  set_finding(QString());
  ask_ = WhyAsk::automatic;
  at_end_ = false;
  subject_ = thread;
  subject_event_.reset();
  at_ = at;
  show_subject();
}

void WhyDock::set_subject_record(ThreadId thread, std::int64_t event, TimeNs at) {
  set_finding(QString());
  ask_ = WhyAsk::automatic;
  at_end_ = false;
  subject_ = thread;
  subject_event_ = event;
  at_ = at;
  show_subject();
}

void WhyDock::show_subject() {
  why_->setEnabled(subject_.has_value());
  caused_->setEnabled(subject_.has_value());
  other_->hide();
  if (!subject_) {
    subject_label_->setText(QStringLiteral("Select a thread on the timeline, then ask why it acted."));
    model_->clear();
    answer_.reset();
    status_->clear();
    emit path_changed();
    return;
  }
  subject_label_->setText(QStringLiteral("<b>%1</b> at %2%3")
                              .arg(model_->thread_name(*subject_).toHtmlEscaped(),
                                   QString::fromStdString(format_time_us(at_)),
                                   subject_event_ ? QStringLiteral(" (record %1)").arg(*subject_event_) : QString()));
  if (asked_) {
    ask(*asked_);  // in step with the selection
  } else {
    model_->clear();
    answer_.reset();
    status_->clear();
    emit path_changed();
  }
}

void WhyDock::ask(CausalDirection direction) {
  if (!subject_ || !data_) return;
  asked_ = direction;
  const quint64 question = ++next_question_;
  pending_ = question;
  status_->setText(QStringLiteral("Finding the causes…"));
  WhyQuestion q;
  if (subject_event_) q.event = *subject_event_;
  q.thread = *subject_;
  q.at = at_end_ ? INT64_MAX : at_;
  q.ask = ask_;
  other_->hide();
  QPointer<WhyDock> self(this);
  if (direction == CausalDirection::why) {
    analysis_->ask_why([q](WhyEngine& engine) { return engine.answer(q); },
                       [self, question](Result<WhyAnswer> got) {
                         if (!self) return;
                         if (got) self->answered(question, std::move(got).value(), {}, QString());
                         else self->answered(question, std::nullopt, {}, QString::fromStdString(got.error().to_string()));
                       });
  } else {
    analysis_->ask_events(
        [q](const std::vector<TraceEvent>& events) {
          std::vector<WhyStep> forwards;
          const auto start = q.event ? q.event : last_record_of(events, q.thread, q.at);
          if (start)
            for (const CausalStep& s : caused(events, *start)) forwards.push_back(why_step_of(s));
          return forwards;
        },
        [self, question](Result<std::vector<WhyStep>> got) {
          if (!self) return;
          if (got) self->answered(question, std::nullopt, std::move(got).value(), QString());
          else self->answered(question, std::nullopt, {}, QString::fromStdString(got.error().to_string()));
        });
  }
}

void WhyDock::ask_other_question() {
  if (!answer_ || subject_event_ || answer_->asked_at == INT64_MAX) return;
  ask_ = answer_->asked == WhyAsk::ended_wait ? WhyAsk::woke : WhyAsk::ended_wait;
  ask(CausalDirection::why);
}

void WhyDock::answered(quint64 question, std::optional<WhyAnswer> answer, std::vector<WhyStep> forwards,
                       const QString& error) {
  if (question != pending_) return;  // asked again, or another trace, since
  pending_ = 0;
  error_ = error;
  if (!error.isEmpty()) {
    model_->clear();
    answer_.reset();
    status_->setText(QStringLiteral("Cannot answer: %1").arg(error.toHtmlEscaped()));
    emit path_changed();
    return;
  }
  if (answer) {
    answer_ = std::move(answer);
    model_->set_path(answer_->steps, CausalDirection::why);
    // A thread at a time: offer the question not answered.
    if (!subject_event_ && answer_->asked_at != INT64_MAX) {
      other_->setText(answer_->asked == WhyAsk::ended_wait ? QStringLiteral("What woke its turn?")
                                                           : QStringLiteral("What ended its wait?"));
      other_->setToolTip(answer_->asked == WhyAsk::ended_wait
                             ? QStringLiteral("Ask what woke the turn it ran in at this time, or its last turn before")
                             : QStringLiteral("Ask what ended the wait it was in at this time, or its next wait"));
      other_->show();
    }
  } else {
    answer_.reset();
    model_->set_path(std::move(forwards), CausalDirection::caused);
  }
  status_->setText(status_text());
  table_->resizeColumnsToContents();
  emit path_changed();
}

QString WhyDock::status_text() const {
  if (pending_ != 0) return QStringLiteral("Finding the causes…");
  if (!error_.isEmpty()) return QStringLiteral("Cannot answer: %1").arg(error_.toHtmlEscaped());
  if (!subject_) return {};
  const QString total = QString::fromStdString(format_duration_ns(model_->total_latency()));
  if (model_->direction() == CausalDirection::caused) {
    if (model_->steps().empty()) return QStringLiteral("It caused nothing that the trace records.");
    return QStringLiteral("%1 forwards, over %2.")
        .arg(QString::fromStdString(counted(model_->steps().size(), "step")), total);
  }
  if (!answer_) return {};
  const WhyAnswer& a = *answer_;
  const QString steps = QString::fromStdString(counted(a.steps.size(), "step"));
  // Which question was answered, for a thread at a time.
  QString asked;
  if (!subject_event_ && a.asked_at != INT64_MAX)
    asked = QStringLiteral("<i>%1 at %2:</i> ")
                .arg(a.asked == WhyAsk::ended_wait ? QStringLiteral("What ended the wait it was in")
                                                   : QStringLiteral("What woke the turn it ran in"),
                     QString::fromStdString(format_time_us(a.asked_at)));
  return asked + answer_status(a, steps, total);
}

QString WhyDock::answer_status(const WhyAnswer& a, const QString& steps, const QString& total) const {
  switch (a.end) {
    case WhyEnd::root:
      return QStringLiteral("%1 back to the root: %2; %3 from the root's record to this one.")
          .arg(steps, QString::fromStdString(a.end_text).toHtmlEscaped(), total);
    case WhyEnd::no_recorded_cause: {
      QString text = QStringLiteral("<span style='color:#c62828'><b>No recorded cause</b></span> after %1: %2")
                         .arg(steps, QString::fromStdString(a.end_text).toHtmlEscaped());
      if (a.suspect != kNoThread)
        text += QStringLiteral(". Suspect: <b>%1</b>").arg(model_->thread_name(a.suspect).toHtmlEscaped());
      return text + QStringLiteral(".");
    }
    case WhyEnd::lost_wake_up: {
      QString text = QStringLiteral("<span style='color:#c62828'><b>Lost wake-up</b></span>: %1")
                         .arg(QString::fromStdString(a.end_text).toHtmlEscaped());
      if (a.suspect != kNoThread)
        text += QStringLiteral("; by <b>%1</b>").arg(model_->thread_name(a.suspect).toHtmlEscaped());
      return text + QStringLiteral(".");
    }
    case WhyEnd::nothing_to_ask:
      return QStringLiteral("Nothing to explain: %1.").arg(QString::fromStdString(a.end_text).toHtmlEscaped());
    case WhyEnd::step_limit:
      return QStringLiteral("Stopped: %1.").arg(QString::fromStdString(a.end_text).toHtmlEscaped());
  }
  return {};
}

}  // namespace skein
