// notify.hpp — skein::notify(thread[, reason]): an explicit record of a
// wake-up the runtime cannot see.
//
// The runtime records every hand-over it performs itself (a resolve, a
// timer, I/O, a yield, a put into a mailbox). Communication outside it is
// invisible: a plain flag one thread sets and another polls, a callback from
// a C library, a slot in a ring shared with a device. When a thread later
// acts on such a signal, nothing in the trace links the signal to it: the
// thread seems to act on its own (woken by its own yield, say, when it
// polls), or, if nothing recorded woke it, a trace analysis (`skein lint`,
// missing-notification) reports a transfer with no cause. Calling
// notify(t) (or notify(t, reason)) where the signal is given, in the thread
// that gives it, records
//
//   (notify TIME SENDER RECEIVER external)       ; or REASON
//
// with SENDER the current thread (current_thread(): a callback's thread, -1
// in the loop, 0 in main code) and RECEIVER t, which is what the analysis
// needs to explain t's next step.
//
// The reason names the kind of signal, as the runtime's own notifies do
// (trace_sink.hpp); a program gives one of two:
//   external  (the default) any signal: a flag, a C library's callback;
//   request   a request put where the thread that serves it takes it (a
//             ring slot shared with a device, a queue the runtime does not
//             own), recorded when the server is told: the request is the
//             cause of the server's next turn (samples/blockread: the
//             frontend's request to the backend).
// Any other reason (timer, io, yield, the sync primitives') names a wake-up
// the runtime performs and records itself, and the analyses treat a
// `yield` as the receiver's own; notify refuses them with
// std::invalid_argument, whether a sink is set or not.
//
// notify changes nothing else: it does not wake, settle or schedule
// anything, and with no sink set it costs one branch (and the reason's
// check, which folds away for a constant reason).
// A notify to a thread that has settled already is recorded all the same
// (`skein lint` reports it as late-notify: a signal nobody can act on).
//
// Which id is recorded: for a Promise, the id its thread has now (after a
// tail-merge, the newest identity of the merged thread, the one whose
// callbacks run next, as Promise::id gives). A constant (resolved(),
// failed()) is not a thread and records nothing. The ThreadId overload
// records the id as given, for code that kept only an id (current_thread()
// taken by the waiting thread); ids below -1 name no thread and record
// nothing.
#pragma once

#include <stdexcept>
#include <string>

#include "runtime/actor.hpp"
#include "runtime/promise.hpp"
#include "runtime/thread_id.hpp"
#include "runtime/trace_hooks.hpp"
#include "runtime/trace_sink.hpp"

namespace skein {

namespace detail {
inline void check_notify_reason(trace::Reason reason) {
  if (reason != trace::Reason::external && reason != trace::Reason::request)
    throw std::invalid_argument("skein::notify: reason " + std::string(trace::reason_name(reason)) +
                                " is the runtime's own; a program gives external or request");
}
}  // namespace detail

template <class T>
void notify(const Promise<T>& thread, trace::Reason reason = trace::Reason::external) {
  if (!thread.valid()) throw std::logic_error("skein::notify: empty promise (default-constructed or moved from)");
  detail::check_notify_reason(reason);
  const detail::Node* root = detail::underlying(thread.node());
  if (detail::trace_named(root)) detail::trace_notify(detail::g_runtime.actor, root, reason);
}

inline void notify(ThreadId thread, trace::Reason reason = trace::Reason::external) {
  detail::check_notify_reason(reason);
  if (thread < trace::kScheduler) return;
  detail::trace_notify_id(detail::g_runtime.actor, thread, reason);
}

}  // namespace skein
