// promise_node.hpp — the node behind every promise: its state, its waiters,
// its proxy link, and the reference count that frees it.
//
// A node is one of (OVERVIEW.md, "States"):
//   pending    `last` is the waiter list (circular, singly linked, `last`
//              points at the newest waiter, last->next at the oldest), or null;
//   fulfilled  the value lives in NodeT<T>::value;
//   rejected   `error` holds the exception (kCanceled: it is skein::Canceled);
//   proxy      `proxy` is the node this one now behaves as (tail-merge).
// Only pending -> fulfilled | rejected | proxy transitions exist, each done by
// one function: fulfill/reject (settle.hpp), merge_into (proxy.hpp).
//
// Ownership (strong edges point the way resolution flows, so nothing that can
// still be resolved is freed, and a pending node nobody can resolve is):
//   - handles (Promise, Resolver) own a reference;
//   - a pending node's waiter list owns a reference to each waiter's owner;
//   - a proxy owns a reference to the node it forwards to;
//   - the scheduler's queues own what they will settle or run.
// Backward edges are weak: Waiter::input (what a waiter waits on, used for
// cancellation and cleared when the input settles or dies) and
// Node::cancel_source (set on a root by a merge; cleared by the proxy it
// names when that proxy dies).
//
// Beside the reference count, a node counts the Resolver handles that point
// at it (`resolvers`, resolver.hpp), so that the end of the last one while
// the node's root is pending can be traced as a drop (trace_hooks.hpp). The
// count saturates at kResolversSaturated: it never wraps, and a node that
// reached it never records a drop. It lives in padding, so a node is no
// larger for it.
#pragma once

#include <cassert>
#include <cstdint>
#include <exception>
#include <new>
#include <utility>
#include <vector>

#include "runtime/node_pool.hpp"
#include "runtime/thread_id.hpp"
#include "runtime/trace_sink.hpp"

