// wait_queue.hpp — what the synchronisation primitives share (mutex.hpp,
// condition.hpp, mailbox.hpp, stream.hpp, semaphore.hpp): the pending promise
// a blocking call returns, the FIFO queue it waits in, and the wake-up that
// settles it. OVERVIEW.md, section 8, is the user's view.
//
// A blocking call (lock on a held mutex, take on an empty mailbox, ...) makes
// one QueuedNode: at once the promise it returns and, through intrusive
// links, an entry of the primitive's WaitQueue, in one pool allocation. The
// node's trace kind is the primitive's (mutex, condition, ...), spawned with
// the caller's site. It is cancelable: cancel unlinks it from its queue
// first, then settles it with Canceled, so a cancelled waiter is never handed
// the lock, a value or a permit, and nothing it carried is lost but its own
// (a cancelled put's value).
//
// A wake-up (wake_queued) records notify(actor -> the waiter's thread,
// reason), then settles the waiter's promise, and, as in Lwt, its callbacks
// run at once, on the waker's stack, inside put/unlock/signal. So every
// primitive finishes changing its state before it wakes anyone, and wakes
// at most one waiter per step (broadcast and close first move their waiters
// to a local queue): the woken code may call the primitive again, or destroy
// it.
//
// The stack guard. In a loop written with bind, such as
// `take().then(... put(...).then(loop))`, one side finds the other's answer
// already there on every round (the other side ran to its next block inside
// the put that woke it), so its bind calls the callback directly, and the
// next round nests inside this one. Lwt's bind makes that a tail call and
// the loop runs in constant stack; C++ has no such guarantee, so each round
// would add a few frames until the stack overflowed (sync_test.cpp runs a
// million rounds). Hence a budget: at most kSyncWakeBudget wake-ups in a row
// run their callbacks at once; the next one settles the waiter but queues
// its callbacks on the scheduler's ready queue, which unwinds the stack to
// the loop (a `switch` record, as past the depth limit), and the loop's
// running them refills the budget. The cost is one trip through the loop per
// kSyncWakeBudget wake-ups. What was handed over (a value, the lock, a
// permit) belongs to the waiter from the moment its promise is settled,
// whether its callbacks run then or later.
//
// Lost wake-ups. Two ways a waiter can end up never woken are recorded at
// their source. A signal, release, put or push with nobody waiting records
// no-waiter(actor, the primitive's number, reason): the primitive is given
// a number (trace::ObjectId) by that first record, and from then on each
// waiter that joins one of its queues records queued(waiter, number), so a
// trace shows which waits came after a signal that found nobody
// (enqueue_waiter takes the number; a primitive that never missed a waiter
// passes trace::kNoObject and records no queued). Each primitive's header
// says what a signal with nobody waiting does to it: only a Condition loses
// it; the others keep what was given. And a queue that dies with waiters
// in it (invariant 4) records drop(waiter, actor) for each: nothing can
// wake them now.
//
// Invariants:
//   1. A node is in at most one queue: `queue` is that queue or null, and the
//      queue holds one reference on each node in it.
//   2. A queued node's root is pending: whatever settles it (a wake-up, a
//      cancel) unlinks it first. pop_pending still skips a settled one, as a
//      defensive branch.
//   3. A primitive's state is complete before any callback runs (a wake-up
//      or a cancellation is the last step of an operation, or of one
//      iteration of broadcast/close over a local queue).
//   4. A queue that dies with nodes in it lets them go pending (Lwt: the
//      waiters of a collected mvar sleep forever), each recorded as a drop
//      by the actor; they stay cancelable.
//   5. 0 <= g_sync_wake_budget <= kSyncWakeBudget; it only grows back when
//      the loop runs a deferred wake-up (the stack is at its bottom then).
#pragma once

#include <cassert>
#include <cstddef>
#include <exception>
#include <source_location>
#include <type_traits>
#include <utility>

#include "runtime/actor.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/promise.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

struct NoExtra {};

template <class N>
class WaitQueue;

// A waiter of a primitive: a pending NodeT<T> of trace kind K, linked into a
// WaitQueue, carrying `extra` (a blocked put's value; NoExtra otherwise).
template <class T, trace::Kind K, class Extra = NoExtra>
struct QueuedNode final : NodeT<T> {
  using value_type = T;
  static constexpr trace::Kind kind = K;

  template <class... A>
  explicit QueuedNode(const NodeOps* node_ops, A&&... extra_args)
      : NodeT<T>(node_ops, next_thread_id()), extra(std::forward<A>(extra_args)...) {}

