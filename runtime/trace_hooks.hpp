// trace_hooks.hpp — the runtime's side of tracing: one inline function per
// record, each a branch on the global sink pointer (trace_sink.hpp).
//
// With a sink set, a hook first tries the sink's record window
// (trace_record.hpp): if this OS thread owns it and it has room, the record
// is stored there inline (a bounds check, an owner check, a few stores; a
// spawn also looks its site up in the runtime's site cache). Otherwise, and
// for records that carry a string the runtime's string cache does not know
// yet (a label or counter text seen for the first time, a failure's
// message), the hook calls its out-of-line half (trace_hooks.cpp), which calls the sink:
// for a plain sink that is every record; for a buffering sink it is the rare
// case (a full chunk, a new site, a foreign thread), and the sink writes the
// record through the window itself. Sinks must not throw.
//
// Built with SKEIN_TRACE_HOOKS=0, every hook body is a discarded `if
// constexpr` branch: no code, not even in an unoptimised build.
//
// Constants (kUntraced) are not threads: records that would name one are
// dropped (a bind reading resolved(1) records nothing). The actor comes from
// actor.hpp.
//
// Two hooks keep a little state whether a sink is set or not, because a
// sink may be set at any moment and must then find it right: a Resolver's
// count on its node (trace_count_resolver, trace_drop_resolver; a
// saturating add without a branch) and a primitive's ObjectId, which
// trace_no_waiter gives it on its first no-waiter record (only with a sink;
// a primitive numbered under one sink keeps its number under the next).
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

// The recording halves through the sink, out of line and cold, so that with
// no sink the hot path keeps only the test of the pointer (trace_hooks.cpp).
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
[[gnu::cold]] void trace_should_resolve_slow(ThreadId thread);
[[gnu::cold]] void trace_drop_slow(ThreadId thread);
[[gnu::cold]] void trace_no_waiter_slow(trace::ObjectId object, trace::Reason reason);
[[gnu::cold]] void trace_queued_slow(ThreadId waiter, trace::ObjectId object);

// The next primitive's number (trace_sink.hpp, "Objects"): its own count,
// never a thread id.
inline trace::ObjectId g_next_object = 1;

using trace::RecordCode;
using trace::detail::try_append;

inline void trace_spawn(const Node* child, const std::source_location& site) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if constexpr (trace::detail::kSiteCacheable) {
      if (trace::Record* r = trace::detail::own_slot()) {  // the site cache is the owner's
        const void* key = trace::detail::site_key(site);
        const trace::detail::SiteCacheEntry& cached = trace::detail::site_slot(key);
        if (cached.key == key && key != nullptr) {
          trace::detail::write_record_at<RecordCode::spawn>(trace::detail::g_record_window, r,
                                                            static_cast<std::uint8_t>(child->ops->kind), child->id,
                                                            g_runtime.actor, cached.id);
          return;
        }
      }
    }
    trace_spawn_slow(child, site);
  }
}
inline void trace_wait(ThreadId waiter, const Node* input) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (trace_named(input) && !try_append<RecordCode::wait>(0, waiter, input->id, 0)) trace_wait_slow(waiter, input);
  }
}
inline void trace_read(ThreadId reader, const Node* input) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (trace_named(input) && !try_append<RecordCode::read>(0, reader, input->id, 0)) trace_read_slow(reader, input);
  }
}
inline void trace_notify(ThreadId sender, const Node* receiver, trace::Reason reason) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (!try_append<RecordCode::notify>(static_cast<std::uint8_t>(reason), sender, receiver->id, 0))
      trace_notify_slow(sender, receiver, reason);
  }
}
// A notify to a thread known only by its id (skein::notify, notify.hpp).
inline void trace_notify_id(ThreadId sender, ThreadId receiver, trace::Reason reason) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (!try_append<RecordCode::notify>(static_cast<std::uint8_t>(reason), sender, receiver, 0))
      trace_notify_id_slow(sender, receiver, reason);
  }
}
inline void trace_resolve(const Node* node) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (!trace_named(node)) return;
    // ok and cancel inline; a failure's message goes through the sink.
    const trace::Outcome outcome = node->state == NodeState::fulfilled ? trace::Outcome::ok
                                   : (node->flags & kCanceled)         ? trace::Outcome::cancel
                                                                       : trace::Outcome::fail;
    if (outcome == trace::Outcome::fail ||
        !try_append<RecordCode::resolve>(static_cast<std::uint8_t>(outcome), node->id, g_runtime.actor, 0))
      trace_resolve_slow(node);
  }
}
inline void trace_merge(ThreadId thread, ThreadId into) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (!try_append<RecordCode::merge>(0, thread, into, 0)) trace_merge_slow(thread, into);
  }
}
inline void trace_switch(ThreadId thread) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (!try_append<RecordCode::switch_>(0, thread, 0, 0)) trace_switch_slow(thread);
  }
}
inline void trace_label(ThreadId thread, std::string_view text) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (trace::Record* r = trace::detail::own_slot()) {  // the string cache is the owner's
      if (const std::uint32_t id = trace::detail::cached_string(text); id != ~std::uint32_t{0}) {
        trace::detail::write_record_at<RecordCode::label>(trace::detail::g_record_window, r, 0, thread, 0, id);
        return;
      }
    }
    trace_label_slow(thread, text);
  }
}
inline void trace_counter(std::string_view name, std::int64_t value) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (trace::Record* r = trace::detail::own_slot()) {
      if (const std::uint32_t id = trace::detail::cached_string(name); id != ~std::uint32_t{0}) {
        trace::detail::write_record_at<RecordCode::counter>(trace::detail::g_record_window, r, 0, 0, value, id);
        return;
      }
    }
    trace_counter_slow(name, value);
  }
}
inline void trace_idle() {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (!try_append<RecordCode::idle>(0, 0, 0, 0)) trace_idle_slow();
  }
}
inline void trace_should_resolve(const Node* node) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (trace_named(node) && !try_append<RecordCode::should_resolve>(0, node->id, 0, 0))
      trace_should_resolve_slow(node->id);
  }
}

