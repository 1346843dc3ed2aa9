// label.hpp — naming threads and reporting counters in the trace.
//
// label(text) names the current thread (the actor: a callback's promise, -1
// in the loop, 0 in main code); Promise::label names any. counter(name, v)
// records a value over time (a ring's fill level). All three cost one branch
// with no sink set.
#pragma once

#include <cstdint>
#include <string_view>

#include "runtime/actor.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

inline void label(std::string_view text) { detail::trace_label(detail::g_runtime.actor, text); }

inline void counter(std::string_view name, std::int64_t value) { detail::trace_counter(name, value); }

// The thread running now (trace ids: -1 the scheduler, 0 main code).
[[nodiscard]] inline ThreadId current_thread() { return detail::g_runtime.actor; }

}  // namespace skein
