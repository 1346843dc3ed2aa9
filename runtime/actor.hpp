// actor.hpp — the current thread (the "actor") and the runtime's counters.
//
// The runtime always knows which thread is running: 0 in the main code, -1 in
// the scheduler's loop, a promise's id while its callback runs. Records take
// their actor from here (resolve's `by`, spawn's parent, label's thread).
// Invariant: an ActorScope restores the actor it found, so the actor outside
// any callback is the one the code that called into the runtime had.
#pragma once

#include "runtime/thread_id.hpp"

namespace skein::detail {

struct RuntimeState {
  ThreadId actor = trace::kMainThread;
  int depth = 0;         // callbacks running inside resolvers, nested
  ThreadId next_id = 1;  // the next promise's id
};
inline RuntimeState g_runtime;

[[nodiscard]] inline ThreadId next_thread_id() noexcept { return g_runtime.next_id++; }

}  // namespace skein::detail
