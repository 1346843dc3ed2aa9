// settle.hpp — settling a pending node, and running its callbacks inside the
// resolver with a depth limit.
//
// fulfill() and reject() are the only pending -> fulfilled | rejected
// transitions. They take the waiter list, store the outcome, record the
// resolve, then call the waiters in the order they were attached. Callbacks
// that settle more nodes nest; past kMaxCallbackDepth nested resolutions the
// waiters of the node being settled go to the scheduler's ready queue
// instead, so a million-long bind chain costs a bounded stack.
//
// Invariants when a waiter's callback runs: its input is settled (fulfilled
// or rejected, never a proxy), the waiter is unlinked and its `input` null,
// and the callback owns the reference the list held on its owner.
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

#include "runtime/actor.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

inline constexpr int kMaxCallbackDepth = 64;

// Calls every waiter of the detached circular list `last` with `event`.
inline void run_waiters(Node* input, Waiter* last, WaitEvent event) noexcept {
  Waiter* w = last->next;  // the oldest
  last->next = nullptr;
  while (w != nullptr) {
    Waiter* next = w->next;  // the callback may relink w elsewhere
    w->input = nullptr;
    w->on_event(w, input, event);
    w = next;
  }
}

// Queues a settled node's waiters on the scheduler's ready queue (scheduler.cpp).
void defer_waiters(Node* input, Waiter* last);

inline void dispatch_waiters(Node* settled, Waiter* last) {
  if (last == nullptr) return;
  if (g_runtime.depth >= kMaxCallbackDepth) [[unlikely]] {
    defer_waiters(settled, last);
    return;
  }
  ++g_runtime.depth;
  run_waiters(settled, last, WaitEvent::fire);
  --g_runtime.depth;
}

// pending -> fulfilled. `root` must be a pending root (not a proxy).
template <class T, class... A>
void fulfill(NodeT<T>* root, A&&... value) {
  assert(root->state == NodeState::pending);
  Waiter* last = root->last;
  if constexpr (!std::is_void_v<T>) ::new (static_cast<void*>(&root->value)) T(std::forward<A>(value)...);
  root->state = NodeState::fulfilled;
  check_invariants(root);
  trace_resolve(root);
  dispatch_waiters(root, last);
}

void report_async_failure(const std::exception_ptr& error) noexcept;  // async.cpp

// pending -> rejected. `root` must be a pending root.
inline void reject(Node* root, std::exception_ptr error, bool canceled) {
  assert(root->state == NodeState::pending);
  Waiter* last = root->last;
  ::new (static_cast<void*>(&root->error)) std::exception_ptr(std::move(error));
  root->state = NodeState::rejected;
  if (canceled) root->flags |= kCanceled;
  check_invariants(root);
  trace_resolve(root);
  if (root->flags & kAsyncWatched) [[unlikely]] report_async_failure(root->error);
  dispatch_waiters(root, last);
}

// Gives `root` the outcome of `from` (settled, same T): copied, or moved when
// the caller says nobody else can read `from` (it holds the only reference).
template <class T>
[[gnu::always_inline]] inline void settle_like(NodeT<T>* root, NodeT<T>* from, bool may_move) {
  if (from->state == NodeState::rejected) {
    reject(root, from->error, (from->flags & kCanceled) != 0);
  } else if constexpr (std::is_void_v<T>) {
    fulfill(root);
  } else if (may_move) {
    fulfill(root, std::move(from->value));
  } else {
    fulfill(root, static_cast<const T&>(from->value));
  }
}

// Appends `w` to the waiters of the pending root `input`.
inline void attach_waiter(Node* input, Waiter* w) noexcept {
  assert(input->state == NodeState::pending);
  w->input = input;
  if (Waiter* last = input->last) {
    w->next = last->next;
    last->next = w;
  } else {
    w->next = w;
  }
  input->last = w;
}

// Moves all waiters of `from` after those of `into` (both pending roots).
inline void splice_waiters(Node* into, Node* from) noexcept {
  Waiter* from_last = from->last;
  if (from_last == nullptr) return;
  Waiter* w = from_last;
  do {
    w->input = into;
    w = w->next;
  } while (w != from_last);
  if (Waiter* into_last = into->last) {
    Waiter* into_first = into_last->next;
    into_last->next = from_last->next;
    from_last->next = into_first;
  }
  into->last = from_last;
  from->last = nullptr;
}

}  // namespace skein::detail
