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
//      record first); otherwise poll it without blocking, every
//      kIoPollInterval-th iteration only;
//   4. settle every promise paused before this iteration began.
// So a ready timer or I/O event waits at most kIoPollInterval iterations of
// a loop that keeps pausing, and each iteration costs its paused callbacks:
// the bound on I/O latency is kIoPollInterval times the longest run of
// callbacks one iteration makes, plus the time of one poll.
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

inline constexpr unsigned kIoPollInterval = 64;

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