  QueuedNode* queue_prev = nullptr;
  QueuedNode* queue_next = nullptr;
  WaitQueue<QueuedNode>* queue = nullptr;  // null when not queued
  [[no_unique_address]] Extra extra;
};

// A FIFO of waiters, doubly linked through the nodes (O(1) removal on
// cancel). Holds a reference on each node (invariant 1).
template <class N>
class WaitQueue {
 public:
  WaitQueue() = default;
  WaitQueue(const WaitQueue&) = delete;
  WaitQueue& operator=(const WaitQueue&) = delete;
  ~WaitQueue() { detach_all(); }

  [[nodiscard]] bool empty() const noexcept { return head_ == nullptr; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }

  // Invariants 1 and 2 over the whole queue (a bounded walk), in debug
  // builds; the primitives call it at the start of their operations.
  void check() const noexcept {
#ifndef NDEBUG
    std::size_t count = 0;
    const N* prev = nullptr;
    for (const N* n = head_; n != nullptr && count < 64; n = n->queue_next, ++count) {
      assert(n->queue == this && n->queue_prev == prev && n->refs > 0);
      assert(underlying(static_cast<Node*>(const_cast<N*>(n)))->state == NodeState::pending);
      prev = n;
    }
    assert(count == 64 || (prev == tail_ && count == size_));
    assert((head_ == nullptr) == (size_ == 0));
#endif
  }

  void push(N* n) noexcept {
    assert(n->queue == nullptr);
    add_ref(n);
    n->queue = this;
    n->queue_prev = tail_;
    n->queue_next = nullptr;
    if (tail_ != nullptr) tail_->queue_next = n;
    else head_ = n;
    tail_ = n;
    ++size_;
  }

  // Unlinks `n`, which is in this queue; its reference passes to the caller.
  void remove(N* n) noexcept {
    assert(n->queue == this);
    if (n->queue_prev != nullptr) n->queue_prev->queue_next = n->queue_next;
    else head_ = n->queue_next;
    if (n->queue_next != nullptr) n->queue_next->queue_prev = n->queue_prev;
    else tail_ = n->queue_prev;
    n->queue_prev = n->queue_next = nullptr;
    n->queue = nullptr;
    --size_;
  }

  // The oldest waiter whose promise is still pending, unlinked, with the
  // queue's reference (the caller gives it back); null when there is none.
  [[nodiscard]] N* pop_pending() noexcept {
    while (N* n = head_) {
      remove(n);
      if (underlying(static_cast<Node*>(n))->state == NodeState::pending) [[likely]] return n;
      release(n);  // defensive: invariant 2 says a queued root is pending
    }
    return nullptr;
  }

  // Moves every node to `into` (empty), oldest first: broadcast and close
  // wake from a local queue, so code they run cannot add to what they wake,
  // and may destroy the primitive meanwhile (invariant 3).
  void move_all_to(WaitQueue& into) noexcept {
    assert(into.empty());
    for (N* n = head_; n != nullptr; n = n->queue_next) n->queue = &into;
    into.head_ = std::exchange(head_, nullptr);
    into.tail_ = std::exchange(tail_, nullptr);
    into.size_ = std::exchange(size_, 0);
  }

  // Lets every node go, unsettled, each a drop (invariant 4).
  void detach_all() noexcept {
    while (N* n = head_) {
      remove(n);
      trace_drop(n);
      release(n);
    }
  }

 private:
  N* head_ = nullptr;
  N* tail_ = nullptr;
  std::size_t size_ = 0;
};

// NodeOps::cancel for a queued node: unlink, then settle with Canceled
// (invariant 2), so the primitive never hands anything to it afterwards.
// `root` is the node to settle (self's root, or after a tail-merge the root
// self forwards to).
template <class N>
void cancel_queued(Node* self, Node* root, CancelWork&) {
  auto* n = static_cast<N*>(self);
  if (n->queue == nullptr) {
    settle_canceled(root);
    return;
  }
  n->queue->remove(n);  // the queue's reference is ours until the end
  settle_canceled(root);
  release(n);
}

template <class N>
inline constexpr NodeOps queued_ops{&destroy_as<N>, &cancel_queued<N>, N::kind};

