// cancel_ops.hpp — how each kind of node answers cancel (Lwt's how_to_cancel),
// and the walk that finds what to cancel. The public API is cancel.hpp.
//
// Cancellation walks the dependency graph backwards, from a promise to what
// it waits on, and settles only the cancelable promises it reaches (task(),
// pause(), sleep()) with skein::Canceled; their callbacks then carry the
// rejection forwards. A wait() promise ignores cancel. After a tail-merge, a
// root cancels the way the promise merged into it would (cancel_source).
//
// Invariant: the walk holds a reference on every node it has queued, so
// callbacks run by a cancellation cannot free a node it still has to visit.
#pragma once

#include <exception>

#include "runtime/promise_node.hpp"

namespace skein {

// The error a cancelled promise is rejected with.
class Canceled : public std::exception {
 public:
  [[nodiscard]] const char* what() const noexcept override;
};

}  // namespace skein

namespace skein::detail {

[[nodiscard]] const std::exception_ptr& canceled_error();

// Settles the pending root `root` with Canceled (outcome cancel).
void settle_canceled(Node* root);

// NodeOps::cancel for promises that are cancelable themselves (task, pause).
void cancel_by_settling(Node* self, Node* root, CancelWork& more);

// NodeOps::cancel for nodes that wait on one input through their own Waiter
// (bind, map, catch, finally): cancellation goes on to that input.
template <class N>
void cancel_through_link(Node* self, Node*, CancelWork& more) {
  Waiter* link = static_cast<Waiter*>(static_cast<N*>(self));
  if (link->input != nullptr) {
    add_ref(link->input);
    more.push_back(link->input);
  }
}

// cancel(p) for any node.
void cancel_node(Node* node);

}  // namespace skein::detail
