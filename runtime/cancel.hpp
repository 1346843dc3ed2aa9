// cancel.hpp — cancel(p) and on_cancel(p, f), with Lwt's rules.
//
// cancel(p) walks back from p to what it waits on (cancel_ops.hpp): a bind,
// map, catch or finally promise passes it to its input (or, after a
// tail-merge, to the promise merged into it), join/all/choose/pick to all
// their pending inputs; task(), pause() and sleep() promises are settled with
// skein::Canceled; wait() promises and settled ones ignore it. The rejection
// then flows forwards through the ordinary callbacks.
//
// on_cancel(p, f) calls f() when p is rejected by a cancellation (at once if
// it already was). It runs in order with p's other callbacks; an exception
// from f goes to the async exception hook (async.hpp).
#pragma once

#include <type_traits>
#include <utility>

#include "runtime/async.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/promise.hpp"
#include "runtime/settle.hpp"

namespace skein {

template <class T>
void cancel(const Promise<T>& p) {
  if (p.valid()) detail::cancel_node(p.node());
}

namespace detail {

template <class F>
struct CancelCallback final : Waiter {
  explicit CancelCallback(F&& fn) : callback(std::move(fn)) {}
  F callback;

  static void fire(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* self = static_cast<CancelCallback*>(w);
    if (event != WaitEvent::detach && (settled->flags & kCanceled)) self->call();
    self->~CancelCallback();
    node_pool::deallocate(self, sizeof(CancelCallback));
  }
  void call() noexcept {
    try {
      callback();
    } catch (...) {
      report_async_failure(std::current_exception());
    }
  }
};

}  // namespace detail

template <class T, class F>
void on_cancel(const Promise<T>& p, F&& f) {
  using Fn = std::decay_t<F>;
  using Holder = detail::CancelCallback<Fn>;
  detail::Node* root = detail::root_of(p);
  if (root->state != detail::NodeState::pending) {
    if (root->flags & detail::kCanceled) {
      Holder now(Fn(std::forward<F>(f)));
      now.call();
    }
    return;
  }
  void* memory = detail::node_pool::allocate(sizeof(Holder));
  Holder* holder;
  try {
    holder = ::new (memory) Holder(Fn(std::forward<F>(f)));
  } catch (...) {
    detail::node_pool::deallocate(memory, sizeof(Holder));
    throw;
  }
  holder->on_event = &Holder::fire;
  detail::attach_waiter(root, holder);
}

}  // namespace skein
