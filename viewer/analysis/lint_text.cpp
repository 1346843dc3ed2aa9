// lint_text.cpp — one walk over the report's findings, which arrive already
// grouped by rule: a rule's heading is written at its first finding, using
// report.counts for the tally, and a group sub-heading whenever the
// finding's group changes. Every piece of trace text (labels, groups,
// messages) passes through terminal_text(); the closing line totals the
// counts of the rules that had findings and lists every rule that ran.
#include "viewer/analysis/lint_text.hpp"

#include "recorder/export/output_escape.hpp"

namespace skein {
namespace {

std::string named(ThreadId t, const std::function<std::string(ThreadId)>& label_of) {
  std::string s = thread_phrase(t);
  if (t != kScheduler && label_of) {
    const std::string label = label_of(t);
    if (!label.empty()) s += " \"" + terminal_text(label) + "\"";
  }
  return s;
}

}  // namespace

std::string render_lint_text(const LintReport& report, const std::function<std::string(ThreadId)>& label_of,
                             const std::function<std::string(std::uint32_t)>& open_command) {
  std::string out;
  std::size_t i = 0;
  std::uint64_t total = 0;
  while (i < report.findings.size()) {
    const LintRuleId rule = report.findings[i].rule;
    const std::uint64_t n = report.counts[static_cast<std::size_t>(rule)];
    total += n;
    out += std::string(lint_rule_name(rule)) + ": " + std::to_string(n) + (n == 1 ? " finding" : " findings") +
           " (" + std::string(lint_severity_name(report.findings[i].severity)) + ")\n";
    std::string group;
    for (; i < report.findings.size() && report.findings[i].rule == rule; ++i) {
      const LintFinding& f = report.findings[i];
      std::string indent = "  ";
      if (!f.group.empty()) {
        if (f.group != group) {
          group = f.group;
          out += "  " + terminal_text(group) + ":\n";
        }
        indent = "    ";
      }
      out += indent;
      if (open_command) out += "#" + std::to_string(f.number) + "  ";
      out += time_phrase(f.time) + "  " + named(f.thread, label_of);
      if (f.from) out += "  from " + named(*f.from, label_of);
      if (f.suspect) out += "  suspect " + named(*f.suspect, label_of);
      if (f.event) out += "  event " + std::to_string(*f.event);
      out += "\n" + indent + "  " + terminal_text(f.message) + "\n";
      if (open_command) out += indent + "  open: " + open_command(f.number) + "\n";
    }
    out += "\n";
  }
  std::string rules;
  for (const LintRuleId r : report.rules) rules += (rules.empty() ? "" : ", ") + std::string(lint_rule_name(r));
  out += std::to_string(total) + (total == 1 ? " finding" : " findings") + " (rules: " + rules + ")\n";
  return out;
}

}  // namespace skein
