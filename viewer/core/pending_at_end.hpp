// pending_at_end.hpp — the `pending-at-end` rule: threads still pending
// when the trace ends, each with what it waits on (its last `wait`),
// grouped by creation site.
//
// Which threads: those a spawn created (the main thread and other implicit
// ones have no creation to be pending from), with no resolve in their merge
// group (merge_groups.hpp), and not merged into another thread (that one
// stands for them).
//
// Lost wake-ups: after a clean `(end)`, a pending thread whose chain of
// waits (its last wait, that thread's last wait, ...) reaches a thread
// already resolved, or comes back on itself, waits on nothing anybody can
// resolve: the wake-up that should have reached it was lost. Those are
// errors and come first; the other pending threads are warnings.
#pragma once

#include <memory>

#include "viewer/core/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_pending_at_end_rule(const LintSettings& settings);

}  // namespace skein
