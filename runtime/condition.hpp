// condition.hpp — Condition<T> (Lwt_condition): threads wait until another
// signals, optionally receiving a value of type T (void: no value).
//
// wait() is fulfilled by the next signal() (the oldest waiter only) or
// broadcast() (every thread waiting at the time). A condition has no memory:
// a signal with nobody waiting is lost, as in Lwt.
//
// wait(&m) is for the usual monitor pattern: the caller holds Mutex m; wait
// joins the queue, then unlocks m, and once woken locks m again before its
// promise settles, so the code after the wait runs holding m. As in Lwt
// (finalize), m is locked again however the wait for the signal ends: a
// wait(&m) cancelled before its signal is rejected with Canceled once it
// holds m again. Cancelled later, while it waits for m, the lock request is
// withdrawn too and the rejection comes without m (also as in Lwt).
//
// Tracing (wait_queue.hpp): a wait is a thread of kind condition, spawned at
// the caller's site; signal and broadcast record notify(signaller's thread ->
// each woken waiter, condition) before its resolve. With a mutex, the
// re-lock is a finalize thread waiting on the condition thread, and, if the
// mutex is taken, on a mutex thread. A cancelled wait is unlinked and never
// woken. The condition must outlive its waiters' calls.
//
// Lost wake-ups: a Condition is the one primitive that drops a wake-up. A
// signal or broadcast with nobody waiting is gone, and a thread that starts
// waiting just after it waits for the next one; so it records
// no-waiter(signaller's thread, this condition's number, condition), which
// numbers the condition, and every wait after that records queued(waiter,
// number). A condition destroyed with threads waiting records a drop for
// each (nothing can signal them now).
#pragma once

#include <cstddef>
#include <source_location>
#include <type_traits>
#include <utility>

#include "runtime/finally.hpp"
#include "runtime/mutex.hpp"
#include "runtime/promise.hpp"
#include "runtime/wait_queue.hpp"

namespace skein {

template <class T = void>
class Condition {
 public:
  Condition() = default;
  Condition(const Condition&) = delete;  // waiters point at the queue
  Condition& operator=(const Condition&) = delete;

  // Fulfilled by the next signal or broadcast (with its value). With a
  // mutex: unlocks it now and holds it again when the promise settles.
  // Cancelable while waiting.
  [[nodiscard]] Promise<T> wait(Mutex* m = nullptr, std::source_location site = std::source_location::current()) {
    waiters_.check();
    Promise<T> woken = detail::enqueue_waiter(waiters_, trace_object_, site);
    if (m == nullptr) return woken;
    m->unlock();
    return finally(woken, [m, site] { return m->lock(site); }, site);
  }

  // Wakes the oldest waiter; with none, the signal is lost (a no-waiter).
  void signal()
    requires std::is_void_v<T>
  {
    if (CondWaiter* w = waiters_.pop_pending()) detail::wake_queued(w, trace::Reason::condition);
    else detail::trace_no_waiter(trace_object_, trace::Reason::condition);
  }
  template <class V>
    requires(!std::is_void_v<T> && std::is_constructible_v<T, V &&>)
  void signal(V&& value) {
    if (CondWaiter* w = waiters_.pop_pending()) detail::wake_queued(w, trace::Reason::condition, std::forward<V>(value));
    else detail::trace_no_waiter(trace_object_, trace::Reason::condition);
  }

  // Wakes every thread waiting now, oldest first (each gets a copy of the
  // value). Threads that start waiting meanwhile (in woken code) wait for the
  // next signal; the condition may be destroyed by woken code. With nobody
  // waiting, the broadcast is lost (a no-waiter, recorded before anything
  // could destroy the condition).
  void broadcast()
    requires std::is_void_v<T>
  {
    if (waiters_.empty()) return detail::trace_no_waiter(trace_object_, trace::Reason::condition);
    detail::WaitQueue<CondWaiter> now;
    waiters_.move_all_to(now);
    while (CondWaiter* w = now.pop_pending()) detail::wake_queued(w, trace::Reason::condition);
  }
  template <class V>
    requires(!std::is_void_v<T> && std::is_constructible_v<T, const V&>)
  void broadcast(const V& value) {
    if (waiters_.empty()) return detail::trace_no_waiter(trace_object_, trace::Reason::condition);
    const T copy(value);  // `value` may live in the condition's owner
    detail::WaitQueue<CondWaiter> now;
    waiters_.move_all_to(now);
    while (CondWaiter* w = now.pop_pending()) detail::wake_queued(w, trace::Reason::condition, copy);
  }

  // Waiting threads, for tests and diagnostics.
  [[nodiscard]] std::size_t waiters() const noexcept { return waiters_.size(); }

 private:
  using CondWaiter = detail::QueuedNode<T, trace::Kind::condition>;
  detail::WaitQueue<CondWaiter> waiters_;
  trace::ObjectId trace_object_ = trace::kNoObject;  // its number, from its first no-waiter
};

}  // namespace skein
