// anomaly_model.cpp — set_data() groups the findings by rule in a std::map
// (so by name), each group keeping its findings in data.anomalies order and
// the most severe severity among them, then stable-sorts the groups by
// severity rank and LintRuleId (unknown rules last), so ties stay by name.
// Rule rows are TreeModel's top rows (internalId 0); a rule's findings are
// its child rows (internalId rule row + 1). Hiding a rule emits
// dataChanged for its row and all its findings (check state, grey text).
#include "viewer/models/anomaly_model.hpp"

#include <QBrush>
#include <algorithm>
#include <map>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/timeline/thread_details.hpp"
#include "viewer/analysis/units.hpp"

namespace skein {
namespace {

int severity_rank(const std::string& severity) {
  if (severity == "error") return 0;
  if (severity == "warning") return 1;
  if (severity == "note") return 2;
  return 3;
}

int rule_rank(const std::string& rule) {
  const auto id = lint_rule_from_name(rule);
  return id ? static_cast<int>(*id) : static_cast<int>(kLintRuleCount);
}

}  // namespace

AnomalyModel::AnomalyModel(QObject* parent) : TreeModel(parent) {}

void AnomalyModel::set_data(std::shared_ptr<const TimelineData> data) {
  beginResetModel();
  data_ = std::move(data);
  groups_.clear();
  if (data_) {
    struct Building {
      std::string severity;
      std::vector<int> findings;
    };
    std::map<std::string, Building> by_rule;
    for (std::size_t i = 0; i < data_->anomalies.size(); ++i) {
      const TimelineAnomaly& a = data_->anomalies[i];
      auto [it, added] = by_rule.try_emplace(a.rule, Building{a.severity, {}});
      if (!added && severity_rank(a.severity) < severity_rank(it->second.severity)) it->second.severity = a.severity;
      it->second.findings.push_back(static_cast<int>(i));
    }
    std::vector<std::pair<std::string, Building>> ordered(by_rule.begin(), by_rule.end());
    // by_rule gave them by name; the stable sort keeps that for ties.
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      const int sa = severity_rank(a.second.severity), sb = severity_rank(b.second.severity);
      if (sa != sb) return sa < sb;
      return rule_rank(a.first) < rule_rank(b.first);
    });
    for (auto& [rule, b] : ordered)
      groups_.push_back(
          RuleGroup{QString::fromStdString(rule), QString::fromStdString(b.severity), std::move(b.findings)});
  }
  endResetModel();
}

void AnomalyModel::set_rule_hidden(const QString& rule, bool hidden) {
  if (hidden == hidden_.contains(rule)) return;
  if (hidden) hidden_.insert(rule);
  else hidden_.remove(rule);
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].rule == rule) changed_rule(g);
  emit hidden_rules_changed(hidden_rules());
}

void AnomalyModel::set_hidden_rules(const QStringList& rules) {
  const QSet<QString> wanted(rules.begin(), rules.end());
  if (wanted == hidden_) return;
  const QSet<QString> before = hidden_;
  hidden_ = wanted;
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (before.contains(groups_[g].rule) != hidden_.contains(groups_[g].rule)) changed_rule(g);
  emit hidden_rules_changed(hidden_rules());
}

void AnomalyModel::changed_rule(std::size_t g) {
  const int rule = static_cast<int>(g);
  emit dataChanged(top_index(rule, 0), top_index(rule, ColumnCount - 1));
  const int n = static_cast<int>(groups_[g].findings.size());
  if (n > 0) emit dataChanged(child_index(rule, 0, 0), child_index(rule, n - 1, ColumnCount - 1));
}

QStringList AnomalyModel::hidden_rules() const {
  QStringList out(hidden_.begin(), hidden_.end());
  out.sort();
  return out;
}

std::vector<int> AnomalyModel::visible_anomalies() const {
  std::vector<int> out;
  if (!data_) return out;
  for (std::size_t i = 0; i < data_->anomalies.size(); ++i)
    if (!hidden_.contains(QString::fromStdString(data_->anomalies[i].rule))) out.push_back(static_cast<int>(i));
  return out;
}

QStringList AnomalyModel::rules() const {
  QStringList out;
  for (const RuleGroup& g : groups_) out << g.rule;
  return out;
}

