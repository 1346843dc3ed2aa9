// scheduler.hpp — the loop: run(p), pause(), sleep(d), and the io_context
// that later I/O code shares.
//
// run(p) runs the scheduler on the calling thread until p settles, then
// returns p's value or rethrows its error. One scheduler per process: a
// nested run, or a run from a second OS thread while one is active, throws
// std::logic_error. The runtime is single-threaded: promises may only be
// touched from the thread that runs the loop (or from main code between runs).
//
// One iteration of the loop (scheduler.cpp has the details):
//   1. run the ready queue: callbacks deferred past the depth limit;
//   2. stop if p has settled;
//   3. I/O: if nothing is paused, block in io_context::run_one (an idle
//      record first); otherwise poll it without blocking, if kIoPollPeriod
//      or more has passed since the last poll;
//   4. settle every promise paused before this iteration began.
// So a ready timer or I/O event waits for the iteration in progress to end,
// and then for at most kIoPollPeriod more of iterations shorter than that:
// an iteration that runs longer than kIoPollPeriod of callbacks (a thread
// working in slices between pauses) is always followed by a poll, as every
// iteration of Lwt_main.run is, while a loop of cheap pauses polls once per
// kIoPollPeriod instead of paying for a poll at every pause.
#pragma once

#include <chrono>
#include <cstddef>
#include <source_location>

#include "runtime/promise.hpp"
#include "runtime/trace_hooks.hpp"

namespace boost::asio {
class io_context;
}  // namespace boost::asio

namespace skein {

// How long a loop that keeps pausing goes without polling I/O. A poll that
// finds nothing costs 0.1-0.2 us with a timer armed (asio's locking and an
// epoll_wait of timeout 0), so polling once per 20 us costs such a loop at
// most 1% of its time, however cheap its iterations; and 20 us is far below
// the millisecond scale of timers and of the slices a cooperative thread
// works in, so what a ready event waits for is the iteration in progress,
// not this period.
inline constexpr std::chrono::microseconds kIoPollPeriod{20};

// The scheduler's io_context (created on first use, never destroyed).
[[nodiscard]] boost::asio::io_context& io_context();

// A promise fulfilled by the loop at its next iteration (notify yield);
// cancelable.
[[nodiscard]] Promise<void> pause(std::source_location site = std::source_location::current());

// A promise fulfilled by the loop once `duration` has passed (notify timer),
// on a boost::asio::steady_timer; cancelable (the timer is cancelled too).
[[nodiscard]] Promise<void> sleep(std::chrono::nanoseconds duration,
                                  std::source_location site = std::source_location::current());

namespace detail {

// Runs the loop until `node`'s root has settled; the caller's actor waits.
void run_until_settled(Node* node);

// Test hooks: deferred waiter lists waiting in the ready queue, paused promises.
[[nodiscard]] std::size_t ready_queue_size() noexcept;
[[nodiscard]] std::size_t paused_count() noexcept;

}  // namespace detail

template <class T>
T run(const Promise<T>& p) {
  if (!p.valid()) throw std::logic_error("skein::run: empty promise");
  detail::run_until_settled(p.node());
  detail::NodeT<T>* root = detail::underlying(p.node());
  detail::trace_read(detail::g_runtime.actor, root);
  if (root->state == detail::NodeState::rejected) std::rethrow_exception(root->error);
  if constexpr (!std::is_void_v<T>) return static_cast<const T&>(root->value);
}

}  // namespace skein