// The drop of the root `node` settles, if that root is still pending and
// is a thread; the caller has seen a sink set.
[[gnu::always_inline]] inline void trace_drop_record(Node* node) {
  const Node* root = underlying(node);
  if (root->state != NodeState::pending || !trace_named(root)) return;
  if (!try_append<RecordCode::drop>(0, root->id, g_runtime.actor, 0)) trace_drop_slow(root->id);
}
// `node`'s last means of being settled is gone (a primitive died with it
// queued, wait_queue.hpp): drop of its root by the actor, if pending.
inline void trace_drop(Node* node) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] trace_drop_record(node);
}
// A Resolver handle now points at `node` (resolver.hpp): one more, unless
// the count is saturated.
inline void trace_count_resolver(Node* node) noexcept {
  if constexpr (trace::kTraceHooks)
    node->resolvers = static_cast<std::uint16_t>(node->resolvers + (node->resolvers != kResolversSaturated));
}
// A Resolver handle on `node` ends (destroyed, or overwritten by
// assignment): one fewer, unless saturated; the last one's end while the
// root it settles is pending is a drop by the actor. Settling through a
// handle changes no count: the handle still exists.
inline void trace_drop_resolver(Node* node) {
  if constexpr (trace::kTraceHooks) {
    node->resolvers = static_cast<std::uint16_t>(node->resolvers - (node->resolvers != kResolversSaturated));
    if (trace_sink_on() != nullptr) [[unlikely]] {
      if (node->resolvers == 0) trace_drop_record(node);
    }
  }
}
// The actor signalled a primitive that nobody waits on (condition.hpp,
// semaphore.hpp, mailbox.hpp, stream.hpp); `object` is the primitive's
// number, given here the first time.
inline void trace_no_waiter(trace::ObjectId& object, trace::Reason reason) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (object == trace::kNoObject) object = g_next_object++;
    if (!try_append<RecordCode::no_waiter>(static_cast<std::uint8_t>(reason), g_runtime.actor, object, 0))
      trace_no_waiter_slow(object, reason);
  }
}
// `waiter`, a blocking call's new thread, joined the queue of primitive
// `object` (wait_queue.hpp); nothing while the primitive has no number.
inline void trace_queued(const Node* waiter, trace::ObjectId object) {
  if constexpr (trace::kTraceHooks) if (trace_sink_on() != nullptr) [[unlikely]] {
    if (object != trace::kNoObject && !try_append<RecordCode::queued>(0, waiter->id, object, 0))
      trace_queued_slow(waiter->id, object);
  }
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
