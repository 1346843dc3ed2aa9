// resolver.hpp — making promises: wait() and task() give a pending promise
// and the Resolver that settles it; resolved() and failed() give constants.
//
// A Resolver settles the promise it was made with, or, after a tail-merge,
// the root that promise forwards to. Settling twice throws std::logic_error
// (Lwt: Invalid_argument), except that settling a cancelled promise is
// silently ignored, as in Lwt, since whoever resolves it may not know yet.
// A task() promise is cancelable (cancel settles it with skein::Canceled); a
// wait() promise ignores cancel.
//
// Tracing: a Resolver is the program's means to settle its promise. Its node
// counts the handles on it (promise_node.hpp), and when the last one ends,
// destroyed or overwritten by an assignment, while the root it would settle
// is still pending, the runtime records drop(that root, the actor): nothing
// can settle the promise now but a cancel, and whatever waits on it waits
// forever (the first of the two lost wake-ups; wait_queue.hpp has the
// other). A handle that settled its promise, or whose promise was cancelled,
// records nothing when it ends; nor does one whose node counted
// kResolversSaturated handles.
#pragma once

#include <exception>
#include <source_location>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "runtime/actor.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/promise.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

namespace detail {

template <class T>
inline constexpr NodeOps wait_ops{&destroy_as<NodeT<T>>, nullptr, trace::Kind::wait};
template <class T>
inline constexpr NodeOps task_ops{&destroy_as<NodeT<T>>, &cancel_by_settling, trace::Kind::task};
template <class T>
inline constexpr NodeOps constant_ops{&destroy_as<NodeT<T>>, nullptr, trace::Kind::wait};

template <class T>
[[nodiscard]] NodeT<T>* make_constant() {
  auto* node = make_node<NodeT<T>>(&constant_ops<T>, trace::kNoThread);
  node->flags = kUntraced;
  return node;
}

// The root a resolver settles, or null when it was cancelled (ignore).
template <class T>
[[nodiscard, gnu::always_inline]] inline NodeT<T>* root_to_settle(NodeT<T>* node, const char* what) {
  NodeT<T>* root = underlying(node);
  if (root->state == NodeState::pending) [[likely]] return root;
  if (root->flags & kCanceled) return nullptr;
  throw std::logic_error(what);
}

// The one shared resolved() of type void: a constant nobody frees.
NodeT<void>* resolved_void_node() noexcept;

}  // namespace detail

template <class T>
class Resolver {
 public:
  Resolver() noexcept = default;
  explicit Resolver(detail::NodeT<T>* node) noexcept : node_(node) {
    detail::add_ref(node_);
    detail::trace_count_resolver(node_);
  }
  Resolver(const Resolver& other) noexcept : node_(other.node_) {
    if (node_ != nullptr) {
      detail::add_ref(node_);
      detail::trace_count_resolver(node_);
    }
  }
  Resolver(Resolver&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  // The old node goes with `other`: its end is this handle's end on it.
  Resolver& operator=(Resolver other) noexcept {
    std::swap(node_, other.node_);
    return *this;
  }
  ~Resolver() {
    if (node_ != nullptr) {
      detail::trace_drop_resolver(node_);
      detail::release(node_);
    }
  }

  template <class... A>
  void resolve(A&&... value) {
    static_assert(sizeof...(A) == (std::is_void_v<T> ? 0 : 1), "resolve: void takes no value, T takes one");
    if (auto* root = detail::root_to_settle(checked(), "skein::Resolver::resolve: the promise is already resolved"))
      detail::fulfill(root, std::forward<A>(value)...);
  }
  void fail(std::exception_ptr error) {
    if (auto* root = detail::root_to_settle(checked(), "skein::Resolver::fail: the promise is already resolved"))
      detail::reject(root, std::move(error), false);
  }
  template <class E>
    requires(!std::is_same_v<std::decay_t<E>, std::exception_ptr>)
  void fail(E&& error) {
    fail(std::make_exception_ptr(std::forward<E>(error)));
  }

 private:
  detail::NodeT<T>* checked() const {
    if (node_ == nullptr) throw std::logic_error("skein::Resolver: empty resolver");
    return node_;
  }
  detail::NodeT<T>* node_ = nullptr;
};

// A pending promise and its resolver; cancel ignores it.
template <class T = void>
[[nodiscard]] std::pair<Promise<T>, Resolver<T>> wait(std::source_location site = std::source_location::current()) {
  auto* node = detail::make_node<detail::NodeT<T>>(&detail::wait_ops<T>, detail::next_thread_id());
  detail::trace_spawn(node, site);
  Resolver<T> resolver(node);
  return {Promise<T>::adopt(node), std::move(resolver)};
}

// A pending promise and its resolver; cancel settles it with Canceled.
template <class T = void>
[[nodiscard]] std::pair<Promise<T>, Resolver<T>> task(std::source_location site = std::source_location::current()) {
  auto* node = detail::make_node<detail::NodeT<T>>(&detail::task_ops<T>, detail::next_thread_id());
  detail::trace_spawn(node, site);
  Resolver<T> resolver(node);
  return {Promise<T>::adopt(node), std::move(resolver)};
}

template <class V>
[[nodiscard]] Promise<std::decay_t<V>> resolved(V&& value) {
  using T = std::decay_t<V>;
  auto* node = detail::make_constant<T>();
  ::new (static_cast<void*>(&node->value)) T(std::forward<V>(value));
  node->state = detail::NodeState::fulfilled;
  return Promise<T>::adopt(node);
}
[[nodiscard]] inline Promise<void> resolved() {
  auto* node = detail::resolved_void_node();
  detail::add_ref(node);
  return Promise<void>::adopt(node);
}

template <class T>
[[nodiscard]] Promise<T> failed(std::exception_ptr error) {
  auto* node = detail::make_constant<T>();
  ::new (static_cast<void*>(&node->error)) std::exception_ptr(std::move(error));
  node->state = detail::NodeState::rejected;
  return Promise<T>::adopt(node);
}
template <class T, class E>
  requires(!std::is_same_v<std::decay_t<E>, std::exception_ptr>)
[[nodiscard]] Promise<T> failed(E&& error) {
  return failed<T>(std::make_exception_ptr(std::forward<E>(error)));
}

}  // namespace skein
