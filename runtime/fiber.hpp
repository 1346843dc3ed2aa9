// fiber.hpp — stackful fibers: spawn_fiber(f) runs f on a stack of its own as
// a thread of kind fiber, and inside it await(p) blocks until p settles.
//
// spawn_fiber(f) returns a Promise<R> of f's result (R is what f returns,
// void allowed). The fiber runs at once, as Lwt's `async` does: the caller is
// suspended until the fiber first blocks in await or finishes, and then gets
// the promise. An exception escaping f rejects the promise (a skein::Canceled
// one with outcome cancel, outcome.hpp); nothing escapes into the caller.
//
// await(p), in the fiber's own code: if p has settled, returns its value or
// rethrows its error at once. Otherwise the fiber's waiter is linked into
// p's waiter list and the fiber switches back to whoever resumed it. When p
// settles, the waiter runs inside the resolver and only queues the fiber on
// the scheduler's ready queue; the loop resumes it from there (so a fiber
// runs only from its spawn or from the loop, never nested in a resolver's
// callbacks, and a resolve costs the same whether a fiber waits or not).
// await outside a fiber returns a settled promise's value and throws
// std::logic_error for a pending one; so does await from a callback or
// coroutine that happens to run on a fiber's stack (it is not the fiber).
// Block with await, never with run(): the loop would run on the fiber's
// small stack, or throw if it is already running.
//
// What the trace shows (OVERVIEW.md, section 9):
//   spawn F parent fiber, switch F        the fiber starts, on its stack
//   wait F p, switch C                    it blocks; back to its resumer C
//                                         (the spawner, or -1 for the loop)
//   resolve p ..., later switch F         the loop resumes it: explained by
//                                         the resolve of what it waits on
//   read F p                              it consumes p's outcome
//   resolve F F ok|fail|cancel, switch C  it finished (the promise is settled
//                                         on the resumer's stack, as F)
// The actor is F while the fiber's code runs and is restored when it blocks.
//
// Cancellation: cancel() on a fiber's promise while the fiber is blocked on
// p is passed on to p, as a bind passes it to its input; if p is cancelable
// it is rejected with Canceled, the fiber wakes up and its await throws
// Canceled. A fiber that is running or ready to run is not interrupted.
//
// Invariants:
//   1. a fiber holds one reference on its own node from its start until it
//      has finished and settled its promise, so its stack and context live
//      exactly as long as it runs; a finished fiber's stack goes back to the
//      pool (fiber_stack_pool.hpp) before its promise's callbacks run;
//   2. a fiber blocks only in await, only in its own code (actor == its id),
//      and is then linked into exactly one waiter list or queued once;
//   3. await holds what it waits on, so that promise cannot die pending:
//      the waiter never sees WaitEvent::detach;
//   4. while a fiber runs, callbacks nest at most kFiberCallbackDepth deep on
//      its stack before the depth limit defers them (settle.hpp);
//   5. each fiber keeps its own C++ exception-handling state (the chain of
//      exceptions being caught), swapped in and out with the fiber.
// Limitation: a fiber blocked on a promise that nothing will ever settle is
// never freed (its own reference, invariant 1), like an OS thread blocked
// forever; run() reports that situation as a deadlock.
#pragma once

#include <cassert>
#include <cstddef>
#include <functional>
#include <source_location>
#include <type_traits>
#include <utility>

#include <boost/context/fiber.hpp>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

#include "runtime/actor.hpp"
#include "runtime/bind.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/fiber_stack_pool.hpp"
#include "runtime/outcome.hpp"
#include "runtime/promise.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

// How deep callbacks may nest on a fiber's (small) stack before the rest are
// deferred to the loop; the loop's own stack allows kMaxCallbackDepth. (16
// nested map callbacks, with a trace sink, take about 5 KiB of stack in a
// debug build and 9 KiB under ASan: a small part of the default stack.)
inline constexpr int kFiberCallbackDepth = 16;

namespace detail {

inline constexpr int kFiberBaseDepth = kMaxCallbackDepth - kFiberCallbackDepth;

// AddressSanitizer must be told of every switch between stacks, or it takes a
// fiber's frames for a wild stack pointer (an exception thrown on a fiber
// would then leave stale poison behind): start on the old stack just before
// the switch, finish on the new one just after. Nothing without ASan.
inline void asan_start_switch([[maybe_unused]] void** fake_stack, [[maybe_unused]] const void* low,
                              [[maybe_unused]] std::size_t size) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_start_switch_fiber(fake_stack, low, size);
#endif
}
inline void asan_finish_switch([[maybe_unused]] void* fake_stack, [[maybe_unused]] const void** old_low,
                               [[maybe_unused]] std::size_t* old_size) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_finish_switch_fiber(fake_stack, old_low, old_size);
#endif
}

// The part of a fiber that depends on neither its function nor its result:
// the waiter it blocks with, its continuations and the bookkeeping of a
// switch. fiber.cpp does every switch.
class FiberCore : public Waiter {
 public:
  FiberCore(const FiberCore&) = delete;
  FiberCore& operator=(const FiberCore&) = delete;

  // Runs the fiber until it blocks or finishes; then finishes it if it did.
  // The caller has made the fiber the actor and recorded the switch to it.
  void run_until_blocked();
  // In the fiber: switches back to whoever resumed it, until resumed again.
  // Inline, like await: after the switch back the fiber's code then returns
  // through no frames of the runtime, whose return addresses the processor
  // would mispredict (they were pushed on another stack).
  [[gnu::always_inline]] void suspend() {
    asan_start_switch(&asan_fake_stack, asan_resumer_low, asan_resumer_size);
    resumer = std::move(resumer).resume();
    asan_finish_switch(asan_fake_stack, &asan_resumer_low, &asan_resumer_size);
  }

