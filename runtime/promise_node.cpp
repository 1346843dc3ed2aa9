// promise_node.cpp — freeing nodes, following proxies, checking invariants,
// and the slow half of the resolve record.
#include "runtime/promise_node.hpp"

#include <cstdio>
#include <cstdlib>

#include "runtime/resolver.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

void Node::release_parts() noexcept {
  switch (state) {
    case NodeState::pending:
      if (last != nullptr) {
        // Nobody can settle this node any more: tell its waiters.
        Waiter* waiters = last;
        last = nullptr;
        run_waiters(this, waiters, WaitEvent::detach);
      }
      break;
    case NodeState::proxy: {
      Node* root = proxy;
      while (root->state == NodeState::proxy) root = root->proxy;
      if (root->cancel_source == this) root->cancel_source = nullptr;
      release(proxy);
      break;
    }
    case NodeState::rejected:
      error.~exception_ptr();
      break;
    case NodeState::fulfilled:
      break;  // the value belongs to NodeT<T>
  }
}

// Nothing reads a queued node's cancel_source once its count is zero (a proxy
// pointing at a node holds a reference to it), so it links the queue.
void drain_destroy_queue() noexcept {
  while (Node* next = g_destroy.head) {
    g_destroy.head = next->cancel_source;
    next->ops->destroy(next);
  }
}

Node* underlying_slow(Node* node) noexcept {
  Node* root = node->proxy;
  while (root->state == NodeState::proxy) root = root->proxy;
  if (node->proxy != root) {  // shorten: point straight at the root
    Node* old = node->proxy;
    add_ref(root);
    node->proxy = root;
    release(old);
  }
  return root;
}

namespace {

// An invariant check that does not depend on NDEBUG: the library may be built
// without assertions and still be asked to check by an application's headers.
void require(bool holds, const char* invariant) noexcept {
  if (holds) [[likely]] return;
  std::fprintf(stderr, "skein: promise node invariant broken: %s\n", invariant);
  std::abort();
}

}  // namespace

void check_node_invariants(const Node* node) noexcept {
  // 1. A node in transition is alive.
  require(node->refs > 0, "node->refs > 0");
  switch (node->state) {
    case NodeState::pending:
      // 2. The waiter list is circular and every waiter knows its input.
      if (node->last != nullptr) {
        const Waiter* w = node->last;
        int budget = 64;
        do {
          require(w->input == node && w->on_event != nullptr,
                  "w->input == node && w->on_event != nullptr");
          w = w->next;
        } while (w != node->last && --budget > 0);
      }
      // 3. Constants are born settled.
      require((node->flags & kUntraced) == 0, "(node->flags & kUntraced) == 0");
      break;
    case NodeState::proxy:
      // 4. A proxy forwards to another live node, never to itself.
      require(node->proxy != node && node->proxy->refs > 0,
              "node->proxy != node && node->proxy->refs > 0");
      break;
    case NodeState::fulfilled:
      // 5. Only rejections carry the cancel flag.
      require((node->flags & kCanceled) == 0, "(node->flags & kCanceled) == 0");
      break;
    case NodeState::rejected:
      require(node->error != nullptr, "node->error != nullptr");
      break;
  }
  // 6. A root's cancel source is a proxy that leads back to it.
  if (node->state != NodeState::proxy && node->cancel_source != nullptr) {
    const Node* s = node->cancel_source;
    require(s->state == NodeState::proxy, "s->state == NodeState::proxy");
    while (s->state == NodeState::proxy) s = s->proxy;
    require(s == node, "s == node");
  }
}

NodeT<void>* resolved_void_node() noexcept {
  // Never freed: one reference is held here forever.
  static NodeT<void>* node = [] {
    auto* n = new NodeT<void>(&constant_ops<void>, trace::kNoThread);
    n->flags = kUntraced;
    n->state = NodeState::fulfilled;
    return n;
  }();
  return node;
}

}  // namespace skein::detail
