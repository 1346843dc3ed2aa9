// lint_finding.hpp — what a lint reports: one finding names a rule, how
// severe it is, when, the thread it is about, the thread that had control
// (`from`), a suspect, the record it was found at and a sentence. The rules
// (viewer/analysis/LINTS.md documents each) produce findings; the command line
// prints them, and the `anomalies` table (recorder/store/SCHEMA.md) stores them
// for the viewer.
//
// Invariants: `rule` is one of LintRuleId; a finding's optional fields are
// absent (nullopt) rather than -1 when they do not apply, since -1 is a
// thread id (the scheduler). Rules are listed most severe first: that is
// the order in which the command line prints their groups.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/record.hpp"

namespace skein {

enum class LintRuleId : std::uint8_t {
  missing_notification,
  unread_failure,
  pending_at_end,
  late_notify,
  blocking_activation,
  self_wake,
  lost_records,
};
inline constexpr std::size_t kLintRuleCount = 7;

enum class LintSeverity : std::uint8_t { error, warning, note };

// "missing-notification", ...: the names `--rules` and the JSON output use.
[[nodiscard]] std::string_view lint_rule_name(LintRuleId rule);
[[nodiscard]] std::optional<LintRuleId> lint_rule_from_name(std::string_view name);
[[nodiscard]] std::string_view lint_severity_name(LintSeverity severity);
// Every rule, in the order of LintRuleId (most severe first).
[[nodiscard]] const std::array<LintRuleId, kLintRuleCount>& all_lint_rules();

struct LintFinding {
  LintRuleId rule = LintRuleId::missing_notification;
  LintSeverity severity = LintSeverity::error;
  TimeNs time = 0;
  ThreadId thread = 0;                  // the thread the finding is about
  std::optional<ThreadId> from;         // the thread that had control
  std::optional<ThreadId> suspect;      // who most likely owes the missing record
  std::optional<std::int64_t> event;    // event id of the record it was found at
  std::string group;                    // what the text output groups a rule's findings by; "" for none
  // Other threads the finding stands for: the promises pending only
  // because this one is (pending-at-end), in spawn order.
  std::vector<ThreadId> related;
  std::string message;
  std::uint32_t number = 0;             // its place in the full report, from 1 (`skein lint`'s #N)
  // The `(lost ...)` record (event id) whose missing records the verdict
  // depends on: the cause, or the end, may be among them; 0 when none.
  // lint_run folds such findings into the gap's note.
  std::int64_t gap = 0;

  friend bool operator==(const LintFinding&, const LintFinding&) = default;
};

// What to do about a finding of `rule` ("missing-notification", ...), in
// one sentence, naming the thread that acted, the one that had control and
// the suspect as given ("thread 6 \"backend\"" or so; "" when absent).
// Advice goes only where there is a fault: an error or a warning (a
// promise the program said should resolve is an error). A note says
// something true that needs no fix (a loop pending in a snapshot, a thread
// that polls, records the capture lost): its advice is "".
[[nodiscard]] std::string lint_advice(std::string_view rule, std::string_view severity, const std::string& thread,
                                      const std::string& from, const std::string& suspect);

}  // namespace skein
