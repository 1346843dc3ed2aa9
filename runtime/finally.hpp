// finally.hpp — finally(p, f): run a cleanup when p settles, whatever the
// outcome (Lwt's finalize).
//
// f takes nothing and returns void or Promise<void>. The result settles like
// p once f (and the promise it returned) is done; if f throws or its promise
// is rejected, that error wins. The FinallyNode waits in two stages with the
// same Waiter: first on p, then, if f's promise is pending, on that promise,
// holding p (`saved`, a strong reference) until then.
#pragma once

#include <exception>
#include <source_location>
#include <type_traits>

#include "runtime/bind.hpp"

namespace skein {

namespace detail {

template <class T, class F>
struct FinallyNode final : CallbackNode<T, F> {
  using CallbackNode<T, F>::CallbackNode;
  ~FinallyNode() {
    if (saved != nullptr) {  // stage 2: the callback is gone already
      release(saved);
      this->on_event = nullptr;
    }
  }
  // p, once the cleanup's promise is what we wait on. In stage 2 on_event is
  // set again (the Waiter is relinked) though the callback is gone.
  Node* saved = nullptr;

  static void fire(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* self = static_cast<FinallyNode*>(w);
    if (event == WaitEvent::detach) {
      if (self->on_event != nullptr && self->saved == nullptr) self->drop_callback();
      release(self);
      return;
    }
    ActorScope actor(self->id, event == WaitEvent::fire_deferred);
    trace_read(self->id, settled);
    if (self->saved != nullptr) {  // stage 2: the cleanup's promise settled
      self->finish(settled);
      release(self);
      return;
    }
    Promise<void> cleanup = self->run_cleanup();
    NodeT<void>* c = underlying(cleanup.node());
    if (c->state == NodeState::pending) {  // wait for it, keeping p; the list's reference stays ours
      add_ref(settled);
      self->saved = settled;
      self->on_event = &FinallyNode::fire;
      attach_waiter(c, self);
      trace_wait(self->id, c);
      return;
    }
    trace_read(self->id, c);
    self->saved = settled;
    add_ref(settled);
    self->finish(c);
    release(self);
  }

  // Calls f once; its exception becomes a rejected cleanup promise.
  Promise<void> run_cleanup() noexcept {
    Promise<void> result;
    try {
      if constexpr (std::is_void_v<std::invoke_result_t<F&>>) {
        this->callback();
        result = resolved();
      } else {
        result = this->callback();
        if (!result.valid()) throw std::logic_error("skein::finally: the cleanup returned an empty promise");
      }
    } catch (...) {
      result = failed<void>(std::current_exception());
    }
    this->drop_callback();
    return result;
  }

  // Settles the result: the cleanup's failure, else p's outcome.
  void finish(Node* cleanup_done) {
    NodeT<T>* root = underlying(static_cast<NodeT<T>*>(this));
    if (root->state == NodeState::pending) {
      if (cleanup_done->state == NodeState::rejected) reject_like(root, cleanup_done);
      else settle_like(root, static_cast<NodeT<T>*>(saved), false);
    }
    release(saved);
    saved = nullptr;
    this->on_event = nullptr;
  }
};
template <class T, class F>
inline constexpr NodeOps finally_ops{&destroy_as<FinallyNode<T, F>>, &cancel_through_link<FinallyNode<T, F>>,
                                     trace::Kind::finalize};

}  // namespace detail

template <class T, class F>
[[nodiscard]] Promise<T> finally(const Promise<T>& p, F&& f, std::source_location site = std::source_location::current()) {
  using Fn = std::decay_t<F>;
  using R = std::invoke_result_t<Fn&>;
  static_assert(std::is_void_v<R> || std::is_same_v<R, Promise<void>>,
                "skein::finally: the cleanup must return void or Promise<void>");
  detail::NodeT<T>* input = detail::root_of(p);
  auto* node = detail::make_node<detail::FinallyNode<T, Fn>>(&detail::finally_ops<T, Fn>, Fn(std::forward<F>(f)));
  Promise<T> result = Promise<T>::adopt(node);
  if (input->state == detail::NodeState::pending) {
    detail::link_callback_node(node, input, site);
  } else {  // already settled: run the cleanup now, as the finalize thread
    detail::trace_spawn(node, site);
    node->on_event = &detail::FinallyNode<T, Fn>::fire;
    detail::add_ref(node);  // the reference fire() gives back
    detail::FinallyNode<T, Fn>::fire(node, input, detail::WaitEvent::fire);
  }
  return result;
}

}  // namespace skein
