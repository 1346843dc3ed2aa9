// findings_outline.hpp — the outline of a list of findings, the same for
// the Anomalies dock's tree and for `skein lint`'s text, so a test can say
// that both show one order and one grouping: one line a row, top to
// bottom, "rule pending-at-end", "group created by thread 0: ...", "#3".
// For QTests (Qt Core); the text is render_lint_text()'s (lint_text.hpp).
#pragma once

#include <QAbstractItemModel>
#include <QRegularExpression>
#include <QStringList>
#include <string>

#include "viewer/models/anomaly_model.hpp"

namespace skein::test {

// The dock's rows: every rule, group and finding, depth first.
inline QStringList outline_of(const AnomalyModel& m) {
  QStringList out;
  const auto finding = [&](const QModelIndex& i) {
    out << QStringLiteral("#%1").arg(i.data(Qt::DisplayRole).toString().section(QLatin1Char(' '), 0, 0).mid(1));
  };
  for (int r = 0; r < m.rowCount(); ++r) {
    const QModelIndex rule = m.index(r, 0);
    out << QStringLiteral("rule ") + rule.data().toString();
    for (int c = 0; c < m.rowCount(rule); ++c) {
      const QModelIndex child = m.index(c, 0, rule);
      if (!m.is_group(child)) {
        finding(child);
        continue;
      }
      out << QStringLiteral("group ") + child.data().toString();
      for (int k = 0; k < m.rowCount(child); ++k) finding(m.index(k, 0, child));
    }
  }
  return out;
}

// The text report's headings and numbers: "RULE: N findings (severity)",
// a group's "  HEADING:" and each finding's "#N" (rendered with an open
// command, so findings are numbered).
inline QStringList outline_of_text(const std::string& text) {
  static const QRegularExpression rule(QStringLiteral("^(\\S+): \\d+ findings? \\("));
  static const QRegularExpression group(QStringLiteral("^  ([^ #].*):$"));
  static const QRegularExpression number(QStringLiteral("^ +(#\\d+)  "));
  QStringList out;
  for (const QString& line : QString::fromStdString(text).split(QLatin1Char('\n'))) {
    if (const auto m = rule.match(line); m.hasMatch()) out << QStringLiteral("rule ") + m.captured(1);
    else if (const auto g = group.match(line); g.hasMatch()) out << QStringLiteral("group ") + g.captured(1);
    else if (const auto n = number.match(line); n.hasMatch()) out << n.captured(1);
  }
  return out;
}

}  // namespace skein::test
