// anomaly_model.hpp — the Anomalies dock's tree: the lints' findings
// (TimelineData::anomalies, read from the `anomalies` table) in the order
// of `skein lint`'s report, grouped as it groups them: a row per rule,
// under it the rule's findings, and where the report prints a sub-heading
// (pending-at-end: the creation site) a group row holding that group's
// findings. Rule rows are checkable: unchecking one hides that rule (its
// markers on the timeline; its rows stay, greyed, so it can be checked
// again). Qt Core/Gui only.
//
// The one order: a finding's number (#N, anomalies.id) is its place in the
// report (viewer/analysis/lint_run.hpp sorts, then numbers), so the tree
// lists findings by number, and its rows read #1, #2, ... from the top,
// the numbers `skein lint` prints and `skein-view --finding N` opens.
// Findings of a table with no numbers (an older one) keep their time
// order, their rules most severe first (error, warning, note, then
// anything else), then in LintRuleId order, then by name.
//
// Columns: what (a rule's name; a group's heading; a finding's number and
// its time in µs since the trace's origin), thread (a rule's severity, the
// thread that acted), and message (a rule's finding count, the finding's
// sentence). A group's heading is meant to span the row (the dock spans
// it), like the sub-heading of the text report.
// Roles on finding rows: AnomalyIndexRole (int, index into
// data.anomalies), TimeRole (qlonglong, the store's clock, as the timeline
// uses it), ThreadIdRole, FromIdRole, SuspectIdRole (qlonglong thread ids;
// no value when the finding has none); RuleRole and SeverityRole (QString)
// on every row; GroupRole (QString) on group rows and their findings.
//
// Invariants: a tree of depth 2 or 3, every row a node of one table
// (internalId is the node's index): rules are its top rows, their children
// are findings and groups, a group's children are findings, and findings
// have no children; a group is a run of consecutive findings (in report
// order) of one rule with the same non-empty group; data changes are
// model resets; hiding a rule changes only check state and colours
// (dataChanged), never the rows; the hidden rules are kept by name across
// traces, like a preference; hidden_rules() is sorted.
#pragma once

#include <QAbstractItemModel>
#include <QSet>
#include <QStringList>
#include <cstdint>
#include <memory>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"

namespace skein {

class AnomalyModel : public QAbstractItemModel {
  Q_OBJECT

 public:
  enum Role {
    AnomalyIndexRole = Qt::UserRole + 1,  // int
    TimeRole,                             // qlonglong, store time
    ThreadIdRole,                         // qlonglong: the thread that acted
    FromIdRole,                           // qlonglong: the thread that had control
    SuspectIdRole,                        // qlonglong: the suspect
    RuleRole,                             // QString
    SeverityRole,                         // QString
    GroupRole,                            // QString: the report's sub-heading
  };
  enum Column { WhatColumn, ThreadColumn, MessageColumn, ColumnCount };

  explicit AnomalyModel(QObject* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> data);
  void set_rule_hidden(const QString& rule, bool hidden);
  void set_hidden_rules(const QStringList& rules);
  [[nodiscard]] QStringList hidden_rules() const;
  [[nodiscard]] bool rule_hidden(const QString& rule) const { return hidden_.contains(rule); }
  // Indexes into data.anomalies of the findings whose rule is not hidden, by time.
  [[nodiscard]] std::vector<int> visible_anomalies() const;
  // Indexes into data.anomalies in the order the tree lists them, top to bottom.
  [[nodiscard]] const std::vector<int>& display_order() const { return order_; }
  // The rules shown, in the model's order.
  [[nodiscard]] QStringList rules() const;
  [[nodiscard]] QModelIndex rule_index(const QString& rule, int column = 0) const;
  // Whether `index` is a group row (a sub-heading, spanning its row).
  [[nodiscard]] bool is_group(const QModelIndex& index) const;

  [[nodiscard]] QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  [[nodiscard]] QModelIndex parent(const QModelIndex& child) const override;
  using QObject::parent;
  [[nodiscard]] int rowCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;

 signals:
  void hidden_rules_changed(const QStringList& rules);

 private:
  enum class Kind : std::uint8_t { rule, group, finding };
  // One row. Rules are nodes 0..rules_.size()-1, in row order; a node's
  // children are the nodes [first_child, first_child + child_count).
  struct Node {
    Kind kind = Kind::rule;
    std::int32_t parent = -1;  // node index; -1 for a rule
    std::int32_t row = 0;      // its row under its parent
    std::int32_t first_child = 0;
    std::int32_t child_count = 0;
    std::int32_t rule = 0;   // index into rules_
    std::int32_t item = -1;  // a finding: index into data.anomalies; a group: into groups_
  };
  struct RuleRow {
    QString rule;
    QString severity;  // the most severe of its findings'
    int findings = 0;
  };
  struct GroupRow {
    QString heading;
    QString severity;  // the most severe of its findings'
  };

  void changed_rule(int rule);
  [[nodiscard]] const Node* node_of(const QModelIndex& index) const;
  [[nodiscard]] QVariant thread_id(std::int32_t index) const;

  std::shared_ptr<const TimelineData> data_;
  std::vector<Node> nodes_;
  std::vector<RuleRow> rules_;
  std::vector<GroupRow> groups_;
  std::vector<int> order_;
  QSet<QString> hidden_;
};

}  // namespace skein
