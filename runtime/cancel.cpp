// cancel.cpp — the cancellation walk (cancel_ops.hpp) and Canceled.
#include "runtime/cancel_ops.hpp"

#include "runtime/settle.hpp"

namespace skein {

const char* Canceled::what() const noexcept { return "skein::Canceled"; }

}  // namespace skein

namespace skein::detail {

const std::exception_ptr& canceled_error() {
  static const std::exception_ptr error = std::make_exception_ptr(Canceled{});
  return error;
}

void settle_canceled(Node* root) {
  if (root->state == NodeState::pending) reject(root, canceled_error(), true);
}

void cancel_by_settling(Node*, Node* root, CancelWork&) { settle_canceled(root); }

void cancel_node(Node* node) {
  CancelWork work;
  add_ref(node);
  work.push_back(node);
  while (!work.empty()) {
    Node* n = work.back();
    work.pop_back();
    Node* root = underlying(n);
    if (root->state == NodeState::pending) {
      Node* how = root->cancel_source != nullptr ? root->cancel_source : root;
      if (how->ops->cancel != nullptr) how->ops->cancel(how, root, work);
    }
    release(n);
  }
}

}  // namespace skein::detail