namespace skein::detail {

struct Node;

enum class NodeState : std::uint8_t { pending, fulfilled, rejected, proxy };

// Why a waiter is called: its input settled (run inside the resolver, or
// later from the scheduler's ready queue past the depth limit), or its input
// was destroyed while pending (it will never settle).
enum class WaitEvent : std::uint8_t { fire, fire_deferred, detach };

// A link in a pending node's waiter list. The waiter is embedded in whatever
// waits: a bind node is its own waiter; a join holds one per input. The
// callback takes ownership of the reference the list held on its owner.
struct Waiter {
  Waiter* next = nullptr;
  Node* input = nullptr;  // weak; null once fired or detached
  void (*on_event)(Waiter* self, Node* input, WaitEvent event) noexcept = nullptr;
};

using CancelWork = std::vector<Node*>;  // nodes still to cancel, each with a reference

// Per node type, what a function pointer does better than a virtual call.
struct NodeOps {
  void (*destroy)(Node* self) noexcept;
  // How to cancel (Lwt's how_to_cancel): settle `root`, or push the inputs
  // cancellation propagates to onto `more` (referenced). Null: cancel is ignored.
  void (*cancel)(Node* self, Node* root, CancelWork& more);
  trace::Kind kind;
};

inline constexpr std::uint16_t kResolversSaturated = 0xffff;

enum NodeFlag : std::uint8_t {
  kUntraced = 1,      // a constant (resolved/failed): never named in a trace
  kCanceled = 2,      // rejected with skein::Canceled
  kAsyncWatched = 4,  // an async() root: a rejection goes to the async hook
};

struct Node {
  Node(const NodeOps* node_ops, ThreadId thread) noexcept : ops(node_ops), id(thread), last(nullptr) {}
  ~Node() {
    if (state != NodeState::fulfilled) [[unlikely]] release_parts();
  }
  // What a dying node that is not fulfilled lets go of: its waiters (told
  // they will never fire), its proxy target, its error.
  void release_parts() noexcept;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const NodeOps* ops;
  std::uint32_t refs = 1;
  NodeState state = NodeState::pending;
  std::uint8_t flags = 0;
  std::uint16_t resolvers = 0;  // Resolver handles on this node, saturating (see above)
  ThreadId id;  // a root takes the id of what merges into it (proxy.hpp)
  union {
    Waiter* last;              // pending
    Node* proxy;               // proxy
    std::exception_ptr error;  // rejected
  };
  Node* cancel_source = nullptr;  // roots only, weak: a proxy whose cancel behaviour we took
};

// The typed part: the value of a fulfilled node.
template <class T>
struct NodeT : Node {
  NodeT(const NodeOps* node_ops, ThreadId thread) noexcept : Node(node_ops, thread) {}
  ~NodeT() {
    if (state == NodeState::fulfilled) value.~T();
  }
  union {
    T value;
  };
};
template <>
struct NodeT<void> : Node {
  NodeT(const NodeOps* node_ops, ThreadId thread) noexcept : Node(node_ops, thread) {}
};

// The memory budget: a pending Promise<void> with no callbacks costs one node.
static_assert(sizeof(NodeT<void>) <= 96, "a pending Promise<void> must fit in 96 bytes");
// The resolver count took padding after `flags`: on 64-bit targets a node
// stays 40 bytes (OVERVIEW.md, section 1).
static_assert(sizeof(void*) != 8 || sizeof(NodeT<void>) == 40, "Node::resolvers must not grow the node");

// --- allocation and references ----------------------------------------------

template <class N, class... A>
[[nodiscard]] N* make_node(A&&... args) {
  void* memory = node_pool::allocate(sizeof(N));
  try {
    return ::new (memory) N(std::forward<A>(args)...);
  } catch (...) {
    node_pool::deallocate(memory, sizeof(N));
    throw;
  }
}

template <class N>
void destroy_as(Node* node) noexcept {
  auto* typed = static_cast<N*>(node);
  typed->~N();
  node_pool::deallocate(typed, sizeof(N));
}

// Frees a node whose count reached zero. Iterative: freeing one node may free
// a million (a chain of waiters), so frees nested in a node's destruction are
// queued (linked through the dead node's cancel_source), not recursed.
struct DestroyQueue {
  bool active = false;
  Node* head = nullptr;
};
inline DestroyQueue g_destroy;
void drain_destroy_queue() noexcept;

inline void destroy_node(Node* node) noexcept {
  if (g_destroy.active) [[unlikely]] {
    node->cancel_source = g_destroy.head;
    g_destroy.head = node;
    return;
  }
  g_destroy.active = true;
  node->ops->destroy(node);
  if (g_destroy.head != nullptr) [[unlikely]] drain_destroy_queue();
  g_destroy.active = false;
}

inline void add_ref(Node* node) noexcept { ++node->refs; }
inline void release(Node* node) noexcept {
  if (--node->refs == 0) destroy_node(node);
}

// --- proxies -------------------------------------------------------------------

Node* underlying_slow(Node* node) noexcept;

// The node `node` behaves as: itself unless it is a proxy. Shortens the path.
[[nodiscard]] inline Node* underlying(Node* node) noexcept {
  if (node->state != NodeState::proxy) [[likely]] return node;
  return underlying_slow(node);
}
template <class T>
[[nodiscard]] inline NodeT<T>* underlying(NodeT<T>* node) noexcept {
  return static_cast<NodeT<T>*>(underlying(static_cast<Node*>(node)));
}

// --- invariants -----------------------------------------------------------------

// Checks the invariants of one node (this file's header, OVERVIEW.md) and
// aborts, naming the broken one, when one fails. The library always defines
// it, whatever NDEBUG was when the library was built, so an application
// links in every build type.
void check_node_invariants(const Node* node) noexcept;

// Called at every transition; it checks unless the translation unit that
// includes this header defines NDEBUG.
inline void check_invariants([[maybe_unused]] const Node* node) noexcept {
#ifndef NDEBUG
  check_node_invariants(node);
#endif
}

}  // namespace skein::detail
