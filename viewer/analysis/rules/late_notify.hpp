// late_notify.hpp — the `late-notify` rule: a notify or a resolve aimed at
// a thread already resolved (by its own first resolve). The wake-up came
// after the thread had settled: at best wasted, at worst meant for a
// thread that was since replaced. viewer/analysis/LINTS.md has an example.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_late_notify_rule();

}  // namespace skein
