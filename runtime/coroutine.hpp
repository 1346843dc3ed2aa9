// coroutine.hpp — Promise<T> as the return type of a C++20 coroutine:
// `co_await p` on any Promise<U>, `co_return v`.
//
// Each call of a coroutine function is a thread of kind coroutine (spawn
// record, parent: the caller). It starts eagerly, as an Lwt function does:
// the body runs as part of the call until its first co_await on a pending
// promise, and the caller then gets the promise. It reads as straight-line
// code and behaves as the chain of binds it abbreviates:
//
//   co_await p, p settled     the value (or p's error, thrown), read C p;
//   co_await p, p pending     wait C p; the coroutine suspends and the actor
//                             goes back to whoever ran it;
//   p settles                 the coroutine resumes inside p's resolver, as
//                             a bind callback does (read C p, actor C): the
//                             resolve of p explains it. Past the depth limit
//                             (settle.hpp) it resumes from the loop's ready
//                             queue instead, and the loop records switch C,
//                             so a chain of coroutines awaiting one another
//                             runs in bounded stack;
//   co_return v / throw       the frame is destroyed, then the promise is
//                             settled by C (resolve C C ok|fail|cancel) and
//                             its callbacks run.
// There are no switch records of the coroutine's own: it never leaves the
// stack it was resumed on (unlike a fiber, fiber.hpp, which the loop resumes
// from its ready queue). An escaping skein::Canceled settles with outcome
// cancel (outcome.hpp). co_await accepts only skein::Promise: every
// suspension must be one the runtime sees and records.
//
// The call site. A promise_type cannot see where the coroutine was called
// from, so the spawn record's site is, by default, the one the compiler
// gives a defaulted std::source_location of get_return_object: the
// coroutine's own definition (GCC 12: its closing brace, with the coroutine's
// name as function_name()). To record the caller's line instead, give the
// coroutine a parameter `std::source_location site =
// std::source_location::current()`: the promise's constructor sees the
// coroutine's arguments and takes the last std::source_location among them.
//
// Frames come from the default allocator; nodes from the node pool.
//
// Cancellation: cancel() on a coroutine's promise while it is suspended on p
// is passed on to p, as for a bind; if p is cancelable it is rejected with
// Canceled and the coroutine's co_await throws it.
//
// Invariants:
//   1. the frame holds one reference on the coroutine's node until the
//      coroutine has finished; the node stands for the frame in the waiter
//      list of what it awaits (the list holds no reference of its own);
//   2. the awaiter holds the promise awaited, so it cannot die pending: the
//      waiter never sees WaitEvent::detach;
//   3. whoever resumes the coroutine saves the actor in `resumer` and makes
//      the coroutine the actor; each suspension (co_await, the end) gives the
//      saved actor back;
//   4. the frame is destroyed exactly once, at the final suspension, before
//      the promise's callbacks run; dropping the result promise does not stop
//      the coroutine (Lwt: nothing does but cancel), it frees itself when done.
// Limitation: a coroutine suspended on a promise that nothing will ever settle
// is never freed: its frame holds that promise (invariant 2), whose waiter
// list leads back to the frame, and no count sees the cycle.
#pragma once

#include <cassert>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <source_location>
#include <type_traits>
#include <utility>

#include "runtime/actor.hpp"
#include "runtime/bind.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/outcome.hpp"
#include "runtime/promise.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

// What a suspended coroutine waits with: the part of its node that does not
// depend on T.
struct CoroutineLink : Waiter {
  std::coroutine_handle<> handle;
  ThreadId thread = 0;   // the coroutine's id
  ThreadId resumer = 0;  // invariant 3
};

// The waiter callback of every coroutine: resume it, as it (invariant 3).
inline void coroutine_on_event(Waiter* w, Node*, WaitEvent event) noexcept {
  auto* link = static_cast<CoroutineLink*>(w);
  if (event == WaitEvent::detach) [[unlikely]] {
    assert(false && "skein: a suspended coroutine's promise died pending");  // defensive: invariant 2
    return;
  }
  link->resumer = g_runtime.actor;
  if (event == WaitEvent::fire_deferred) trace_switch(link->thread);
  g_runtime.actor = link->thread;
  link->handle.resume();  // may free link (the coroutine may finish)
}

template <class T>
struct CoroutineNode final : NodeT<T>, CoroutineLink {
  explicit CoroutineNode(const NodeOps* node_ops) : NodeT<T>(node_ops, next_thread_id()) {
    thread = this->id;
    on_event = &coroutine_on_event;
  }
};
template <class T>
inline constexpr NodeOps coroutine_ops{&destroy_as<CoroutineNode<T>>, &cancel_through_link<CoroutineNode<T>>,
                                       trace::Kind::coroutine};

// Coroutine frames alive now (for tests: a dropped result must not leak one).
inline std::size_t g_coroutine_frames = 0;
[[nodiscard]] inline std::size_t live_coroutine_frames() noexcept { return g_coroutine_frames; }

// co_await on a Promise<U>.
template <class U>
class PromiseAwaiter {
 public:
  PromiseAwaiter(Promise<U>&& awaited, CoroutineLink* link) noexcept : awaited_(std::move(awaited)), link_(link) {}

