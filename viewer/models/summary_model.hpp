// summary_model.hpp — the Summary dock's table: `skein summary` over the
// loaded timeline (viewer/timeline/timeline_summary.hpp: summarize()'s rows,
// field for field), one row per label, kind or site group, with a switchable
// grouping and a duration filter that leaves out threads shorter than a
// bound (like `perf trace --duration`). Qt Core/Gui only.
//
// Columns: name, % time, run time, threads, failures, then lifetime and
// run time min / avg / max / stddev. DisplayRole is text for people
// ("12.3 µs", "1,234"); SortRole is the number itself (double; the name
// column a QString) so a QSortFilterProxyModel with setSortRole(SortRole)
// sorts numerically. ThreadIdsRole (std::vector<ThreadId>, any column)
// lists the group's threads by (start, id); ThreadCountRole their number.
//
// Invariants: row k is summarize()'s row k (sorted by run time, then name)
// for the threads the filter keeps; every change (data, grouping, filter)
// is one model reset; hidden_threads() is per thread index, true when the
// filter hides that thread (lifetime < bound), and hidden_thread_ids()
// lists those ids ascending. With no data there are no rows.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_summary.hpp"

namespace skein {

class SummaryModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role {
    SortRole = Qt::UserRole + 1,  // double (QString for the name column)
    ThreadIdsRole,                // std::vector<ThreadId>: the group's threads
    ThreadCountRole,              // qulonglong
  };
  enum Column {
    NameColumn, PercentColumn, RunTimeColumn, ThreadsColumn, FailuresColumn,
    LifeMinColumn, LifeAvgColumn, LifeMaxColumn, LifeStddevColumn,
    RunMinColumn, RunAvgColumn, RunMaxColumn, RunStddevColumn, ColumnCount
  };

  explicit SummaryModel(QObject* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> data);
  void set_grouping(SummaryGrouping grouping);
  [[nodiscard]] SummaryGrouping grouping() const { return grouping_; }
  // Leaves out threads living less than `bound` ns (0: none).
  void set_duration_filter(TimeNs bound);
  [[nodiscard]] TimeNs duration_filter() const { return bound_; }

  [[nodiscard]] const std::vector<bool>& hidden_threads() const { return hidden_; }
  [[nodiscard]] std::vector<ThreadId> hidden_thread_ids() const;
  [[nodiscard]] std::vector<ThreadId> thread_ids(int row) const;
  [[nodiscard]] const Summary& summary() const { return summary_.summary; }
  [[nodiscard]] const SummaryRow& total() const { return summary_.summary.total; }
  [[nodiscard]] std::uint64_t hidden_count() const { return summary_.hidden; }

  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  void recompute();
  [[nodiscard]] double number(const SummaryRow& row, int column) const;

  std::shared_ptr<const TimelineData> data_;
  SummaryGrouping grouping_ = SummaryGrouping::label;
  TimeNs bound_ = 0;
  TimelineSummary summary_;
  std::vector<bool> hidden_;
};

}  // namespace skein
