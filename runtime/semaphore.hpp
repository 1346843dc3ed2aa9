// semaphore.hpp — Semaphore: a count of permits, taken by acquire() and
// given back by release(), served first come, first served.
//
// acquire() is fulfilled at once when a permit is free, else when a
// release() hands one over; release() gives its permit straight to the
// oldest waiter, or adds it to the count when nobody waits. Lwt has no
// semaphore in its core; this one behaves like Lwt_mutex with a count (a
// Semaphore(1) is a Mutex), and, like it, checks nothing about who releases.
//
//   Invariant: waiters_ is empty unless count_ is 0.
//
// Tracing (wait_queue.hpp): an acquire that waits is a thread of kind
// semaphore; the hand-over records notify(releaser's thread -> that waiter,
// semaphore) before the resolve. A cancelled acquire() is unlinked and never
// receives a permit. The semaphore must outlive its waiters' calls.
//
// Lost wake-ups: a Semaphore does not drop one. A release with nobody
// waiting keeps its permit in the count, and the next acquire takes it at
// once; it records no-waiter(releaser's thread, this semaphore's number,
// semaphore), which numbers the semaphore, and every acquire that waits
// after that records queued(waiter, number), so a trace shows a permit
// given back early. A semaphore destroyed with acquires waiting records a
// drop for each.
#pragma once

#include <cassert>
#include <cstddef>
#include <source_location>

#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"
#include "runtime/wait_queue.hpp"

namespace skein {

class Semaphore {
 public:
  explicit Semaphore(std::size_t permits) : count_(permits) {}
  Semaphore(const Semaphore&) = delete;  // waiters point at the queue
  Semaphore& operator=(const Semaphore&) = delete;

  // Fulfilled when the caller holds a permit. Cancelable while waiting.
  [[nodiscard]] Promise<void> acquire(std::source_location site = std::source_location::current()) {
    if (try_acquire()) return resolved();
    return detail::enqueue_waiter(waiters_, trace_object_, site);
  }

  // Takes a permit if one is free; never waits.
  [[nodiscard]] bool try_acquire() noexcept {
    check_invariants();
    if (count_ == 0) return false;
    --count_;
    return true;
  }

  // Gives a permit to the oldest waiter, or back to the count (a no-waiter).
  void release() {
    check_invariants();
    if (PermitWaiter* next = waiters_.pop_pending()) {
      detail::wake_queued(next, trace::Reason::semaphore);
    } else {
      ++count_;
      detail::trace_no_waiter(trace_object_, trace::Reason::semaphore);
    }
  }

  // Free permits.
  [[nodiscard]] std::size_t count() const noexcept { return count_; }
  // Waiting acquire() calls, for tests and diagnostics.
  [[nodiscard]] std::size_t waiters() const noexcept { return waiters_.size(); }

 private:
  using PermitWaiter = detail::QueuedNode<void, trace::Kind::semaphore>;
  void check_invariants() const noexcept {  // debug builds; at the start of an operation
    assert(waiters_.empty() || count_ == 0);
    waiters_.check();
  }
  std::size_t count_;
  detail::WaitQueue<PermitWaiter> waiters_;
  trace::ObjectId trace_object_ = trace::kNoObject;  // its number, from its first no-waiter
};

}  // namespace skein
