// bind.hpp — bind (then) and map: the function to read first, with
// OVERVIEW.md. Everything else in the runtime is a variation on it.
//
// bind(p, f): when p is fulfilled with v, call f(v), which returns a promise
// q; the promise bind returned then behaves as q. If p is already settled, f
// runs now and its promise is returned as is (Lwt: no new promise). If p is
// pending, bind makes one node, a BindNode, which is at once the promise
// returned and the waiter linked into p's waiter list: it holds f inline, so
// a pending bind costs one pool allocation and no std::function.
//
// When p settles, the BindNode's callback runs inside the resolver (or from
// the ready queue past the depth limit), as the bind's thread (the actor is
// its id): it reads p, calls f, and becomes f's result (proxy.hpp: settle like
// it, or tail-merge with it when it is pending). A rejection of p, or an
// exception thrown by f, rejects the bind's promise; nothing escapes into the
// resolver or the scheduler. f is destroyed as soon as it has run.
//
// map(p, f) is the same with f returning a plain value (or void).
#pragma once

#include <exception>
#include <functional>
#include <source_location>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "runtime/actor.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/promise.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/proxy.hpp"
#include "runtime/resolver.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

namespace detail {

// What f returns when called with a T (or with nothing, for void).
template <class T, class F>
struct callback_result : std::invoke_result<F&, const T&> {};
template <class F>
struct callback_result<void, F> : std::invoke_result<F&> {};
template <class T, class F>
using callback_result_t = typename callback_result<T, std::decay_t<F>>::type;

template <class T, class F>
decltype(auto) call_with_value(F& f, Node* input) {
  // Marks the end of user code for the trace's time stamps (trace_sink.hpp).
  struct ReturnMark {
    ~ReturnMark() {
      if constexpr (trace::kTraceHooks) trace::detail::g_user_code_returned = true;
    }
  } mark;
  if constexpr (std::is_void_v<T>) return std::invoke(f);
  else return std::invoke(f, static_cast<const T&>(static_cast<NodeT<T>*>(input)->value));
}

// Calls a promise-returning callback; an exception becomes a rejected promise.
template <class U, class T, class F>
[[nodiscard, gnu::always_inline]] inline Promise<U> call_for_promise(F& f, Node* input) noexcept {
  try {
    Promise<U> q = call_with_value<T>(f, input);
    if (!q.valid()) throw std::logic_error("skein: a callback returned an empty promise");
    return q;
  } catch (...) {
    return failed<U>(std::current_exception());
  }
}

// The root of a handle's node; an empty handle is a logic error.
template <class T>
[[nodiscard]] NodeT<T>* root_of(const Promise<T>& p) {
  if (!p.valid()) throw std::logic_error("skein: empty promise (default-constructed or moved from)");
  return underlying(p.node());
}

// A constant rejected like the settled `input` (cancellation included).
template <class U>
[[nodiscard]] Promise<U> failed_like(Node* input) {
  Promise<U> p = failed<U>(input->error);
  p.node()->flags |= input->flags & kCanceled;
  return p;
}

// Rejects the root of `node` with the error of the settled `input`, unless
// the root was cancelled meanwhile.
inline void reject_like(Node* node, Node* input) {
  Node* root = underlying(node);
  if (root->state == NodeState::pending) reject(root, input->error, (input->flags & kCanceled) != 0);
}

// A node that waits on one input with its own Waiter and holds its callback
// inline until the callback has run. Waiter::on_event doubles as the
// "callback still held" flag.
template <class U, class F>
struct CallbackNode : NodeT<U>, Waiter {
  CallbackNode(const NodeOps* node_ops, F&& fn) : NodeT<U>(node_ops, next_thread_id()), callback(std::move(fn)) {}
  ~CallbackNode() {
    if (on_event != nullptr) callback.~F();
  }
  void drop_callback() noexcept {
    callback.~F();
    on_event = nullptr;
  }
  union {
    F callback;
  };
};

template <class T, class U, class F>
struct BindNode final : CallbackNode<U, F> {
  using CallbackNode<U, F>::CallbackNode;

  static void fire(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* self = static_cast<BindNode*>(w);
    if (event != WaitEvent::detach) {
      ActorScope actor(self->id, event == WaitEvent::fire_deferred);
      trace_read(self->id, settled);
      if (settled->state == NodeState::fulfilled) {
        Promise<U> q = call_for_promise<U, T>(self->callback, settled);
        self->drop_callback();
        become<U>(self, q.node());
      } else {
        self->drop_callback();
        reject_like(self, settled);
      }
    } else {
      self->drop_callback();
    }
    release(self);
  }
};
template <class T, class U, class F>
inline constexpr NodeOps bind_ops{&destroy_as<BindNode<T, U, F>>, &cancel_through_link<BindNode<T, U, F>>,
                                  trace::Kind::bind};

template <class T, class U, class F>
struct MapNode final : CallbackNode<U, F> {
  using CallbackNode<U, F>::CallbackNode;

