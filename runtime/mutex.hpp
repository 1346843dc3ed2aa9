// mutex.hpp — Mutex (Lwt_mutex) and with_lock.
//
// lock() is fulfilled at once when the mutex is free, else when every
// earlier waiter has had it. unlock() hands the mutex straight to the oldest
// waiter, which is then its holder (the mutex never looks free in between),
// or frees it when nobody waits. As in Lwt, unlock() on a free mutex does
// nothing, and nothing checks that the thread unlocking is the one that
// locked (threads here are promises; the holder is whoever was told so).
//
//   Invariant: waiters_ is empty unless locked_.
//
// Tracing (wait_queue.hpp): a lock that waits is a thread of kind mutex; the
// hand-over records notify(unlocker's thread -> that waiter, mutex) before
// the resolve. A cancelled lock() is unlinked and never receives the mutex;
// a lock() already fulfilled holds it, cancelled or not, and must unlock.
// The mutex must outlive its waiters' calls.
//
// Lost wake-ups: a Mutex does not drop one (an unlock with nobody waiting
// frees it, and the next lock takes it at once), and, unlike the other
// primitives, records no no-waiter for it: an unlock with nobody waiting is
// the common case of every lock and says nothing. So a mutex never gets a
// number and its waits record no queued. A mutex destroyed with locks
// waiting records a drop for each.
#pragma once

#include <cassert>
#include <source_location>
#include <type_traits>
#include <utility>

#include "runtime/bind.hpp"
#include "runtime/finally.hpp"
#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"
#include "runtime/wait_queue.hpp"

namespace skein {

class Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;  // waiters point at the queue
  Mutex& operator=(const Mutex&) = delete;

  // Fulfilled when the caller holds the mutex. Cancelable while waiting.
  [[nodiscard]] Promise<void> lock(std::source_location site = std::source_location::current()) {
    check_invariants();
    if (!locked_) {
      locked_ = true;
      return resolved();
    }
    return detail::enqueue_waiter(waiters_, trace::kNoObject, site);  // no number: see above
  }

  // Hands the mutex to the oldest waiter, or frees it.
  void unlock() {
    check_invariants();
    if (!locked_) return;  // as Lwt_mutex.unlock
    if (LockWaiter* next = waiters_.pop_pending()) detail::wake_queued(next, trace::Reason::mutex);
    else locked_ = false;
  }

  [[nodiscard]] bool is_locked() const noexcept { return locked_; }
  // Waiting lock() calls, for tests and diagnostics.
  [[nodiscard]] std::size_t waiters() const noexcept { return waiters_.size(); }

 private:
  using LockWaiter = detail::QueuedNode<void, trace::Kind::mutex>;
  void check_invariants() const noexcept {  // debug builds; at the start of an operation
    assert(waiters_.empty() || locked_);
    waiters_.check();
  }
  bool locked_ = false;
  detail::WaitQueue<LockWaiter> waiters_;
};

// Runs f() (returning a promise) with `m` held, and unlocks when f's promise
// settles, whatever its outcome, or when f throws (Lwt_mutex.with_lock).
// Cancelling the result before the lock is taken withdraws the lock request;
// after, it goes to f's promise, and the mutex is unlocked when that settles.
template <class F>
[[nodiscard]] auto with_lock(Mutex& m, F&& f, std::source_location site = std::source_location::current()) {
  using Q = std::invoke_result_t<std::decay_t<F>&>;
  static_assert(is_promise_v<Q>, "skein::with_lock: f must return a skein::Promise");
  return m.lock(site).then(
      [&m, fn = std::decay_t<F>(std::forward<F>(f)), site]() mutable -> Q {
        try {
          Q q = fn();
          return finally(q, [&m] { m.unlock(); }, site);
        } catch (...) {
          m.unlock();
          throw;
        }
      },
      site);
}

}  // namespace skein