  ThreadId thread;  // the fiber's id (its node's id, which never changes)
  // Set by the typed node:
  void (*body)(FiberCore*) = nullptr;    // on the fiber's stack: runs f, keeps the outcome
  void (*finish)(FiberCore*) = nullptr;  // on the resumer's stack, as the fiber: settles, drops invariant 1's reference

  boost::context::fiber context;  // the fiber while switched out; empty while it runs and once finished
  boost::context::fiber resumer;  // inside the fiber: whoever resumed it
  FiberStack stack;

  // The fiber's exception-handling globals while it is switched out (fiber.cpp).
  void* eh_caught = nullptr;
  unsigned int eh_uncaught = 0;
  // AddressSanitizer's view of the switches (fiber.cpp; unused without it).
  void* asan_fake_stack = nullptr;
  const void* asan_resumer_low = nullptr;
  std::size_t asan_resumer_size = 0;

 protected:
  explicit FiberCore(ThreadId id) noexcept;
  ~FiberCore();
};

// The waiter callback of every fiber (fiber.cpp).
void fiber_on_event(Waiter* w, Node* settled, WaitEvent event) noexcept;

// Allocates the fiber's stack, records spawn and the switch, and runs it
// until it first blocks or finishes (fiber.cpp). `node` is the fiber's node.
void start_fiber(FiberCore* core, Node* node, const std::source_location& site);

// The fiber whose stack we are on; null on the OS thread's own stack.
inline FiberCore* g_current_fiber = nullptr;

// The std::logic_error of an await that cannot block (fiber.cpp).
[[noreturn, gnu::cold]] void throw_cannot_block();

// Blocks the current fiber until the pending root `input` settles (or until
// the root it is merged into does). Throws std::logic_error outside a fiber.
[[gnu::always_inline]] inline void await_pending(Node* input) {
  FiberCore* const self = g_current_fiber;
  if (self == nullptr || g_runtime.actor != self->thread) [[unlikely]]
    throw_cannot_block();
  assert(g_runtime.depth == kFiberBaseDepth);
  attach_waiter(input, self);
  trace_wait(self->thread, input);
  self->suspend();
}

template <class R, class F>
struct FiberNode final : NodeT<R>, FiberCore {
  FiberNode(const NodeOps* node_ops, F&& f)
      : NodeT<R>(node_ops, next_thread_id()), FiberCore(this->id), fn(std::move(f)) {
    body = &run_body;
    finish = &finish_as_fiber;
  }
  ~FiberNode() {
    if (fn_alive) fn.~F();
  }

  void drop_fn() noexcept {
    fn.~F();
    fn_alive = false;
  }

  static void run_body(FiberCore* core) {
    auto* self = static_cast<FiberNode*>(core);
    try {
      if constexpr (std::is_void_v<R>) {
        std::invoke(self->fn);
        self->outcome.set_value();
      } else {
        self->outcome.set_value(std::invoke(self->fn));
      }
    } catch (const boost::context::detail::forced_unwind&) {
      // Defensive: boost unwinds a fiber destroyed while switched out, which
      // invariant 1 rules out; let it through all the same.
      self->drop_fn();
      throw;
    } catch (...) {
      self->outcome.error = std::current_exception();
    }
    self->drop_fn();  // f's captures die on the fiber, as the fiber
  }

  static void finish_as_fiber(FiberCore* core) {
    auto* self = static_cast<FiberNode*>(core);
    settle_with<R>(self, std::move(self->outcome));
    release(self);  // invariant 1: may free the node
  }

  union {
    F fn;
  };
  bool fn_alive = true;
  Outcome<R> outcome;
};

template <class R, class F>
inline constexpr NodeOps fiber_ops{&destroy_as<FiberNode<R, F>>, &cancel_through_link<FiberNode<R, F>>,
                                   trace::Kind::fiber};

}  // namespace detail

// Runs f() on a fiber of its own, now; see the top of this file.
template <class F>
[[nodiscard]] auto spawn_fiber(F&& f, std::source_location site = std::source_location::current()) {
  using Fn = std::decay_t<F>;
  using R = std::remove_cvref_t<std::invoke_result_t<Fn&>>;
  static_assert(!is_promise_v<R>,
                "skein::spawn_fiber: f returns a promise; await it inside the fiber and return its value");
  using Node = detail::FiberNode<R, Fn>;
  auto* node = detail::make_node<Node>(&detail::fiber_ops<R, Fn>, Fn(std::forward<F>(f)));
  Promise<R> result = Promise<R>::adopt(node);
  detail::start_fiber(node, node, site);
  return result;
}

// The value of p, blocking the current fiber until p settles; see the top of
// this file. Rethrows p's error.
template <class T>
[[gnu::always_inline]] inline T await(const Promise<T>& p) {
  detail::NodeT<T>* root = detail::root_of(p);
  if (root->state == detail::NodeState::pending) {
    const Promise<T> hold = p;  // invariant 3
    detail::await_pending(root);
    return detail::read_outcome<T>(detail::g_runtime.actor, detail::underlying(hold.node()), false);
  }
  return detail::read_outcome<T>(detail::g_runtime.actor, root, false);
}

// True in a fiber's own code, where await can block.
[[nodiscard]] bool in_fiber() noexcept;

namespace detail {
// The stack of the fiber whose code is running (empty outside fibers); for
// tests and diagnostics.
[[nodiscard]] FiberStack current_fiber_stack() noexcept;
}  // namespace detail

}  // namespace skein
