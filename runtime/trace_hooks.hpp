// trace_hooks.hpp — the runtime's side of tracing: one inline function per
// record, each a branch on the global sink pointer (trace_sink.hpp).
//
// Constants (kUntraced) are not threads: records that would name one are
// dropped (a bind reading resolved(1) records nothing). The actor comes from
// actor.hpp. Everything past the pointer test is out of line
// (trace_hooks.cpp): sinks must not throw.
#pragma once

#include <source_location>
#include <string_view>

#include "runtime/actor.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/trace_sink.hpp"

namespace skein::detail {

[[nodiscard]] inline trace::Sink* trace_sink_on() noexcept {
  if constexpr (trace::kTraceHooks) return trace::detail::g_trace_sink;
  else return nullptr;
}
[[nodiscard]] inline bool trace_named(const Node* node) noexcept { return (node->flags & kUntraced) == 0; }

// The recording halves, out of line and cold, so that with no sink the hot
// path keeps only the test of the pointer (trace_hooks.cpp).
[[gnu::cold]] void trace_spawn_slow(const Node* child, const std::source_location& site);
[[gnu::cold]] void trace_wait_slow(ThreadId waiter, const Node* input);
[[gnu::cold]] void trace_read_slow(ThreadId reader, const Node* input);
[[gnu::cold]] void trace_notify_slow(ThreadId sender, const Node* receiver, trace::Reason reason);
[[gnu::cold]] void trace_notify_id_slow(ThreadId sender, ThreadId receiver, trace::Reason reason);
[[gnu::cold]] void trace_resolve_slow(const Node* node);
[[gnu::cold]] void trace_merge_slow(ThreadId thread, ThreadId into);
[[gnu::cold]] void trace_switch_slow(ThreadId thread);
[[gnu::cold]] void trace_label_slow(ThreadId thread, std::string_view text);
[[gnu::cold]] void trace_counter_slow(std::string_view name, std::int64_t value);
[[gnu::cold]] void trace_idle_slow();

inline void trace_spawn(const Node* child, const std::source_location& site) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_spawn_slow(child, site);
}
inline void trace_wait(ThreadId waiter, const Node* input) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_wait_slow(waiter, input);
}
inline void trace_read(ThreadId reader, const Node* input) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_read_slow(reader, input);
}
inline void trace_notify(ThreadId sender, const Node* receiver, trace::Reason reason) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_notify_slow(sender, receiver, reason);
}
// A notify to a thread known only by its id (skein::notify, notify.hpp).
inline void trace_notify_id(ThreadId sender, ThreadId receiver, trace::Reason reason) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_notify_id_slow(sender, receiver, reason);
}
inline void trace_resolve(const Node* node) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_resolve_slow(node);
}
inline void trace_merge(ThreadId thread, ThreadId into) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_merge_slow(thread, into);
}
inline void trace_switch(ThreadId thread) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_switch_slow(thread);
}
inline void trace_label(ThreadId thread, std::string_view text) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_label_slow(thread, text);
}
inline void trace_counter(std::string_view name, std::int64_t value) {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_counter_slow(name, value);
}
inline void trace_idle() {
  if (trace_sink_on() != nullptr) [[unlikely]] trace_idle_slow();
}

// Runs a callback as thread `thread`. From the ready queue the scheduler hands
// control over, which is a switch; inside a resolver it is not (the resolve
// of the input explains it).
class ActorScope {
 public:
  ActorScope(ThreadId thread, bool from_scheduler) noexcept : saved_(g_runtime.actor) {
    if (from_scheduler) trace_switch(thread);
    g_runtime.actor = thread;
  }
  ~ActorScope() { g_runtime.actor = saved_; }
  ActorScope(const ActorScope&) = delete;
  ActorScope& operator=(const ActorScope&) = delete;

 private:
  ThreadId saved_;
};

}  // namespace skein::detail
