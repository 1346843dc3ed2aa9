// self_wake.hpp — the `self-wake` rule: a thread whose wake-ups are more
// than half its own yields, over at least 100 wake-ups: it polls instead of
// waiting for what it needs.
//
// A wake-up is a notify. It counts for the thread that will run: the
// receiver, or, when the receiver is a `pause` or `yield` thread (Skein's
// runtime records a yield as a notify of the pause promise), the thread
// that spawned it. Threads are counted per merge group (a pause loop merges
// each iteration into the first, merge_groups.hpp), named by the group's
// first thread. Its own yields are the wake-ups with reason `yield` or sent
// by the group itself.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_self_wake_rule(const LintSettings& settings);

}  // namespace skein
