// missing_notification.hpp — the `missing-notification` rule: every change
// of control that the causality replay (causality_replay.hpp) cannot
// explain from the recorded records is a finding at the thread that took
// control, naming the thread that had it and a suspect; so is a hand-off
// (a resolve or notify of another thread) made by a thread that polled
// with yields, found nothing, and yielded again with nothing recorded in
// between ("hand-offs after polling"). viewer/analysis/LINTS.md gives the rule in
// full, with examples.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_missing_notification_rule();

}  // namespace skein
