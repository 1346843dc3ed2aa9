// blocking_activation.hpp — the `blocking-activation` rule: one activation,
// from a switch into a thread until control leaves it (the next switch, an
// idle, the end; or the last record of a trace cut short), longer than a
// threshold (default 10 ms, `skein lint --block-ms`): while it ran, the
// loop was blocked. Callbacks that run inside the thread's activation count
// as part of it, since the loop could not run until it gave control back.
//
// When the loop runs as a thread of its own (TraceSemantics, the 2014
// MirageOS traces: Lwt's main loop is thread 0), control back at that
// thread ends an activation too, and the loop's next dispatch (the first
// record of another thread after it) starts one: between two sleeps the
// loop goes round many times, waking one event channel after another.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_blocking_activation_rule(const LintSettings& settings);

}  // namespace skein
