// anomaly_model.cpp — set_data() puts the findings in report order (a
// stable sort by number over data.anomalies, which is by time, so
// unnumbered findings keep their time order), gathers them by rule, orders
// the rules by their first number (unnumbered ones by severity rank, then
// LintRuleId, then name), and lays the node table out level by level, so
// every node's children are consecutive: the rules, then each rule's
// children (a group for each run of one non-empty group, a finding
// otherwise), then each group's findings. Hiding a rule emits dataChanged
// for its row and every row under it, a parent at a time (check state,
// grey text).
#include "viewer/models/anomaly_model.hpp"

#include <QBrush>
#include <algorithm>
#include <limits>
#include <map>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/models/qt_text.hpp"
#include "viewer/timeline/thread_details.hpp"

namespace skein {
namespace {

int severity_rank(std::string_view severity) {
  if (severity == "error") return 0;
  if (severity == "warning") return 1;
  if (severity == "note") return 2;
  return 3;
}

int rule_rank(const std::string& rule) {
  const auto id = lint_rule_from_name(rule);
  return id ? static_cast<int>(*id) : static_cast<int>(kLintRuleCount);
}

// Unnumbered findings go after every numbered one.
std::int64_t order_key(const TimelineAnomaly& a) {
  return a.number > 0 ? a.number : std::numeric_limits<std::int64_t>::max();
}

std::string_view more_severe(std::string_view a, std::string_view b) {
  return severity_rank(b) < severity_rank(a) ? b : a;
}

}  // namespace

AnomalyModel::AnomalyModel(QObject* parent) : QAbstractItemModel(parent) {}

void AnomalyModel::set_data(std::shared_ptr<const TimelineData> data) {
  beginResetModel();
  data_ = std::move(data);
  nodes_.clear();
  rules_.clear();
  groups_.clear();
  order_.clear();
  if (data_ && !data_->anomalies.empty()) {
    const auto& all = data_->anomalies;
    std::vector<int> by_number(all.size());
    for (std::size_t i = 0; i < all.size(); ++i) by_number[i] = static_cast<int>(i);
    std::stable_sort(by_number.begin(), by_number.end(), [&](int x, int y) {
      return order_key(all[static_cast<std::size_t>(x)]) < order_key(all[static_cast<std::size_t>(y)]);
    });
    struct Building {
      std::string severity;
      std::int64_t first = std::numeric_limits<std::int64_t>::max();
      std::vector<int> findings;  // in report order
    };
    std::map<std::string, Building> by_rule;
    for (const int i : by_number) {
      const TimelineAnomaly& a = all[static_cast<std::size_t>(i)];
      auto [it, added] =
          by_rule.try_emplace(std::string(a.rule()), Building{std::string(a.severity()), order_key(a), {}});
      if (!added) it->second.severity = std::string(more_severe(it->second.severity, a.severity()));
      it->second.findings.push_back(i);
    }
    std::vector<std::pair<std::string, Building>> ordered(by_rule.begin(), by_rule.end());
    // by_rule gave them by name; the stable sort keeps that for ties.
    std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
      if (a.second.first != b.second.first) return a.second.first < b.second.first;
      const int sa = severity_rank(a.second.severity), sb = severity_rank(b.second.severity);
      if (sa != sb) return sa < sb;
      return rule_rank(a.first) < rule_rank(b.first);
    });

