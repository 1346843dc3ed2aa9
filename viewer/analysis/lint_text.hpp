// lint_text.hpp — the human output of `skein lint`: findings grouped by
// rule, most severe group first (the report's order), each group headed by
// the rule's name, severity and count; within a group, a line per finding
// with its time, the thread (and its label), the thread that had control,
// the suspect and the record, then the sentence (and, when asked, its
// number and the command that opens it in the viewer). Findings with a group
// (pending-at-end: the creation site) get a sub-heading per group. Text for
// a terminal: labels, groups and sentences, which hold the trace's text, go
// through terminal_text() (output_escape.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "viewer/analysis/lint_run.hpp"

namespace skein {

// `label_of` gives a thread's label, or "" when it has none. With
// `open_command`, each finding is numbered (#N, LintFinding::number) and
// followed by the command that opens it ("open: skein-view T --finding N").
//
// The writer takes the findings one at a time, in report order (the
// heading of a rule's group uses report.counts), so the text of a report
// whose findings are spooled is written as they are read back, a piece at
// a time; render_lint_text() writes a report whose findings are in memory.
class LintTextWriter {
 public:
  LintTextWriter(const LintReport& report, std::function<std::string(ThreadId)> label_of,
                 std::function<std::string(std::uint32_t)> open_command = {});
  // Appends the finding's lines (and its group's headings) to `out`.
  void add(const LintFinding& f, std::string& out);
  // Appends the closing total.
  void finish(std::string& out);

 private:
  const LintReport& report_;
  std::function<std::string(ThreadId)> label_of_;
  std::function<std::string(std::uint32_t)> open_command_;
  std::optional<LintRuleId> rule_;  // the group being written
  std::string group_;
  std::uint64_t total_ = 0;
};

[[nodiscard]] std::string render_lint_text(const LintReport& report,
                                           const std::function<std::string(ThreadId)>& label_of,
                                           const std::function<std::string(std::uint32_t)>& open_command = {});

}  // namespace skein
