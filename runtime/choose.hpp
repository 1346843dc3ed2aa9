// choose.hpp — choose and pick: the first input to settle decides.
//
// choose(ps): the result settles like the first of ps to settle; the others
// go on. pick(ps): the same, and every other input is cancelled (before the
// result settles, as Lwt does). When several inputs are already settled at
// the call, the first in list order wins (Lwt picks one at random). Both
// reject an empty list with std::invalid_argument. Each takes a std::vector
// or a braced list (`pick({p, q})`: the std::initializer_list overload,
// since a braced list cannot deduce T for a std::vector parameter).
//
// After the first input, the remaining links only give back their reference
// when their inputs settle or die; they do nothing else.
#pragma once

#include <initializer_list>
#include <source_location>
#include <span>
#include <stdexcept>
#include <vector>

#include "runtime/cancel_ops.hpp"
#include "runtime/input_link.hpp"
#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"

namespace skein {

namespace detail {

template <class T>
struct ChooseNode final : NodeT<T> {
  ChooseNode(const NodeOps* node_ops, bool cancel_losers)
      : NodeT<T>(node_ops, next_thread_id()), cancel_others(cancel_losers) {}
  InputLinks<ChooseNode> links;
  bool cancel_others;
  bool decided = false;

  static void fire_link(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* link = static_cast<InputLink<ChooseNode>*>(w);
    ChooseNode* self = link->owner;
    if (event != WaitEvent::detach && !self->decided) {
      ActorScope actor(self->id, event == WaitEvent::fire_deferred);
      self->decide(link->index, settled);
    }
    release(self);
  }

  void decide(std::size_t winner, Node* settled) noexcept {
    decided = true;
    trace_read(this->id, settled);
    Promise<T> keep = Promise<T>::adopt(this);  // cancelling losers runs callbacks
    add_ref(this);
    add_ref(settled);
    if (cancel_others) {
      CancelWork losers;
      try {
        links.push_inputs(losers, winner);
      } catch (...) {
      }
      for (Node* loser : losers) {
        cancel_node(loser);
        release(loser);
      }
    }
    NodeT<T>* root = underlying(static_cast<NodeT<T>*>(this));
    if (root->state == NodeState::pending) settle_like(root, static_cast<NodeT<T>*>(settled), false);
    release(settled);
  }
};
template <class T>
inline constexpr NodeOps choose_ops{&destroy_as<ChooseNode<T>>, &cancel_through_links<ChooseNode<T>>,
                                    trace::Kind::choose};
template <class T>
inline constexpr NodeOps pick_ops{&destroy_as<ChooseNode<T>>, &cancel_through_links<ChooseNode<T>>,
                                  trace::Kind::pick};

template <class T>
[[nodiscard]] Promise<T> choose_first(std::span<const Promise<T>> inputs, bool cancel_losers,
                                      const std::source_location& site) {
  if (inputs.empty()) throw std::invalid_argument(cancel_losers ? "skein::pick: no promises" : "skein::choose: no promises");
  auto* node = make_node<ChooseNode<T>>(cancel_losers ? &pick_ops<T> : &choose_ops<T>, cancel_losers);
  Promise<T> result = Promise<T>::adopt(node);
  trace_spawn(node, site);
  node->links.allocate(inputs.size());
  std::size_t first_settled = inputs.size();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Node* input = root_of(inputs[i]);
    if (input->state != NodeState::pending) {
      first_settled = i;
      break;
    }
  }
  if (first_settled == inputs.size()) {
    for (std::size_t i = 0; i < inputs.size(); ++i) node->links.link(node, i, root_of(inputs[i]));
    return result;
  }
  // Already decided. pick still cancels the others, which are not linked.
  node->decided = true;
  trace_read(node->id, root_of(inputs[first_settled]));
  if (cancel_losers) {
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (i != first_settled) cancel_node(inputs[i].node());
  }
  NodeT<T>* root = underlying(static_cast<NodeT<T>*>(node));
  if (root->state == NodeState::pending) settle_like(root, root_of(inputs[first_settled]), false);
  return result;
}

}  // namespace detail

// Settles like the first input to settle; the others go on.
template <class T>
[[nodiscard]] Promise<T> choose(const std::vector<Promise<T>>& inputs,
                                std::source_location site = std::source_location::current()) {
  return detail::choose_first<T>(inputs, false, site);
}
template <class T>
[[nodiscard]] Promise<T> choose(std::initializer_list<Promise<T>> inputs,
                                std::source_location site = std::source_location::current()) {
  return detail::choose_first<T>(std::span<const Promise<T>>(inputs.begin(), inputs.size()), false, site);
}

// Settles like the first input to settle; the others are cancelled.
template <class T>
[[nodiscard]] Promise<T> pick(const std::vector<Promise<T>>& inputs,
                              std::source_location site = std::source_location::current()) {
  return detail::choose_first<T>(inputs, true, site);
}
template <class T>
[[nodiscard]] Promise<T> pick(std::initializer_list<Promise<T>> inputs,
                              std::source_location site = std::source_location::current()) {
  return detail::choose_first<T>(std::span<const Promise<T>>(inputs.begin(), inputs.size()), true, site);
}

}  // namespace skein
