// notify.hpp — skein::notify(thread): an explicit record of a wake-up the
// runtime cannot see.
//
// The runtime records every hand-over it performs itself (a resolve, a
// timer, I/O, a yield, a put into a mailbox). Communication outside it is
// invisible: a plain flag one thread sets and another polls, a callback from
// a C library, a slot in a ring shared with a device. When a thread later
// acts on such a signal, nothing in the trace links the signal to it: the
// thread seems to act on its own (woken by its own yield, say, when it
// polls), or, if nothing recorded woke it, a trace analysis (`skein lint`,
// missing-notification) reports a transfer with no cause. Calling
// notify(t) where the signal is given, in the thread that gives it, records
//
//   (notify TIME SENDER RECEIVER external)
//
// with SENDER the current thread (current_thread(): a callback's thread, -1
// in the loop, 0 in main code) and RECEIVER t, which is what the analysis
// needs to explain t's next step. notify changes nothing else: it does not
// wake, settle or schedule anything, and costs one branch with no sink set.
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

#include "runtime/actor.hpp"
#include "runtime/promise.hpp"
#include "runtime/thread_id.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

template <class T>
void notify(const Promise<T>& thread) {
  if (!thread.valid()) throw std::logic_error("skein::notify: empty promise (default-constructed or moved from)");
  const detail::Node* root = detail::underlying(thread.node());
  if (detail::trace_named(root)) detail::trace_notify(detail::g_runtime.actor, root, trace::Reason::external);
}

inline void notify(ThreadId thread) {
  if (thread < trace::kScheduler) return;
  detail::trace_notify_id(detail::g_runtime.actor, thread, trace::Reason::external);
}

}  // namespace skein
