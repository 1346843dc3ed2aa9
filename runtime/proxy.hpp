// proxy.hpp — tail-merge: making a bind's promise and the promise its
// callback returned into one (Lwt's make_into_proxy).
//
// When a callback returns a promise q that is still pending, the bind's
// promise b does not attach a forwarding callback to q (which would grow a
// chain of forwarders in a loop). Instead q's root becomes a proxy of b's
// root: q's waiters move to b's root, b's root takes q's way of being
// cancelled, and a resolver of q now settles b's root. This direction (the
// newer promise forwards to the older) keeps a loop that re-binds forever in
// constant memory: the old root stays, each new promise forwards to it and is
// freed once its own input has fired.
//
// In the trace, merge(b, q) says b now behaves as q: the root takes q's id,
// so q's later resolve is recorded under q's id and the row continues.
#pragma once

#include "runtime/promise_node.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

// pending -> proxy, for `from` (a pending root), forwarding to `into` (a
// pending root, not `from`).
inline void merge_into(Node* into, Node* from) {
  assert(into != from && into->state == NodeState::pending && from->state == NodeState::pending);
  trace_merge(into->id, from->id);
  splice_waiters(into, from);
  into->cancel_source = from->cancel_source != nullptr ? from->cancel_source : from;
  into->id = from->id;
  from->proxy = into;
  from->state = NodeState::proxy;
  add_ref(into);
  check_invariants(into);
  check_invariants(from);
}

// Makes `b` behave as `q` (the promise b's callback returned): settles b's
// root like q if q is settled, merges them if q is pending. The caller holds
// a reference on q. The actor is the thread whose callback returned q.
template <class T>
[[gnu::always_inline]] inline void become(NodeT<T>* b, NodeT<T>* q) {
  NodeT<T>* root = underlying(b);
  NodeT<T>* q_root = underlying(q);
  if (root == q_root) return;  // the callback returned b itself: it stays pending (as in Lwt)
  if (root->state != NodeState::pending) return;  // cancelled meanwhile: the outcome has no taker
  if (q_root->state == NodeState::pending) {
    merge_into(root, q_root);
    return;
  }
  trace_read(g_runtime.actor, q_root);
  settle_like(root, q_root, q_root == q && q->refs == 1);
}

}  // namespace skein::detail
