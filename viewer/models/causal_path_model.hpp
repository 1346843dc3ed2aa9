// causal_path_model.hpp — the Why? panel's step list: the steps of a
// causal chain (viewer/analysis/why_answer.hpp backwards, causal_path.hpp's
// caused() forwards) as a flat table, one row per step, for a QTableView.
// Backwards ("why?") the rows go from the nearest cause to the root;
// forwards ("what did it cause?") in the order reached.
//
// Columns: step number, the cause (thread id and label, "scheduler" for
// -1), how it acted (resolve, read, wait, notify, spawn), the effect, when
// the cause acted (µs since the trace's origin, the records' own time
// base, to the ns) and how long the step took (effect time - cause time):
// the latency each step added. The model holds the steps and a pointer to
// the timeline data for names; it never touches the database. Roles give
// the ids and times the dock and the timeline need (CauseRole, EffectRole,
// TimeRole: the effect's, CauseTimeRole, LatencyRole).
//
// Invariant: rowCount() == steps().size(); set_path() resets the model.
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "viewer/analysis/causal_path.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/analysis/why_answer.hpp"

namespace skein {

enum class CausalDirection : std::uint8_t { why, caused };

class CausalPathModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { kStep, kCause, kHow, kEffect, kAt, kTook, kColumnCount };
  enum Role { CauseRole = Qt::UserRole + 1, EffectRole, TimeRole, LatencyRole, CauseTimeRole };

  explicit CausalPathModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  void set_data(std::shared_ptr<const TimelineData> data);
  void set_path(std::vector<WhyStep> steps, CausalDirection direction);
  void clear() { set_path({}, direction_); }
  [[nodiscard]] const std::vector<WhyStep>& steps() const { return steps_; }
  [[nodiscard]] CausalDirection direction() const { return direction_; }
  // From the root's record to the question's: the sum of the steps'
  // latencies (backwards), or the last reached minus the first (forwards).
  [[nodiscard]] TimeNs total_latency() const;
  // "#12 label" or "scheduler".
  [[nodiscard]] QString thread_name(ThreadId id) const;

  int rowCount(const QModelIndex& parent = QModelIndex()) const override;
  int columnCount(const QModelIndex& parent = QModelIndex()) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

 private:
  std::shared_ptr<const TimelineData> data_;
  std::vector<WhyStep> steps_;
  CausalDirection direction_ = CausalDirection::why;
};

// A forwards step of causal_path.hpp as a WhyStep.
[[nodiscard]] WhyStep why_step_of(const CausalStep& s);

}  // namespace skein