// A new waiter in `queue`, spawned (kind N::kind) at `site`, and queued in
// primitive `object` if that has a number (this file's header); its promise.
template <class N, class... A>
[[nodiscard]] Promise<typename N::value_type> enqueue_waiter(WaitQueue<N>& queue, trace::ObjectId object,
                                                             const std::source_location& site, A&&... extra) {
  N* n = make_node<N>(&queued_ops<N>, std::forward<A>(extra)...);
  Promise<typename N::value_type> p = Promise<typename N::value_type>::adopt(n);
  trace_spawn(n, site);
  queue.push(n);
  trace_queued(n, object);
  return p;
}

// --- the stack guard (this file's header) -------------------------------------

inline constexpr int kSyncWakeBudget = 16;
inline int g_sync_wake_budget = kSyncWakeBudget;  // invariant 5

// The first waiter of a deferred wake-up's list: when the loop calls it, the
// stack is at its bottom, and the budget is full again.
struct WakeBudgetRefill final : Waiter {
  static void fire(Waiter* w, Node*, WaitEvent) noexcept {
    g_sync_wake_budget = kSyncWakeBudget;
    node_pool::deallocate(static_cast<WakeBudgetRefill*>(w), sizeof(WakeBudgetRefill));
  }
};

// Puts a WakeBudgetRefill first in the pending root's waiter list.
inline void add_budget_refill(Node* root) {
  auto* refill = ::new (node_pool::allocate(sizeof(WakeBudgetRefill))) WakeBudgetRefill();
  refill->on_event = &WakeBudgetRefill::fire;
  refill->input = root;
  if (Waiter* last = root->last) {
    refill->next = last->next;  // the oldest: it runs before the others
    last->next = refill;
  } else {
    refill->next = refill;
    root->last = refill;
  }
}

// Whether this wake-up may run its callbacks now (spending budget when it
// has any); if not, `root` gets the refill and its callbacks go to the ready
// queue.
[[nodiscard]] inline bool spend_sync_wake(Node* root) {
  if (root->last == nullptr) return true;  // no callbacks: the stack cannot grow
  if (g_sync_wake_budget > 0) [[likely]] {
    --g_sync_wake_budget;
    return true;
  }
  add_budget_refill(root);
  return false;
}

// pending -> fulfilled like fulfill() (settle.hpp), with the callbacks queued
// on the scheduler's ready queue instead of run here.
template <class T, class... A>
void fulfill_later(NodeT<T>* root, A&&... value) {
  assert(root->state == NodeState::pending);
  Waiter* last = root->last;
  if constexpr (!std::is_void_v<T>) ::new (static_cast<void*>(&root->value)) T(std::forward<A>(value)...);
  root->state = NodeState::fulfilled;
  check_invariants(root);
  trace_resolve(root);
  if (last != nullptr) defer_waiters(root, last);
}

// pending -> rejected like reject(), with the callbacks deferred.
inline void reject_later(Node* root, std::exception_ptr error) {
  assert(root->state == NodeState::pending);
  Waiter* last = root->last;
  ::new (static_cast<void*>(&root->error)) std::exception_ptr(std::move(error));
  root->state = NodeState::rejected;
  check_invariants(root);
  trace_resolve(root);
  if (root->flags & kAsyncWatched) [[unlikely]] report_async_failure(root->error);
  if (last != nullptr) defer_waiters(root, last);
}

// Wakes `n` (popped by pop_pending; the caller's reference is given back
// here): notify from the actor to n's thread, then n's root is fulfilled
// with `value`, its callbacks run now or, past the budget, from the loop.
template <class N, class... A>
void wake_queued(N* n, trace::Reason reason, A&&... value) {
  using T = typename N::value_type;
  NodeT<T>* root = underlying(static_cast<NodeT<T>*>(n));
  trace_notify(g_runtime.actor, root, reason);
  if (spend_sync_wake(root)) fulfill(root, std::forward<A>(value)...);
  else fulfill_later(root, std::forward<A>(value)...);
  release(n);
}

// Wakes `n` with a rejection (a stream closed under a blocked push).
template <class N>
void wake_queued_with_error(N* n, trace::Reason reason, std::exception_ptr error) {
  Node* root = underlying(static_cast<Node*>(n));
  trace_notify(g_runtime.actor, root, reason);
  if (spend_sync_wake(root)) reject(root, std::move(error), false);
  else reject_later(root, std::move(error));
  release(n);
}

// Test hooks: the budget left, and a full one (so a test starts alike
// whatever ran before it).
[[nodiscard]] inline int sync_wake_budget() noexcept { return g_sync_wake_budget; }
inline void refill_sync_wake_budget() noexcept { g_sync_wake_budget = kSyncWakeBudget; }

}  // namespace skein::detail
