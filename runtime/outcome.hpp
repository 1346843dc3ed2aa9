// outcome.hpp — what a fiber's or a coroutine's body ended with, how its
// promise is settled with it, and how a suspended body reads the promise it
// waited on. Shared by fiber.hpp and coroutine.hpp.
//
// A body ends with a value (or nothing, for void) or an exception. Settling
// goes to the root of the body's node, which is the node itself unless a bind
// tail-merged it (proxy.hpp). An escaping skein::Canceled is a cancellation
// flowing on (the body awaited a cancelled promise and did not catch it), so
// it rejects with the cancel flag: outcome cancel in the trace, canceled()
// true, as when a bind passes a cancellation along.
#pragma once

#include <exception>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "runtime/actor.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/promise_node.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein::detail {

[[nodiscard]] inline bool is_canceled_error(const std::exception_ptr& error) noexcept {
  try {
    std::rethrow_exception(error);
  } catch (const Canceled&) {
    return true;
  } catch (...) {
    return false;
  }
}

template <class T>
struct Outcome {
  std::optional<T> value;
  std::exception_ptr error;

  template <class V>
  void set_value(V&& v) {
    value.emplace(std::forward<V>(v));
  }
  [[nodiscard]] bool empty() const noexcept { return !value && !error; }
};
template <>
struct Outcome<void> {
  bool done = false;
  std::exception_ptr error;

  void set_value() noexcept { done = true; }
  [[nodiscard]] bool empty() const noexcept { return !done && !error; }
};

// Settles the root of `node` with `outcome`, as the current actor. A root
// that is no longer pending (defensive: nothing else settles a fiber's or
// coroutine's promise) is left alone.
template <class T>
void settle_with(NodeT<T>* node, Outcome<T>&& outcome) {
  NodeT<T>* root = underlying(node);
  if (root->state != NodeState::pending) return;
  if (outcome.empty()) [[unlikely]]  // defensive: a body always ends one way or the other
    outcome.error = std::make_exception_ptr(std::logic_error("skein: a fiber or coroutine ended without an outcome"));
  if (outcome.error) {
    const bool canceled = is_canceled_error(outcome.error);
    reject(root, std::move(outcome.error), canceled);
  } else if constexpr (std::is_void_v<T>) {
    fulfill(root);
  } else {
    fulfill(root, std::move(*outcome.value));
  }
}

// Reads the settled `root` as `reader`: records the read, rethrows a
// rejection, returns the value (moved out when `sole` says the caller's
// reference is the only one left, so nobody else can read it).
template <class T>
T read_outcome(ThreadId reader, NodeT<T>* root, bool sole) {
  assert(root->state == NodeState::fulfilled || root->state == NodeState::rejected);
  trace_read(reader, root);
  if (root->state == NodeState::rejected) std::rethrow_exception(root->error);
  if constexpr (std::is_void_v<T>) {
    return;
  } else {
    if (sole) return std::move(root->value);
    return static_cast<const T&>(root->value);
  }
}

}  // namespace skein::detail