    // Level 1: the rules.
    nodes_.resize(ordered.size());
    for (std::size_t r = 0; r < ordered.size(); ++r) {
      Node& n = nodes_[r];
      n.kind = Kind::rule;
      n.row = static_cast<std::int32_t>(r);
      n.rule = static_cast<std::int32_t>(r);
      rules_.push_back(RuleRow{QString::fromStdString(ordered[r].first),
                               QString::fromStdString(ordered[r].second.severity),
                               static_cast<int>(ordered[r].second.findings.size())});
    }
    // Level 2: each rule's findings, a run of one group as one group row.
    struct Span {
      std::int32_t node;
      std::size_t rule, begin, end;  // the run, in ordered[rule].second.findings
    };
    std::vector<Span> spans;
    for (std::size_t r = 0; r < ordered.size(); ++r) {
      const std::vector<int>& f = ordered[r].second.findings;
      nodes_[r].first_child = static_cast<std::int32_t>(nodes_.size());
      std::int32_t row = 0;
      for (std::size_t k = 0; k < f.size();) {
        const TimelineAnomaly& a = all[static_cast<std::size_t>(f[k])];
        Node n;
        n.parent = static_cast<std::int32_t>(r);
        n.row = row++;
        n.rule = static_cast<std::int32_t>(r);
        if (a.group().empty()) {
          n.kind = Kind::finding;
          n.item = f[k];
          ++k;
        } else {
          std::size_t end = k + 1;
          std::string severity(a.severity());
          while (end < f.size() && all[static_cast<std::size_t>(f[end])].group() == a.group()) {
            severity = std::string(more_severe(severity, all[static_cast<std::size_t>(f[end])].severity()));
            ++end;
          }
          n.kind = Kind::group;
          n.item = static_cast<std::int32_t>(groups_.size());
          groups_.push_back(GroupRow{qt_text(a.group()), QString::fromStdString(severity)});
          spans.push_back(Span{static_cast<std::int32_t>(nodes_.size()), r, k, end});
          k = end;
        }
        nodes_.push_back(n);
      }
      nodes_[r].child_count = row;
    }
    // Level 3: each group's findings.
    for (const Span& s : spans) {
      const std::vector<int>& f = ordered[s.rule].second.findings;
      nodes_[static_cast<std::size_t>(s.node)].first_child = static_cast<std::int32_t>(nodes_.size());
      nodes_[static_cast<std::size_t>(s.node)].child_count = static_cast<std::int32_t>(s.end - s.begin);
      for (std::size_t k = s.begin; k < s.end; ++k) {
        Node n;
        n.kind = Kind::finding;
        n.parent = s.node;
        n.row = static_cast<std::int32_t>(k - s.begin);
        n.rule = static_cast<std::int32_t>(s.rule);
        n.item = f[k];
        nodes_.push_back(n);
      }
    }
    for (const auto& [rule, b] : ordered) order_.insert(order_.end(), b.findings.begin(), b.findings.end());
  }
  endResetModel();
}

void AnomalyModel::set_rule_hidden(const QString& rule, bool hidden) {
  if (hidden == hidden_.contains(rule)) return;
  if (hidden) hidden_.insert(rule);
  else hidden_.remove(rule);
  for (std::size_t r = 0; r < rules_.size(); ++r)
    if (rules_[r].rule == rule) changed_rule(static_cast<int>(r));
  emit hidden_rules_changed(hidden_rules());
}

void AnomalyModel::set_hidden_rules(const QStringList& rules) {
  const QSet<QString> wanted(rules.begin(), rules.end());
  if (wanted == hidden_) return;
  const QSet<QString> before = hidden_;
  hidden_ = wanted;
  for (std::size_t r = 0; r < rules_.size(); ++r)
    if (before.contains(rules_[r].rule) != hidden_.contains(rules_[r].rule)) changed_rule(static_cast<int>(r));
  emit hidden_rules_changed(hidden_rules());
}

void AnomalyModel::changed_rule(int rule) {
  emit dataChanged(index(rule, 0), index(rule, ColumnCount - 1));
  const Node& r = nodes_[static_cast<std::size_t>(rule)];
  if (r.child_count == 0) return;
  const QModelIndex parent = index(rule, 0);
  emit dataChanged(index(0, 0, parent), index(r.child_count - 1, ColumnCount - 1, parent));
  for (std::int32_t c = r.first_child; c < r.first_child + r.child_count; ++c) {
    const Node& g = nodes_[static_cast<std::size_t>(c)];
    if (g.kind != Kind::group || g.child_count == 0) continue;
    const QModelIndex group = createIndex(g.row, 0, static_cast<quintptr>(c));
    emit dataChanged(index(0, 0, group), index(g.child_count - 1, ColumnCount - 1, group));
  }
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
    if (!hidden_.contains(qt_text(data_->anomalies[i].rule()))) out.push_back(static_cast<int>(i));
  return out;
}

QStringList AnomalyModel::rules() const {
  QStringList out;
  for (const RuleRow& r : rules_) out << r.rule;
  return out;
}

QModelIndex AnomalyModel::rule_index(const QString& rule, int column) const {
  for (std::size_t r = 0; r < rules_.size(); ++r)
    if (rules_[r].rule == rule) return index(static_cast<int>(r), column);
  return {};
}

bool AnomalyModel::is_group(const QModelIndex& index) const {
  const Node* n = node_of(index);
  return n && n->kind == Kind::group;
}

const AnomalyModel::Node* AnomalyModel::node_of(const QModelIndex& index) const {
  if (!index.isValid() || index.model() != this || index.internalId() >= nodes_.size()) return nullptr;
  return &nodes_[index.internalId()];
}

QModelIndex AnomalyModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= ColumnCount) return {};
  if (!parent.isValid()) {
    if (static_cast<std::size_t>(row) >= rules_.size()) return {};
    return createIndex(row, column, static_cast<quintptr>(row));
  }
  const Node* p = node_of(parent);
  if (!p || parent.column() != 0 || row >= p->child_count) return {};
  return createIndex(row, column, static_cast<quintptr>(p->first_child + row));
}

