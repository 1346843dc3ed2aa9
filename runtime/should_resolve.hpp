// should_resolve.hpp — skein::should_resolve(promise): the program's word
// that a promise must settle.
//
// A trace cut short while the program ran (no `(end)` record: a snapshot of
// a server, a ring buffer written on a signal) holds many pending promises
// that are fine: listeners, timers, loops waiting for their next input. The
// analysis cannot tell those from the one that is stuck, so in a snapshot
// it lists pending promises as notes. Calling should_resolve(p) records
//
//   (should-resolve TIME P)
//
// and the analysis (`skein lint`, pending-at-end) then reports P as an
// error if it, or a promise it was tail-merged with, is still pending when
// the trace ends, whether the trace ended cleanly or not. It is the same
// hint as mirage-profile's `MProf.Trace.should_resolve`, whose
// `__should_resolve` label the importers turn into this record.
//
// It changes nothing else: it does not wake, settle or schedule anything,
// and costs one branch with no sink set. A constant (resolved(), failed())
// is not a thread and records nothing; an already settled promise is
// recorded all the same (it satisfies the hint at once).
#pragma once

#include <stdexcept>

#include "runtime/promise.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

template <class T>
void should_resolve(const Promise<T>& promise) {
  if (!promise.valid())
    throw std::logic_error("skein::should_resolve: empty promise (default-constructed or moved from)");
  detail::trace_should_resolve(detail::underlying(promise.node()));
}

}  // namespace skein
