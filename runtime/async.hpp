// async.hpp — async(f): start detached work, and the hook its failures go to.
//
// async(f) runs f() now, as a new thread of kind async, and keeps nothing of
// it but its failure: when the promise f returns (or f itself) fails, the
// async thread is resolved with outcome fail and the exception goes to the
// async exception hook (default: a line on stderr). f's promise is merged
// into the async thread when pending, like a bind's tail call.
#pragma once

#include <exception>
#include <functional>
#include <source_location>
#include <type_traits>

#include "runtime/bind.hpp"
#include "runtime/promise.hpp"
#include "runtime/proxy.hpp"
#include "runtime/resolver.hpp"

namespace skein {

using AsyncExceptionHook = std::function<void(std::exception_ptr)>;

// Replaces the hook (an empty one restores the default); returns the old one.
AsyncExceptionHook set_async_exception_hook(AsyncExceptionHook hook);

namespace detail {
inline constexpr NodeOps async_ops{&destroy_as<NodeT<void>>, nullptr, trace::Kind::async};
}  // namespace detail

template <class F>
void async(F&& f, std::source_location site = std::source_location::current()) {
  static_assert(std::is_same_v<std::invoke_result_t<F&>, Promise<void>>, "skein::async: f must return Promise<void>");
  auto* node = detail::make_node<detail::NodeT<void>>(&detail::async_ops, detail::next_thread_id());
  Promise<void> self = Promise<void>::adopt(node);
  node->flags |= detail::kAsyncWatched;
  detail::trace_spawn(node, site);
  detail::ActorScope actor(node->id, false);
  Promise<void> q;
  try {
    q = f();
    if (!q.valid()) throw std::logic_error("skein::async: f returned an empty promise");
  } catch (...) {
    q = failed<void>(std::current_exception());
  }
  detail::become<void>(node, q.node());
}

}  // namespace skein