QModelIndex AnomalyModel::parent(const QModelIndex& child) const {
  const Node* n = node_of(child);
  if (!n || n->parent < 0) return {};
  const Node& p = nodes_[static_cast<std::size_t>(n->parent)];
  return createIndex(p.row, 0, static_cast<quintptr>(n->parent));
}

int AnomalyModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return static_cast<int>(rules_.size());
  const Node* p = node_of(parent);
  return p && parent.column() == 0 ? p->child_count : 0;
}

int AnomalyModel::columnCount(const QModelIndex&) const { return ColumnCount; }

QVariant AnomalyModel::thread_id(std::int32_t index) const {
  if (index < 0 || static_cast<std::size_t>(index) >= data_->threads.size()) return {};
  return QVariant::fromValue<qlonglong>(data_->threads[static_cast<std::size_t>(index)].id);
}

QVariant AnomalyModel::data(const QModelIndex& index, int role) const {
  const Node* n = node_of(index);
  if (!n || !data_) return {};
  const RuleRow& rule = rules_[static_cast<std::size_t>(n->rule)];
  const bool hidden = hidden_.contains(rule.rule);
  if (role == RuleRole) return rule.rule;
  if (role == Qt::ForegroundRole) return hidden ? QVariant(QBrush(Qt::gray)) : QVariant();
  if (n->kind == Kind::rule) {
    switch (role) {
      case Qt::DisplayRole:
        if (index.column() == WhatColumn) return rule.rule;
        if (index.column() == ThreadColumn) return rule.severity;
        return QString::fromStdString(counted(static_cast<std::uint64_t>(rule.findings), "finding"));
      case Qt::CheckStateRole:
        if (index.column() != WhatColumn) return {};
        return static_cast<int>(hidden ? Qt::Unchecked : Qt::Checked);
      case Qt::ToolTipRole: return hidden ? tr("Hidden: check to show") : tr("Uncheck to hide this rule");
      case SeverityRole: return rule.severity;
      default: return {};
    }
  }
  if (n->kind == Kind::group) {
    const GroupRow& group = groups_[static_cast<std::size_t>(n->item)];
    switch (role) {
      case Qt::DisplayRole: return index.column() == WhatColumn ? group.heading : QString();
      case Qt::ToolTipRole: return group.heading;
      case SeverityRole: return group.severity;
      case GroupRole: return group.heading;
      default: return {};
    }
  }
  const TimelineAnomaly& a = data_->anomalies[static_cast<std::size_t>(n->item)];
  switch (role) {
    case Qt::DisplayRole:
      if (index.column() == WhatColumn)
        return (a.number > 0 ? QStringLiteral("#%1  ").arg(a.number) : QString()) +
               QString::fromStdString(format_time_us(a.time));
      if (index.column() == ThreadColumn) return QString::fromStdString(thread_display_name(*data_, a.thread));
      return qt_text(a.message());
    case Qt::ToolTipRole: {
      QString tip = qt_text(a.message());
      tip += QStringLiteral("\n") + tr("acted: %1").arg(QString::fromStdString(thread_display_name(*data_, a.thread)));
      if (a.from >= 0)
        tip += QStringLiteral("\n") + tr("had control: %1").arg(QString::fromStdString(thread_display_name(*data_, a.from)));
      if (a.suspect >= 0)
        tip += QStringLiteral("\n") + tr("suspect: %1").arg(QString::fromStdString(thread_display_name(*data_, a.suspect)));
      return tip;
    }
    case AnomalyIndexRole: return n->item;
    case TimeRole: return QVariant::fromValue<qlonglong>(a.time);
    case ThreadIdRole: return thread_id(a.thread);
    case FromIdRole: return thread_id(a.from);
    case SuspectIdRole: return thread_id(a.suspect);
    case SeverityRole: return qt_text(a.severity());
    case GroupRole: return a.group().empty() ? QVariant() : QVariant(qt_text(a.group()));
    default: return {};
  }
}

bool AnomalyModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  const Node* n = node_of(index);
  if (!n || n->kind != Kind::rule || index.column() != WhatColumn || role != Qt::CheckStateRole) return false;
  set_rule_hidden(rules_[static_cast<std::size_t>(n->rule)].rule, value.toInt() != Qt::Checked);
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
  const Node* n = node_of(index);
  if (!n) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (n->kind == Kind::finding) f |= Qt::ItemNeverHasChildren;
  if (n->kind == Kind::rule && index.column() == WhatColumn) f |= Qt::ItemIsUserCheckable;
  return f;
}

}  // namespace skein
