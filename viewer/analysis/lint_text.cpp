// lint_text.cpp — findings arrive one at a time, already grouped by rule:
// a rule's heading is written at its first finding, using report.counts
// for the tally, and a group sub-heading whenever the finding's group
// changes. Every piece of trace text (labels, groups,
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

LintTextWriter::LintTextWriter(const LintReport& report, std::function<std::string(ThreadId)> label_of,
                               std::function<std::string(std::uint32_t)> open_command)
    : report_(report), label_of_(std::move(label_of)), open_command_(std::move(open_command)) {}

void LintTextWriter::add(const LintFinding& f, std::string& out) {
  if (!rule_ || *rule_ != f.rule) {
    if (rule_) out += "\n";
    rule_ = f.rule;
    group_.clear();
    const std::uint64_t n = report_.counts[static_cast<std::size_t>(f.rule)];
    total_ += n;
    out += std::string(lint_rule_name(f.rule)) + ": " + std::to_string(n) + (n == 1 ? " finding" : " findings") +
           " (" + std::string(lint_severity_name(f.severity)) + ")\n";
  }
  std::string indent = "  ";
  if (!f.group.empty()) {
    if (f.group != group_) {
      group_ = f.group;
      out += "  " + terminal_text(group_) + ":\n";
    }
    indent = "    ";
  }
  out += indent;
  if (open_command_) out += "#" + std::to_string(f.number) + "  ";
  out += time_phrase(f.time) + "  " + named(f.thread, label_of_);
  if (f.from) out += "  from " + named(*f.from, label_of_);
  if (f.suspect) out += "  suspect " + named(*f.suspect, label_of_);
  if (f.event) out += "  event " + std::to_string(*f.event);
  out += "\n" + indent + "  " + terminal_text(f.message) + "\n";
  if (open_command_) out += indent + "  open: " + open_command_(f.number) + "\n";
}

void LintTextWriter::finish(std::string& out) {
  if (rule_) out += "\n";
  std::string rules;
  for (const LintRuleId r : report_.rules) rules += (rules.empty() ? "" : ", ") + std::string(lint_rule_name(r));
  out += std::to_string(total_) + (total_ == 1 ? " finding" : " findings") + " (rules: " + rules + ")\n";
}

std::string render_lint_text(const LintReport& report, const std::function<std::string(ThreadId)>& label_of,
                             const std::function<std::string(std::uint32_t)>& open_command) {
  std::string out;
  LintTextWriter writer(report, label_of, open_command);
  for (const LintFinding& f : report.findings) writer.add(f, out);
  writer.finish(out);
  return out;
}

}  // namespace skein