  bool await_ready() {
    // The body's code since it last resumed has run: the record this
    // co_await makes (a read or a wait) is stamped afresh, so its time
    // goes to this coroutine in the trace (trace_record.hpp).
    if constexpr (trace::kTraceHooks) trace::detail::g_user_code_returned = true;
    root_ = root_of(awaited_);
    return root_->state != NodeState::pending;
  }
  void await_suspend(std::coroutine_handle<>) noexcept {
    attach_waiter(root_, link_);
    trace_wait(link_->thread, root_);
    g_runtime.actor = link_->resumer;  // invariant 3
  }
  U await_resume() {
    // After a suspension root_ may have been merged into another root: read
    // what the awaited promise behaves as now.
    NodeT<U>* root = underlying(awaited_.node());
    const bool sole = root == awaited_.node() && root->refs == 1;
    return read_outcome<U>(link_->thread, root, sole);
  }

 private:
  Promise<U> awaited_;  // invariant 2
  CoroutineLink* link_;
  NodeT<U>* root_ = nullptr;
};

// How the body's end reaches the outcome: co_return v, or falling off the
// end of a void coroutine.
template <class T>
struct CoroutineReturn {
  Outcome<T> outcome;
  template <class V = T>
  void return_value(V&& value) {
    outcome.set_value(std::forward<V>(value));
  }
};
template <>
struct CoroutineReturn<void> {
  Outcome<void> outcome;
  void return_void() noexcept { outcome.set_value(); }
};

template <class T>
class CoroutinePromise final : public CoroutineReturn<T> {
 public:
  CoroutinePromise() noexcept { ++g_coroutine_frames; }
  // Sees the coroutine's arguments; keeps the last std::source_location.
  template <class A0, class... A>
  explicit CoroutinePromise(const A0& first, const A&... rest) noexcept : CoroutinePromise() {
    take_site(first);
    (take_site(rest), ...);
  }
  ~CoroutinePromise() {
    --g_coroutine_frames;
    if (node_ != nullptr) release(node_);  // defensive: the frame died before finishing
  }
  CoroutinePromise(const CoroutinePromise&) = delete;
  CoroutinePromise& operator=(const CoroutinePromise&) = delete;

  Promise<T> get_return_object(std::source_location fallback = std::source_location::current()) {
    auto* node = make_node<CoroutineNode<T>>(&coroutine_ops<T>);
    node->handle = std::coroutine_handle<CoroutinePromise>::from_promise(*this);
    add_ref(node);  // invariant 1
    node_ = node;
    trace_spawn(node, has_site_ ? site_ : fallback);
    return Promise<T>::adopt(node);
  }

  // Eager start: the body begins as the coroutine (invariant 3).
  struct Start {
    CoroutineLink* link;
    bool await_ready() const noexcept { return true; }
    void await_suspend(std::coroutine_handle<>) const noexcept {}
    void await_resume() const noexcept {
      link->resumer = g_runtime.actor;
      g_runtime.actor = link->thread;
    }
  };
  Start initial_suspend() noexcept { return Start{node_}; }

  struct End {
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<CoroutinePromise> frame) const noexcept { frame.promise().finish(frame); }
    void await_resume() const noexcept {}
  };
  End final_suspend() noexcept { return {}; }

  void unhandled_exception() noexcept { this->outcome.error = std::current_exception(); }

  template <class U>
  PromiseAwaiter<U> await_transform(Promise<U> awaited) noexcept {
    return PromiseAwaiter<U>(std::move(awaited), node_);
  }
  template <class A>
    requires(!is_promise_v<std::remove_cvref_t<A>>)
  std::suspend_never await_transform(A&&) {
    static_assert(is_promise_v<std::remove_cvref_t<A>>,
                  "skein: a coroutine returning skein::Promise can co_await only a skein::Promise<U>, so that "
                  "the runtime sees (and the trace records) every suspension");
    return {};
  }

 private:
  void take_site(const std::source_location& site) noexcept {
    site_ = site;
    has_site_ = true;
  }
  template <class X>
  void take_site(const X&) noexcept {}

  // The end (invariant 4): destroy the frame, then settle as the coroutine,
  // then give the actor back. Nothing here may touch *this after destroy.
  void finish(std::coroutine_handle<CoroutinePromise> frame) noexcept {
    CoroutineNode<T>* node = std::exchange(node_, nullptr);
    if constexpr (trace::kTraceHooks) trace::detail::g_user_code_returned = true;  // the body's last code ran
    Outcome<T> ended = std::move(this->outcome);
    frame.destroy();
    const ThreadId resumer = node->resumer;
    settle_with<T>(node, std::move(ended));
    g_runtime.actor = resumer;
    release(node);  // invariant 1
  }

  CoroutineNode<T>* node_ = nullptr;
  std::source_location site_;
  bool has_site_ = false;
};

}  // namespace skein::detail

template <class T, class... Args>
struct std::coroutine_traits<skein::Promise<T>, Args...> {
  using promise_type = skein::detail::CoroutinePromise<T>;
};
