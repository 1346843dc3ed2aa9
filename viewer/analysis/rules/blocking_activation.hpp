// blocking_activation.hpp — the `blocking-activation` rule: one turn of the
// loop longer than a threshold (default 10 ms, `skein lint --block-ms`):
// while it ran, the loop could run nothing else.
//
// A turn runs from the scheduler giving control away until control comes
// back to it. The scheduler gives control by a switch to a thread (a
// fiber, a coroutine or callbacks resumed from its ready queue), or by
// waking something (a timer, I/O, a yield: its notify and resolve), whose
// callbacks then run inside the wake-up with no switch: the turn then
// starts at the first record of a thread after the scheduler had control.
// It ends at a switch back to the scheduler, an idle, the end, the next
// record by the scheduler, or the last record of a trace cut short.
// Everything that runs inside counts toward it: a bind's callback, the
// callbacks its resolves run, a fiber's code, a coroutine's continuation.
//
// Who took the time: the time between two records goes to the thread that
// had control after the first of them (a record's actor, or the thread a
// switch gave control to), so the finding names the thread that ran
// longest in the turn and says what it is: its kind and creation site
// (`site`), else its label. The capture stamps the record that follows a
// callback's or a coroutine's user code (FORMAT.md, "Times written by the
// capture"), so that time lands on the thread that ran it.
//
// When the loop runs as a thread of its own (TraceSemantics, the 2014
// MirageOS traces: Lwt's main loop is thread 0), a record by that thread
// is the loop having control again, and the loop's next dispatch (the first
// record of another thread after it) starts a turn: between two sleeps the
// loop goes round many times, waking one event channel after another.
//
// A turn that holds a `(lost ...)` record is not judged: its end may be
// among the records lost (the finding carries the gap, lint_run.hpp).
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_blocking_activation_rule(const LintSettings& settings);

}  // namespace skein
