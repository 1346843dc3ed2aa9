// causal_path_model.cpp — both directions share one row type: forwards
// steps are converted to WhyStep by why_step_of(). Names are built on each
// data() call from the timeline's interned label, else its kind ("#12
// label", "#12 (kind)"; -1 is "scheduler", kNoThread "—"). total_latency()
// sums the steps backwards, where they form one chain; forwards, where
// branches overlap in time, it is the latest effect minus the first step's
// cause time.
#include "viewer/models/causal_path_model.hpp"

#include "viewer/analysis/units.hpp"
#include "viewer/models/qt_text.hpp"

namespace skein {

void CausalPathModel::set_data(std::shared_ptr<const TimelineData> data) {
  beginResetModel();
  data_ = std::move(data);
  steps_.clear();
  endResetModel();
}

WhyStep why_step_of(const CausalStep& s) {
  WhyStep w;
  switch (s.kind) {
    case CauseKind::spawn: w.kind = WhyStepKind::spawn; break;
    case CauseKind::notify: w.kind = WhyStepKind::notify; break;
    case CauseKind::read: w.kind = WhyStepKind::read; break;
    case CauseKind::wait: w.kind = WhyStepKind::wait; break;
  }
  w.cause = s.cause;
  w.effect = s.effect;
  w.cause_event = s.cause_event;
  w.effect_event = s.effect_event;
  w.cause_time = s.cause_time;
  w.effect_time = s.effect_time;
  return w;
}

void CausalPathModel::set_path(std::vector<WhyStep> steps, CausalDirection direction) {
  beginResetModel();
  steps_ = std::move(steps);
  direction_ = direction;
  endResetModel();
}

TimeNs CausalPathModel::total_latency() const {
  if (steps_.empty()) return 0;
  if (direction_ == CausalDirection::why) {
    TimeNs sum = 0;
    for (const WhyStep& s : steps_) sum += s.latency();
    return sum;
  }
  TimeNs last = steps_.front().effect_time;
  for (const WhyStep& s : steps_) last = std::max(last, s.effect_time);
  return last - steps_.front().cause_time;
}

QString CausalPathModel::thread_name(ThreadId id) const {
  if (id == -1) return QStringLiteral("scheduler");
  if (id == kNoThread) return QStringLiteral("—");
  QString name = QStringLiteral("#%1").arg(id);
  if (data_)
    if (auto i = data_->thread_index(id)) {
      const TimelineThread& t = data_->threads[*i];
      const std::string& label = data_->text(t.label);
      const std::string& kind = data_->text(t.kind);
      if (!label.empty()) name += QStringLiteral(" ") + QString::fromStdString(label);
      else if (!kind.empty()) name += QStringLiteral(" (%1)").arg(QString::fromStdString(kind));
    }
  return name;
}

int CausalPathModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(steps_.size());
}

int CausalPathModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : kColumnCount; }

QVariant CausalPathModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() >= kColumnCount)
    return {};
  const WhyStep& s = steps_[static_cast<std::size_t>(index.row())];
  const std::string_view how = why_step_kind_name(s.kind);
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case kStep: return index.row() + 1;
        case kCause: return thread_name(s.cause);
        case kHow:
          return s.detail.empty() || s.kind != WhyStepKind::notify
                     ? qt_text(how)
                     : QStringLiteral("%1 (%2)").arg(qt_text(how),
                                                     QString::fromStdString(s.detail));
        case kEffect: return thread_name(s.effect);
        case kAt: return QString::fromStdString(format_time_us(s.cause_time));
        case kTook: return QString::fromStdString(format_duration_ns(s.latency()));
        default: return {};
      }
    case Qt::TextAlignmentRole:
      if (index.column() == kStep || index.column() == kAt || index.column() == kTook)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::ToolTipRole:
      return QStringLiteral("%1 %2 %3 (record %4 → record %5)")
          .arg(thread_name(s.cause), qt_text(how), thread_name(s.effect))
          .arg(s.cause_event)
          .arg(s.effect_event);
    case CauseRole: return QVariant::fromValue<qint64>(s.cause);
    case EffectRole: return QVariant::fromValue<qint64>(s.effect);
    case TimeRole: return QVariant::fromValue<qint64>(s.effect_time);
    case CauseTimeRole: return QVariant::fromValue<qint64>(s.cause_time);
    case LatencyRole: return QVariant::fromValue<qint64>(s.latency());
    default: return {};
  }
}

QVariant CausalPathModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kStep: return QStringLiteral("#");
    case kCause: return QStringLiteral("Cause");
    case kHow: return QStringLiteral("How");
    case kEffect: return QStringLiteral("Effect");
    case kAt: return QStringLiteral("At");
    case kTook: return QStringLiteral("Took");
    default: return {};
  }
}

}  // namespace skein
