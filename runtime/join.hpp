// join.hpp — join (wait for all, no values) and all (wait for all, gather
// the values).
//
// Both wait until every input has settled, as Lwt's join does, then fulfill,
// or reject with the first rejection seen (in settlement order). The result
// reads each input as it settles (a read record per input). Cancelling the
// result cancels every input still pending.
//
// Inputs come as a std::vector or as a braced list: join's element type is
// fixed, so `join({a, b})` converts to the vector; all's is deduced, which a
// braced list cannot do for a std::vector parameter, so `all({p, q})` takes
// the std::initializer_list overload (also the better match where both are
// viable, as in `all<int>({p, q})`).
#pragma once

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <optional>
#include <source_location>
#include <span>
#include <vector>

#include "runtime/bind.hpp"  // root_of
#include "runtime/cancel_ops.hpp"
#include "runtime/input_link.hpp"
#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"

namespace skein {

namespace detail {

// Waits on inputs of type T; the result is void (join) or std::vector<T> (all).
template <class T, class R>
struct GatherNode final : NodeT<R> {
  GatherNode(const NodeOps* node_ops, std::size_t count) : NodeT<R>(node_ops, next_thread_id()), remaining(count) {
    if constexpr (!std::is_void_v<T>) slots.resize(count);
  }
  InputLinks<GatherNode> links;
  std::size_t remaining;
  std::exception_ptr first_error;
  bool first_canceled = false;
  struct NoSlots {};
  [[no_unique_address]] std::conditional_t<std::is_void_v<T>, NoSlots, std::vector<std::optional<T>>> slots;

  static void fire_link(Waiter* w, Node* settled, WaitEvent event) noexcept {
    auto* link = static_cast<InputLink<GatherNode>*>(w);
    GatherNode* self = link->owner;
    if (event != WaitEvent::detach) {
      ActorScope actor(self->id, event == WaitEvent::fire_deferred);
      self->take(link->index, settled);
    }
    release(self);
  }

  // Input i settled.
  void take(std::size_t i, Node* settled) noexcept {
    trace_read(this->id, settled);
    if (settled->state == NodeState::rejected) {
      if (!first_error) {
        first_error = settled->error;
        first_canceled = (settled->flags & kCanceled) != 0;
      }
    } else if constexpr (!std::is_void_v<T>) {
      try {
        slots[i].emplace(static_cast<NodeT<T>*>(settled)->value);
      } catch (...) {
        if (!first_error) first_error = std::current_exception();
      }
    }
    if (--remaining == 0) finish();
  }

  // Drops the extra count gather() holds while it links the inputs.
  void take_guard() noexcept {
    if (--remaining == 0) finish();
  }

  void finish() noexcept {
    NodeT<R>* root = underlying(static_cast<NodeT<R>*>(this));
    if (root->state != NodeState::pending) return;
    if (first_error) {
      reject(root, first_error, first_canceled);
      return;
    }
    if constexpr (std::is_void_v<T>) {
      fulfill(root);
    } else {
      try {
        R values;
        values.reserve(slots.size());
        for (auto& slot : slots) values.push_back(std::move(*slot));
        slots.clear();
        fulfill(root, std::move(values));
      } catch (...) {
        if (root->state == NodeState::pending) reject(root, std::current_exception(), false);
      }
    }
  }
};
template <class T, class R>
inline constexpr NodeOps gather_ops{&destroy_as<GatherNode<T, R>>, &cancel_through_links<GatherNode<T, R>>,
                                    trace::Kind::join};
template <class T, class R>
inline constexpr NodeOps all_ops{&destroy_as<GatherNode<T, R>>, &cancel_through_links<GatherNode<T, R>>,
                                 trace::Kind::all};

template <class T, class R>
[[nodiscard]] Promise<R> gather(std::span<const Promise<T>> inputs, const NodeOps* node_ops,
                                const std::source_location& site) {
  auto* node = make_node<GatherNode<T, R>>(node_ops, inputs.size());
  Promise<R> result = Promise<R>::adopt(node);
  trace_spawn(node, site);
  node->links.allocate(inputs.size());
  // Settled inputs are taken after the pending ones are linked, so the count
  // cannot reach zero while links are still being made.
  ++node->remaining;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    Node* input = root_of(inputs[i]);
    if (input->state == NodeState::pending) node->links.link(node, i, input);
    else node->take(i, input);
  }
  node->take_guard();
  return result;
}

}  // namespace detail

// Fulfilled when every input has settled; rejected with the first rejection.
[[nodiscard]] inline Promise<void> join(const std::vector<Promise<void>>& inputs,
                                        std::source_location site = std::source_location::current()) {
  return detail::gather<void, void>(inputs, &detail::gather_ops<void, void>, site);
}

// The values of every input, in input order; rejected with the first rejection.
template <class T>
[[nodiscard]] Promise<std::vector<T>> all(const std::vector<Promise<T>>& inputs,
                                          std::source_location site = std::source_location::current()) {
  return detail::gather<T, std::vector<T>>(inputs, &detail::all_ops<T, std::vector<T>>, site);
}
template <class T>
[[nodiscard]] Promise<std::vector<T>> all(std::initializer_list<Promise<T>> inputs,
                                          std::source_location site = std::source_location::current()) {
  return detail::gather<T, std::vector<T>>(std::span<const Promise<T>>(inputs.begin(), inputs.size()),
                                           &detail::all_ops<T, std::vector<T>>, site);
}

}  // namespace skein
