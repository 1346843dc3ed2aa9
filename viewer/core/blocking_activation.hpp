// blocking_activation.hpp — the `blocking-activation` rule: one activation,
// from a switch into a thread until control leaves it (the next switch, an
// idle, the end; or the last record of a trace cut short), longer than a
// threshold (default 10 ms, `skein lint --block-ms`): while it ran, the
// loop was blocked. Callbacks that run inside the thread's activation count
// as part of it, since the loop could not run until it gave control back.
#pragma once

#include <memory>

#include "viewer/core/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_blocking_activation_rule(const LintSettings& settings);

}  // namespace skein
