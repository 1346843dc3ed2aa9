// lint_finding.cpp — the names of the rules and severities; see
// lint_finding.hpp.
#include "viewer/analysis/lint_finding.hpp"

namespace skein {
namespace {

constexpr std::array<std::string_view, kLintRuleCount> kRuleNames = {
    "missing-notification", "unread-failure", "pending-at-end",
    "late-notify",          "blocking-activation", "self-wake", "lost-records"};

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
      LintRuleId::late_notify,          LintRuleId::blocking_activation, LintRuleId::self_wake,
      LintRuleId::lost_records};
  return kAll;
}

std::string lint_advice(std::string_view rule, std::string_view severity, const std::string& thread,
                        const std::string& from, const std::string& suspect) {
  if (severity == "note") return {};
  const std::string who = suspect.empty() ? std::string("the thread that signals it") : suspect;
  if (rule == "missing-notification")
    return "record skein::notify(" + thread + ") where " + who +
           " signals it, or have it wait on a promise that " + who + " resolves";
  if (rule == "unread-failure")
    return "read the outcome of " + thread + " (a catch_, or a bind on it), or let it propagate to a thread that does";
  if (rule == "pending-at-end")
    return "resolve " + thread + " where its work ends, or fail it on the path that gives up on it";
  if (rule == "late-notify")
    return "notify " + thread + " before " + who + " settles it, or drop the notify";
  if (rule == "blocking-activation")
    return "split the work of " + thread + " over several turns (pause()), or move it off the loop";
  if (rule == "self-wake")
    return "have " + thread + " wait on a promise its producer resolves, instead of polling with pause()";
  (void)from;
  return "see viewer/analysis/LINTS.md for this rule";
}

}  // namespace skein
