// anomaly_model.hpp — the Anomalies dock's tree: the lints' findings
// (TimelineData::anomalies, read from the `anomalies` table) grouped by
// rule, most severe rule first, each rule's findings in time order. Rule
// rows are checkable: unchecking one hides that rule (its markers on the
// timeline; its rows stay, greyed, so it can be checked again). Qt
// Core/Gui only.
//
// Columns: what (a rule's name; a finding's number, `skein lint`'s #N, and
// its time in µs since the trace's origin), thread (a rule's severity, the
// thread that acted), and message (a rule's finding count, the finding's
// sentence).
// Roles on finding rows: AnomalyIndexRole (int, index into
// data.anomalies), TimeRole (qlonglong, the store's clock, as the timeline
// uses it), ThreadIdRole, FromIdRole, SuspectIdRole (qlonglong thread ids;
// no value when the finding has none); RuleRole and SeverityRole (QString)
// on rule and finding rows alike.
//
// Order of rules: by severity (error, warning, note, then anything else),
// then in the lints' own order (LintRuleId, most severe first), then by
// name for rules this build does not know.
//
// Invariants: a tree of depth 2 (a TreeModel: rules are its top rows,
// findings their child rows); data changes are model resets; hiding a
// rule changes only check state and colours (dataChanged), never the
// rows; the hidden rules are kept by name across traces, like a
// preference; hidden_rules() is sorted.
#pragma once

#include <QSet>
#include <QStringList>
#include <memory>
#include <vector>

#include "viewer/models/tree_model.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

class AnomalyModel : public TreeModel {
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
  // The rules shown, in the model's order.
  [[nodiscard]] QStringList rules() const;
  [[nodiscard]] QModelIndex rule_index(const QString& rule, int column = 0) const;

  [[nodiscard]] int columnCount(const QModelIndex& parent = {}) const override;
  [[nodiscard]] QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
  [[nodiscard]] QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  [[nodiscard]] Qt::ItemFlags flags(const QModelIndex& index) const override;

 signals:
  void hidden_rules_changed(const QStringList& rules);

 protected:
  [[nodiscard]] int top_row_count() const override;
  [[nodiscard]] int child_row_count(int rule) const override;

 private:
  struct RuleGroup {
    QString rule;
    QString severity;  // the most severe of its findings'
    std::vector<int> findings;  // indexes into data.anomalies, by time
  };

  void changed_rule(std::size_t group);
  [[nodiscard]] QVariant thread_id(std::int32_t index) const;

  std::shared_ptr<const TimelineData> data_;
  std::vector<RuleGroup> groups_;
  QSet<QString> hidden_;
};

}  // namespace skein
