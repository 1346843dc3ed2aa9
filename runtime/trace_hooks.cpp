// trace_hooks.cpp — the recording halves of the trace hooks (trace_hooks.hpp):
// reached only with a sink set, and only for records the sink's record window
// (trace_record.hpp) did not take inline: every record of a plain sink, the
// rare ones of a buffering sink.
#include "runtime/trace_hooks.hpp"

#include <exception>
#include <string>

namespace skein::detail {

void trace_spawn_slow(const Node* child, const std::source_location& site) {
  trace::detail::g_trace_sink->spawn(child->id, g_runtime.actor, child->ops->kind, site);
}
void trace_wait_slow(ThreadId waiter, const Node* input) {
  if (trace_named(input)) trace::detail::g_trace_sink->wait(waiter, input->id);
}
void trace_read_slow(ThreadId reader, const Node* input) {
  if (trace_named(input)) trace::detail::g_trace_sink->read(reader, input->id);
}
void trace_notify_slow(ThreadId sender, const Node* receiver, trace::Reason reason) {
  trace::detail::g_trace_sink->notify(sender, receiver->id, reason);
}
void trace_notify_id_slow(ThreadId sender, ThreadId receiver, trace::Reason reason) {
  trace::detail::g_trace_sink->notify(sender, receiver, reason);
}
void trace_merge_slow(ThreadId thread, ThreadId into) { trace::detail::g_trace_sink->merge(thread, into); }
void trace_switch_slow(ThreadId thread) { trace::detail::g_trace_sink->switch_to(thread); }
void trace_label_slow(ThreadId thread, std::string_view text) { trace::detail::g_trace_sink->label(thread, text); }
void trace_counter_slow(std::string_view name, std::int64_t value) { trace::detail::g_trace_sink->counter(name, value); }
void trace_idle_slow() { trace::detail::g_trace_sink->idle(); }
void trace_should_resolve_slow(ThreadId thread) { trace::detail::g_trace_sink->should_resolve(thread); }
void trace_drop_slow(ThreadId thread) { trace::detail::g_trace_sink->drop(thread, g_runtime.actor); }
void trace_no_waiter_slow(trace::ObjectId object, trace::Reason reason) {
  trace::detail::g_trace_sink->no_waiter(g_runtime.actor, object, reason);
}
void trace_queued_slow(ThreadId waiter, trace::ObjectId object) {
  trace::detail::g_trace_sink->queued(waiter, object);
}

void trace_resolve_slow(const Node* node) {
  if (!trace_named(node)) return;
  trace::Sink* sink = trace::detail::g_trace_sink;
  if (node->state == NodeState::fulfilled) {
    sink->resolve(node->id, g_runtime.actor, trace::Outcome::ok, {});
    return;
  }
  if (node->flags & kCanceled) {
    sink->resolve(node->id, g_runtime.actor, trace::Outcome::cancel, {});
    return;
  }
  std::string message;
  try {
    std::rethrow_exception(node->error);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "non-standard exception";
  }
  sink->resolve(node->id, g_runtime.actor, trace::Outcome::fail, message);
}

}  // namespace skein::detail
