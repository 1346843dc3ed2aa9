// promise.hpp — Promise<T>: a handle on a thread in Lwt's sense, a value of
// type T that will be there later (T may be void).
//
// A promise is pending, then fulfilled with a value or rejected with an
// exception; it never changes again. Handles are counted references to a
// node (promise_node.hpp): copying one is an increment, and the node is freed
// when the last handle, waiter or queue lets go. A handle whose node became a
// proxy (tail-merge) answers for the node it forwards to.
//
// Combinators are in their own headers: bind.hpp (then, map — read it first),
// catch.hpp, finally.hpp, join.hpp, choose.hpp, cancel.hpp, async.hpp;
// resolver.hpp makes promises, scheduler.hpp runs them.
#pragma once

#include <exception>
#include <source_location>
#include <stdexcept>
#include <string_view>
#include <type_traits>
#include <utility>

#include "runtime/promise_node.hpp"
#include "runtime/thread_id.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

namespace detail {
template <class T>
struct PromiseMembers;  // then and map, defined in bind.hpp
}  // namespace detail

enum class State : std::uint8_t { pending, fulfilled, rejected };

template <class T>
class [[nodiscard]] Promise {
 public:
  using value_type = T;

  Promise() noexcept = default;  // empty: valid() is false
  Promise(const Promise& other) noexcept : node_(other.node_) {
    if (node_ != nullptr) detail::add_ref(node_);
  }
  Promise(Promise&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
  Promise& operator=(Promise other) noexcept {
    std::swap(node_, other.node_);
    return *this;
  }
  ~Promise() {
    if (node_ != nullptr) detail::release(node_);
  }

  [[nodiscard]] bool valid() const noexcept { return node_ != nullptr; }

  [[nodiscard]] State state() const {
    switch (root()->state) {
      case detail::NodeState::fulfilled: return State::fulfilled;
      case detail::NodeState::rejected: return State::rejected;
      default: return State::pending;
    }
  }
  [[nodiscard]] bool canceled() const { return (root()->flags & detail::kCanceled) != 0; }

  // The value of a fulfilled promise; rethrows a rejected one's error; throws
  // std::logic_error on a pending one.
  [[nodiscard]] decltype(auto) value() const {
    detail::NodeT<T>* r = root();
    if (r->state == detail::NodeState::rejected) std::rethrow_exception(r->error);
    if (r->state != detail::NodeState::fulfilled) throw std::logic_error("skein::Promise::value: the promise is pending");
    if constexpr (std::is_void_v<T>) return;
    else return static_cast<const T&>(r->value);
  }
  // The error of a rejected promise, null otherwise.
  [[nodiscard]] std::exception_ptr error() const {
    detail::NodeT<T>* r = root();
    return r->state == detail::NodeState::rejected ? r->error : std::exception_ptr{};
  }

  // The thread id the trace uses for this promise now (after a tail-merge,
  // the newest identity of the merged thread).
  [[nodiscard]] ThreadId id() const { return root()->id; }

  // Names this promise's thread in the trace.
  const Promise& label(std::string_view text) const {
    detail::NodeT<T>* r = root();
    if (detail::trace_named(r)) detail::trace_label(r->id, text);
    return *this;
  }

  // p.then(f) is bind(p, f); p.map(f) is map(p, f). Include bind.hpp (or
  // runtime.hpp) to use them.
  template <class F>
  [[nodiscard]] auto then(F&& f, std::source_location site = std::source_location::current()) const {
    return detail::PromiseMembers<T>::then(*this, std::forward<F>(f), site);
  }
  template <class F>
  [[nodiscard]] auto map(F&& f, std::source_location site = std::source_location::current()) const {
    return detail::PromiseMembers<T>::map(*this, std::forward<F>(f), site);
  }

  // For the runtime's own headers: take over one reference / look at the node.
  [[nodiscard]] static Promise adopt(detail::NodeT<T>* node) noexcept {
    Promise p;
    p.node_ = node;
    return p;
  }
  [[nodiscard]] detail::NodeT<T>* node() const noexcept { return node_; }

 private:
  [[nodiscard]] detail::NodeT<T>* root() const {
    if (node_ == nullptr) throw std::logic_error("skein::Promise: empty promise (default-constructed or moved from)");
    return detail::underlying(node_);
  }

  detail::NodeT<T>* node_ = nullptr;
};

template <class Q>
struct is_promise : std::false_type {};
template <class U>
struct is_promise<Promise<U>> : std::true_type {};
template <class Q>
inline constexpr bool is_promise_v = is_promise<Q>::value;

}  // namespace skein
