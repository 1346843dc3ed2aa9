// why_dock.cpp — see why_dock.hpp.
#include "viewer/app/why_dock.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QCoreApplication>
#include <QPointer>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#include "recorder/trace_store.hpp"
#include "viewer/core/trace_event_reader.hpp"
#include "viewer/core/units.hpp"

namespace skein {

WhyDock::WhyDock(QWidget* parent) : QWidget(parent) {
  model_ = new CausalPathModel(this);
  subject_label_ = new QLabel(QStringLiteral("Select a thread on the timeline."), this);
  subject_label_->setWordWrap(true);
  why_ = new QPushButton(QStringLiteral("Why?"), this);
  why_->setToolTip(QStringLiteral("Walk the causes back to the root: notify, spawn, read, wait"));
  caused_ = new QPushButton(QStringLiteral("What did it cause?"), this);
  status_ = new QLabel(this);
  status_->setWordWrap(true);
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
  buttons->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(subject_label_);
  layout->addLayout(buttons);
  layout->addWidget(status_);
  layout->addWidget(table_, 1);
  connect(why_, &QPushButton::clicked, this, [this] { ask(CausalDirection::why); });
  connect(caused_, &QPushButton::clicked, this, [this] { ask(CausalDirection::caused); });
  connect(table_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const ThreadId thread = model_->data(index, CausalPathModel::EffectRole).toLongLong();
    const TimeNs time = model_->data(index, CausalPathModel::TimeRole).toLongLong();
    emit step_activated(thread, time);
  });
  set_subject(std::nullopt, 0);
}

WhyDock::~WhyDock() {
  if (loader_.joinable()) loader_.join();
}

void WhyDock::set_data(std::shared_ptr<const TimelineData> loaded) {
  ++generation_;  // drops a load in flight
  data_ = std::move(loaded);
  events_.reset();
  loading_ = false;
  pending_.reset();
  error_.clear();
  model_->set_data(data_);
  set_subject(std::nullopt, 0);
  status_->clear();
}

void WhyDock::set_events(std::shared_ptr<const TraceEventList> events) {
  ++generation_;
  events_ = std::move(events);
  loading_ = false;
}

void WhyDock::set_subject(std::optional<ThreadId> thread, TimeNs at) {
  subject_ = thread;
  at_ = at;
  why_->setEnabled(thread.has_value());
  caused_->setEnabled(thread.has_value());
  if (!thread) {
    subject_label_->setText(QStringLiteral("Select a thread on the timeline, then ask why it acted."));
    return;
  }
  const TimeNs origin = data_ ? data_->first_time : 0;
  subject_label_->setText(QStringLiteral("<b>%1</b> at %2")
                              .arg(model_->thread_name(*thread).toHtmlEscaped(),
                                   QString::fromStdString(format_duration_ns(at - origin))));
}

void WhyDock::ask(CausalDirection direction) {
  if (!subject_ || !data_) return;
  pending_ = direction;
  if (!events_) {
    if (!loading_) start_loading();
    status_->setText(QStringLiteral("Reading the trace's records…"));
    return;
  }
  answer();
}

void WhyDock::answer() {
  if (!pending_ || !events_ || !subject_) return;
  const CausalDirection direction = *pending_;
  pending_.reset();
  const auto& events = events_->events();
  const auto start = last_record_of(events, *subject_, at_);
  std::vector<CausalStep> steps;
  if (start) steps = direction == CausalDirection::why ? why(events, *start) : caused(events, *start);
  model_->set_path(std::move(steps), direction);
  status_->setText(status_text());
  table_->resizeColumnsToContents();
  emit path_changed();
}

QString WhyDock::status_text() const {
  if (loading_) return QStringLiteral("Reading the trace's records…");
  if (!error_.isEmpty()) return error_;
  if (!subject_) return {};
  const auto& steps = model_->steps();
  if (steps.empty())
    return model_->direction() == CausalDirection::why
               ? QStringLiteral("No recorded cause: nothing in the trace made this thread act. "
                                "If it was woken, the notification is missing.")
               : QStringLiteral("It caused nothing that the trace records.");
  const QString total = QString::fromStdString(format_duration_ns(model_->total_latency()));
  if (model_->direction() == CausalDirection::why)
    return QStringLiteral("%1 steps back to %2; %3 from the root's record to this one.")
        .arg(steps.size())
        .arg(model_->thread_name(steps.back().cause))
        .arg(total);
  return QStringLiteral("%1 steps forwards, over %2.").arg(steps.size()).arg(total);
}

void WhyDock::start_loading() {
  if (!data_) return;
  if (loader_.joinable()) loader_.join();
  loading_ = true;
  error_.clear();
  const quint64 generation = generation_;
  const std::string path = data_->source;
  QPointer<WhyDock> self(this);
  loader_ = std::thread([self, generation, path] {
    std::shared_ptr<const TraceEventList> events;
    QString error;
    auto store = TraceStore::open(path);
    if (!store.ok()) {
      error = QString::fromStdString(store.error().to_string());
    } else {
      auto loaded = load_trace_events(store.value().database());
      if (loaded.ok()) events = std::make_shared<const TraceEventList>(std::move(loaded).value());
      else error = QString::fromStdString(loaded.error().to_string());
    }
    // Queued to the UI thread; a dock destroyed meanwhile gets nothing.
    QMetaObject::invokeMethod(
        QCoreApplication::instance(), [self, generation, events, error] {
          if (self) self->events_loaded(generation, events, error);
        },
        Qt::QueuedConnection);
  });
}

void WhyDock::events_loaded(quint64 generation, std::shared_ptr<const TraceEventList> events, const QString& error) {
  if (generation != generation_) return;  // another trace since
  loading_ = false;
  if (!events) {
    error_ = QStringLiteral("Cannot read the trace's records: %1").arg(error);
    status_->setText(error_);
    pending_.reset();
    return;
  }
  events_ = std::move(events);
  answer();
}

}  // namespace skein
