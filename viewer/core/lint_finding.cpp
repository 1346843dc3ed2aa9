// lint_finding.cpp — the names of the rules and severities; see
// lint_finding.hpp.
#include "viewer/core/lint_finding.hpp"

namespace skein {
namespace {

constexpr std::array<std::string_view, kLintRuleCount> kRuleNames = {
    "missing-notification", "unread-failure", "pending-at-end",
    "late-notify",          "blocking-activation", "self-wake"};

}  // namespace

std::string_view lint_rule_name(LintRuleId rule) { return kRuleNames[static_cast<std::size_t>(rule)]; }

std::optional<LintRuleId> lint_rule_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kRuleNames.size(); ++i)
    if (kRuleNames[i] == name) return static_cast<LintRuleId>(i);
  return std::nullopt;
}

std::string_view lint_severity_name(LintSeverity severity) {
  switch (severity) {
    case LintSeverity::error: return "error";
    case LintSeverity::warning: return "warning";
    case LintSeverity::note: return "note";
  }
  return "note";
}

const std::array<LintRuleId, kLintRuleCount>& all_lint_rules() {
  static constexpr std::array<LintRuleId, kLintRuleCount> kAll = {
      LintRuleId::missing_notification, LintRuleId::unread_failure,      LintRuleId::pending_at_end,
      LintRuleId::late_notify,          LintRuleId::blocking_activation, LintRuleId::self_wake};
  return kAll;
}

}  // namespace skein