  static void fire(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* self = static_cast<MapNode*>(w);
    if (event != WaitEvent::detach) {
      ActorScope actor(self->id, event == WaitEvent::fire_deferred);
      trace_read(self->id, settled);
      if (settled->state == NodeState::fulfilled) {
        try {
          if constexpr (std::is_void_v<U>) {
            call_with_value<T>(self->callback, settled);
            self->drop_callback();
            if (auto* root = underlying(static_cast<NodeT<U>*>(self)); root->state == NodeState::pending) fulfill(root);
          } else {
            U value = call_with_value<T>(self->callback, settled);
            self->drop_callback();
            if (auto* root = underlying(static_cast<NodeT<U>*>(self)); root->state == NodeState::pending)
              fulfill(root, std::move(value));
          }
        } catch (...) {
          if (self->on_event != nullptr) self->drop_callback();
          Node* root = underlying(self);
          if (root->state == NodeState::pending) reject(root, std::current_exception(), false);
        }
      } else {
        self->drop_callback();
        reject_like(self, settled);
      }
    } else {
      self->drop_callback();
    }
    release(self);
  }
};
template <class T, class U, class F>
inline constexpr NodeOps map_ops{&destroy_as<MapNode<T, U, F>>, &cancel_through_link<MapNode<T, U, F>>,
                                 trace::Kind::map};

// Links a fresh callback node (one reference, the caller's) to a pending
// input; the input's list takes a second reference.
template <class N>
void link_callback_node(N* node, Node* input, const std::source_location& site) {
  trace_spawn(node, site);
  node->on_event = &N::fire;
  add_ref(node);
  attach_waiter(input, node);
  trace_wait(node->id, input);
}

}  // namespace detail

template <class T, class F>
[[nodiscard]] auto bind(const Promise<T>& p, F&& f, std::source_location site = std::source_location::current()) {
  using Q = detail::callback_result_t<T, F>;
  static_assert(is_promise_v<Q>, "skein::bind: the callback must return a skein::Promise (use map for values)");
  using U = typename Q::value_type;
  using Fn = std::decay_t<F>;
  detail::Node* input = detail::root_of(p);
  if (input->state != detail::NodeState::pending) {
    detail::trace_read(detail::g_runtime.actor, input);
    if (input->state == detail::NodeState::rejected) return detail::failed_like<U>(input);
    return detail::call_for_promise<U, T>(f, input);
  }
  auto* node = detail::make_node<detail::BindNode<T, U, Fn>>(&detail::bind_ops<T, U, Fn>, Fn(std::forward<F>(f)));
  detail::link_callback_node(node, input, site);
  return Promise<U>::adopt(node);
}

template <class T, class F>
[[nodiscard]] auto map(const Promise<T>& p, F&& f, std::source_location site = std::source_location::current()) {
  using U = std::remove_cvref_t<detail::callback_result_t<T, F>>;
  using Fn = std::decay_t<F>;
  detail::Node* input = detail::root_of(p);
  if (input->state != detail::NodeState::pending) {
    detail::trace_read(detail::g_runtime.actor, input);
    if (input->state == detail::NodeState::rejected) return detail::failed_like<U>(input);
    try {
      if constexpr (std::is_void_v<U>) {
        detail::call_with_value<T>(f, input);
        return resolved();
      } else {
        return resolved(detail::call_with_value<T>(f, input));
      }
    } catch (...) {
      return failed<U>(std::current_exception());
    }
  }
  auto* node = detail::make_node<detail::MapNode<T, U, Fn>>(&detail::map_ops<T, U, Fn>, Fn(std::forward<F>(f)));
  detail::link_callback_node(node, input, site);
  return Promise<U>::adopt(node);
}

template <class T>
struct detail::PromiseMembers {
  template <class F>
  static auto then(const Promise<T>& p, F&& f, const std::source_location& site) {
    return skein::bind(p, std::forward<F>(f), site);
  }
  template <class F>
  static auto map(const Promise<T>& p, F&& f, const std::source_location& site) {
    return skein::map(p, std::forward<F>(f), site);
  }
};

}  // namespace skein
