// catch.hpp — catch_(p, h): recover from a rejection.
//
// If p is fulfilled, the result is fulfilled with p's value; if p is rejected
// (cancellation included), h(error) runs and the result behaves as the promise
// it returns (tail-merged when pending, as in bind). An exception thrown by h
// rejects the result. The node is a CatchNode: the result promise and p's
// waiter at once, like BindNode (bind.hpp).
#pragma once

#include <exception>
#include <source_location>

#include "runtime/bind.hpp"

namespace skein {

namespace detail {

template <class T, class H>
struct CatchNode final : CallbackNode<T, H> {
  using CallbackNode<T, H>::CallbackNode;

  static void fire(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* self = static_cast<CatchNode*>(w);
    if (event != WaitEvent::detach) {
      ActorScope actor(self->id, event == WaitEvent::fire_deferred);
      trace_read(self->id, settled);
      if (settled->state == NodeState::rejected) {
        Promise<T> q = call_handler(self->callback, settled->error);
        self->drop_callback();
        become<T>(self, q.node());
      } else {
        self->drop_callback();
        NodeT<T>* root = underlying(static_cast<NodeT<T>*>(self));
        if (root->state == NodeState::pending) settle_like(root, static_cast<NodeT<T>*>(settled), false);
      }
    } else {
      self->drop_callback();
    }
    release(self);
  }

  static Promise<T> call_handler(H& handler, const std::exception_ptr& error) noexcept {
    try {
      Promise<T> q = handler(error);
      if (!q.valid()) throw std::logic_error("skein::catch_: the handler returned an empty promise");
      return q;
    } catch (...) {
      return failed<T>(std::current_exception());
    }
  }
};
template <class T, class H>
inline constexpr NodeOps catch_ops{&destroy_as<CatchNode<T, H>>, &cancel_through_link<CatchNode<T, H>>,
                                   trace::Kind::catch_};

}  // namespace detail

// h: std::exception_ptr -> Promise<T>.
template <class T, class H>
[[nodiscard]] Promise<T> catch_(const Promise<T>& p, H&& h, std::source_location site = std::source_location::current()) {
  using Hn = std::decay_t<H>;
  static_assert(std::is_same_v<std::invoke_result_t<Hn&, std::exception_ptr>, Promise<T>>,
                "skein::catch_: the handler must take std::exception_ptr and return the same Promise<T>");
  detail::NodeT<T>* input = detail::root_of(p);
  if (input->state == detail::NodeState::fulfilled) return p;
  if (input->state == detail::NodeState::rejected) {
    detail::trace_read(detail::g_runtime.actor, input);
    Hn handler(std::forward<H>(h));
    return detail::CatchNode<T, Hn>::call_handler(handler, input->error);
  }
  auto* node = detail::make_node<detail::CatchNode<T, Hn>>(&detail::catch_ops<T, Hn>, Hn(std::forward<H>(h)));
  detail::link_callback_node(node, input, site);
  return Promise<T>::adopt(node);
}

}  // namespace skein
