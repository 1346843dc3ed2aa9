// input_link.hpp — the waiters of a node that waits on many inputs (join,
// all, choose, pick): one InputLink per input, in one array the owner frees.
//
// Invariant: a link that sits in an input's waiter list holds a reference on
// its owner, so the array outlives every list that points into it. A link's
// `input` is non-null exactly while it is linked (cancellation follows it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "runtime/node_pool.hpp"
#include "runtime/promise.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

template <class Owner>
struct InputLink : Waiter {
  Owner* owner = nullptr;
  std::uint32_t index = 0;
};

template <class Owner>
class InputLinks {
 public:
  InputLinks() = default;
  InputLinks(const InputLinks&) = delete;
  InputLinks& operator=(const InputLinks&) = delete;
  ~InputLinks() {
    if (links_ != nullptr) node_pool::deallocate(links_, count_ * sizeof(InputLink<Owner>));
  }
  void allocate(std::size_t count) {
    if (count == 0) return;
    links_ = static_cast<InputLink<Owner>*>(node_pool::allocate(count * sizeof(InputLink<Owner>)));
    count_ = count;
    for (std::size_t i = 0; i < count; ++i) ::new (static_cast<void*>(&links_[i])) InputLink<Owner>{};
  }
  [[nodiscard]] std::size_t size() const { return count_; }
  InputLink<Owner>& operator[](std::size_t i) { return links_[i]; }

  // Links link i of `owner` to the pending root `input`.
  void link(Owner* owner, std::size_t i, Node* input) {
    InputLink<Owner>& l = links_[i];
    l.owner = owner;
    l.index = static_cast<std::uint32_t>(i);
    l.on_event = &Owner::fire_link;
    add_ref(owner);
    attach_waiter(input, &l);
    trace_wait(owner->id, input);
  }

  // NodeOps::cancel for the owner: cancellation goes on to every linked input.
  void push_inputs(CancelWork& more, std::size_t except = SIZE_MAX) {
    for (std::size_t i = 0; i < count_; ++i) {
      if (i != except && links_[i].input != nullptr) {
        add_ref(links_[i].input);
        more.push_back(links_[i].input);
      }
    }
  }

 private:
  InputLink<Owner>* links_ = nullptr;
  std::size_t count_ = 0;
};

template <class N>
void cancel_through_links(Node* self, Node*, CancelWork& more) {
  static_cast<N*>(self)->links.push_inputs(more);
}

}  // namespace skein::detail
