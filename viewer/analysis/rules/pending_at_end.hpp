// pending_at_end.hpp — the `pending-at-end` rule: promises still pending
// when the trace ends, one finding each, grouped by what created them.
//
// A promise is a merge group (merge_groups.hpp): Skein's runtime chains a
// tail-merged thread into the thread that continues it (A -> B -> C), and
// Lwt's loops absorb each iteration into the loop's first thread (lwt.ml's
// connect: `t2.state <- Repr t1`, recorded `Becomes t1 t2`, so the 2014
// MirageOS traces hold A -> B1, A -> B2, ...). Either way the group is one
// promise: it settles when any member is resolved (a resolve names the
// group's current identity, Lwt's representative), and it is reported once,
// at its first spawned thread, with how many iterations were merged into it.
// Only groups with a spawned thread count (the main thread and other
// implicit ones have no creation to be pending from).
//
// What it waits on: the latest `wait` of a member that the member did not
// follow with a `read` of the same thread (a read after the wait is the
// wake-up arriving).
//
// Severity:
//   - after a clean `(end)`: a lost wake-up, an error: the chain of waits
//     (the group's open wait, that group's open wait, ...) reaches a
//     resolved promise, or comes back to the group itself; otherwise a
//     warning;
//   - in a trace with no `(end)`, a snapshot of a running program (the
//     2014 MirageOS traces): a note, since listeners, timers and loops are
//     pending in any running program;
//   - either way, an error when the program said the promise should
//     resolve (`should-resolve`, runtime/should_resolve.hpp).
//
// Groups of findings, for the text output: by the promise's creation site,
// else its label, else the loop its creator belongs to ("created in the
// Netif.rx_poll loop"), with "loop" added when the group has merged
// iterations; each group's heading says how many promises it holds, since
// when they are pending, and how many iterations were merged into them:
// "blkfront.poll loop: 1 promise pending since 23.641000 ms (31 iterations
// merged into it)". The most severe come first.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_pending_at_end_rule(const LintSettings& settings);

}  // namespace skein