QModelIndex AnomalyModel::rule_index(const QString& rule, int column) const {
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].rule == rule) return index(static_cast<int>(g), column);
  return {};
}

int AnomalyModel::top_row_count() const { return static_cast<int>(groups_.size()); }

int AnomalyModel::child_row_count(int rule) const {
  return static_cast<int>(groups_[static_cast<std::size_t>(rule)].findings.size());
}

int AnomalyModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant AnomalyModel::thread_id(std::int32_t index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= data_->threads.size()) return {};
  return QVariant::fromValue<qlonglong>(data_->threads[static_cast<std::size_t>(index)].id);
}

QVariant AnomalyModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || !data_) return {};
  const bool is_rule = is_top_row(index);
  const auto g = static_cast<std::size_t>(top_row_of(index));
  if (g >= groups_.size()) return {};
  const RuleGroup& group = groups_[g];
  const bool hidden = hidden_.contains(group.rule);
  if (role == RuleRole) return group.rule;
  if (role == Qt::ForegroundRole) return hidden ? QVariant(QBrush(Qt::gray)) : QVariant();
  if (is_rule) {
    switch (role) {
      case Qt::DisplayRole:
        if (index.column() == WhatColumn) return group.rule;
        if (index.column() == ThreadColumn) return group.severity;
        return group.findings.size() == 1 ? tr("1 finding") : tr("%1 findings").arg(group.findings.size());
      case Qt::CheckStateRole:
        if (index.column() != WhatColumn) return {};
        return static_cast<int>(hidden ? Qt::Unchecked : Qt::Checked);
      case Qt::ToolTipRole: return hidden ? tr("Hidden: check to show") : tr("Uncheck to hide this rule");
      case SeverityRole: return group.severity;
      default: return {};
    }
  }
  if (static_cast<std::size_t>(index.row()) >= group.findings.size()) return {};
  const int i = group.findings[static_cast<std::size_t>(index.row())];
  const TimelineAnomaly& a = data_->anomalies[static_cast<std::size_t>(i)];
  switch (role) {
    case Qt::DisplayRole:
      if (index.column() == WhatColumn)
        return (a.number > 0 ? QStringLiteral("#%1  ").arg(a.number) : QString()) +
               QString::fromStdString(format_time_us(a.time));
      if (index.column() == ThreadColumn) return QString::fromStdString(thread_display_name(*data_, a.thread));
      return QString::fromStdString(a.message);
    case Qt::ToolTipRole: {
      QString tip = QString::fromStdString(a.message);
      tip += QStringLiteral("\n") + tr("acted: %1").arg(QString::fromStdString(thread_display_name(*data_, a.thread)));
      if (a.from >= 0)
        tip += QStringLiteral("\n") + tr("had control: %1").arg(QString::fromStdString(thread_display_name(*data_, a.from)));
      if (a.suspect >= 0)
        tip += QStringLiteral("\n") + tr("suspect: %1").arg(QString::fromStdString(thread_display_name(*data_, a.suspect)));
      return tip;
    }
    case AnomalyIndexRole: return i;
    case TimeRole: return QVariant::fromValue<qlonglong>(a.time);
    case ThreadIdRole: return thread_id(a.thread);
    case FromIdRole: return thread_id(a.from);
    case SuspectIdRole: return thread_id(a.suspect);
    case SeverityRole: return QString::fromStdString(a.severity);
    default: return {};
  }
}

bool AnomalyModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || !is_top_row(index) || index.column() != WhatColumn || role != Qt::CheckStateRole)
    return false;
  const auto g = static_cast<std::size_t>(index.row());
  if (g >= groups_.size()) return false;
  set_rule_hidden(groups_[g].rule, value.toInt() != Qt::Checked);
  return true;
}

QVariant AnomalyModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case WhatColumn: return tr("Rule / time");
    case ThreadColumn: return tr("Severity / thread");
    case MessageColumn: return tr("Message");
    default: return {};
  }
}

Qt::ItemFlags AnomalyModel::flags(const QModelIndex& index) const {
  Qt::ItemFlags f = TreeModel::flags(index);
  if (index.isValid() && is_top_row(index) && index.column() == WhatColumn) f |= Qt::ItemIsUserCheckable;
  return f;
}

}  // namespace skein
