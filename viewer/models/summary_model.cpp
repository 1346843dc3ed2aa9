// summary_model.cpp — all the work is in recompute(): summarize_timeline()
// for the rows and their members, threads_hidden_by_duration() for the
// hidden mask. Every change wraps recompute() in one model reset; the
// grouping and filter setters skip it when nothing changes (a negative
// bound counts as 0). Display text is formatted per call from the row's
// numbers (durations rounded to the ns, counts with thousands separators);
// SortRole returns the raw number; thread ids are mapped from member
// indexes only when asked.
#include "viewer/models/summary_model.hpp"

#include <cmath>

#include "viewer/analysis/units.hpp"

namespace skein {

SummaryModel::SummaryModel(QObject* parent) : QAbstractTableModel(parent) {}

void SummaryModel::set_data(std::shared_ptr<const TimelineData> data) {
  beginResetModel();
  data_ = std::move(data);
  recompute();
  endResetModel();
}

void SummaryModel::set_grouping(SummaryGrouping grouping) {
  if (grouping == grouping_) return;
  beginResetModel();
  grouping_ = grouping;
  recompute();
  endResetModel();
}

void SummaryModel::set_duration_filter(TimeNs bound) {
  bound = std::max<TimeNs>(0, bound);
  if (bound == bound_) return;
  beginResetModel();
  bound_ = bound;
  recompute();
  endResetModel();
}

void SummaryModel::recompute() {
  summary_ = {};
  hidden_.clear();
  if (!data_) return;
  summary_ = summarize_timeline(*data_, grouping_, bound_);
  hidden_ = threads_hidden_by_duration(*data_, bound_);
}

std::vector<ThreadId> SummaryModel::hidden_thread_ids() const {
  std::vector<ThreadId> out;
  for (std::size_t i = 0; i < hidden_.size(); ++i)
    if (hidden_[i]) out.push_back(data_->threads[i].id);
  return out;  // threads are by id
}

std::vector<ThreadId> SummaryModel::thread_ids(int row) const {
  std::vector<ThreadId> out;
  if (!data_ || row < 0 || static_cast<std::size_t>(row) >= summary_.members.size()) return out;
  const auto& members = summary_.members[static_cast<std::size_t>(row)];
  out.reserve(members.size());
  for (std::uint32_t i : members) out.push_back(data_->threads[i].id);
  return out;
}

int SummaryModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(summary_.summary.rows.size());
}

int SummaryModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

double SummaryModel::number(const SummaryRow& r, int column) const {
  switch (column) {
    case PercentColumn: return r.percent_time;
    case RunTimeColumn: return static_cast<double>(r.run_time);
    case ThreadsColumn: return static_cast<double>(r.threads);
    case FailuresColumn: return static_cast<double>(r.failures);
    case LifeMinColumn: return r.lifetime.min;
    case LifeAvgColumn: return r.lifetime.avg;
    case LifeMaxColumn: return r.lifetime.max;
    case LifeStddevColumn: return r.lifetime.stddev;
    case RunMinColumn: return r.run.min;
    case RunAvgColumn: return r.run.avg;
    case RunMaxColumn: return r.run.max;
    case RunStddevColumn: return r.run.stddev;
    default: return 0;
  }
}

QVariant SummaryModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.parent().isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
    return {};
  const SummaryRow& r = summary_.summary.rows[static_cast<std::size_t>(index.row())];
  const int c = index.column();
  switch (role) {
    case Qt::DisplayRole:
      if (c == NameColumn) return QString::fromStdString(r.name);
      if (c == PercentColumn) return QString::number(r.percent_time, 'f', 2);
      if (c == ThreadsColumn || c == FailuresColumn)
        return QString::fromStdString(group_thousands(static_cast<std::int64_t>(number(r, c))));
      return QString::fromStdString(format_duration_ns(std::llround(number(r, c))));
    case Qt::ToolTipRole:
      // The whole name: the Summary elides long ones (SummaryDock).
      if (c == NameColumn) return QString::fromStdString(r.name);
      return {};
    case Qt::TextAlignmentRole:
      return c == NameColumn ? QVariant(int(Qt::AlignLeft | Qt::AlignVCenter))
                             : QVariant(int(Qt::AlignRight | Qt::AlignVCenter));
    case SortRole:
      if (c == NameColumn) return QString::fromStdString(r.name);
      return number(r, c);
    case ThreadIdsRole: return QVariant::fromValue(thread_ids(index.row()));
    case ThreadCountRole: return QVariant::fromValue<qulonglong>(r.threads);
    default: return {};
  }
}

QVariant SummaryModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case NameColumn:
        return grouping_ == SummaryGrouping::label  ? tr("Label")
               : grouping_ == SummaryGrouping::kind ? tr("Kind")
                                                    : tr("Site");
      case PercentColumn: return tr("% time");
      case RunTimeColumn: return tr("Run time");
      case ThreadsColumn: return tr("Threads");
      case FailuresColumn: return tr("Failures");
      case LifeMinColumn: return tr("Life min");
      case LifeAvgColumn: return tr("Life avg");
      case LifeMaxColumn: return tr("Life max");
      case LifeStddevColumn: return tr("Life stddev");
      case RunMinColumn: return tr("Run min");
      case RunAvgColumn: return tr("Run avg");
      case RunMaxColumn: return tr("Run max");
      case RunStddevColumn: return tr("Run stddev");
      default: return {};
    }
  }
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case PercentColumn: return tr("The group's run time over all threads' run time");
      case RunTimeColumn: return tr("The sum of the group's activations");
      case FailuresColumn: return tr("Threads that failed (a cancel is not a failure)");
      case LifeMinColumn:
      case LifeAvgColumn:
      case LifeMaxColumn:
      case LifeStddevColumn:
        return tr("Lifetime: created to resolved, or to the trace's end when pending (population stddev)");
      case RunMinColumn:
      case RunAvgColumn:
      case RunMaxColumn:
      case RunStddevColumn: return tr("Run time per thread: the sum of its activations (population stddev)");
      default: return {};
    }
  }
  return {};
}

}  // namespace skein
