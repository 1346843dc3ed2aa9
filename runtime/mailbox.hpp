// mailbox.hpp — Mailbox<T>: a box that holds at most one value (Lwt_mvar).
//
// put(v) stores v when the box is empty and blocks while it is full; take()
// removes the value and blocks while the box is empty. Blocked takers and
// blocked putters are served first come, first served. A value is never in
// the box while a taker waits (put hands it straight to the oldest taker),
// and a putter never waits while the box is empty (take refills the box from
// the oldest putter at once), so:
//
//   Invariant: takers_ is empty or contents_ is empty; putters_ is empty or
//   contents_ is full.
//
// Tracing (wait_queue.hpp): a blocking call is a thread of kind mailbox; a
// put that hands its value to a waiting taker records notify(putter's
// thread -> taker, mailbox), a take that admits a waiting putter records
// notify(taker's thread -> putter, mailbox), each before the resolve. A call
// that does not block returns a constant, not a thread.
//
// A woken waiter's callbacks run inside the call that woke it, as in Lwt
// (past the stack guard's budget, from the loop: wait_queue.hpp); they may
// use the mailbox again, or destroy it.
//
// Cancellation: a cancelled take is never given a value (the value stays in
// the box for the next taker); a cancelled put never puts its value.
// The mailbox must outlive the calls on it; waiters still queued when it
// dies stay pending (they can still be cancelled), each recorded as a drop.
//
// Lost wake-ups: a Mailbox does not drop one. A put with no taker waiting
// stores its value, and the next take gets it at once; it records
// no-waiter(putter's thread, this mailbox's number, mailbox), which numbers
// the mailbox, and every take or put that blocks after that records
// queued(waiter, number).
#pragma once

#include <cassert>
#include <optional>
#include <source_location>
#include <type_traits>
#include <utility>

#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"
#include "runtime/wait_queue.hpp"

namespace skein {

template <class T>
class Mailbox {
  static_assert(std::is_nothrow_move_constructible_v<T>,
                "skein::Mailbox<T>: T must be nothrow-move-constructible, so a hand-over cannot lose a value");

 public:
  Mailbox() = default;  // empty
  explicit Mailbox(T initial) : contents_(std::move(initial)) {}
  Mailbox(const Mailbox&) = delete;  // waiters point at the queues
  Mailbox& operator=(const Mailbox&) = delete;

  // Fulfilled once v is in the box (or in a taker's hands): at once when the
  // box is empty, else when a take has made room. Cancelable while blocked.
  [[nodiscard]] Promise<void> put(T v, std::source_location site = std::source_location::current()) {
    check_invariants();
    if (contents_.has_value()) return detail::enqueue_waiter(putters_, trace_object_, site, std::move(v));
    if (Taker* taker = takers_.pop_pending()) {
      detail::wake_queued(taker, trace::Reason::mailbox, std::move(v));
    } else {
      contents_.emplace(std::move(v));
      detail::trace_no_waiter(trace_object_, trace::Reason::mailbox);
    }
    return resolved();
  }

  // The value in the box, removed: at once when there is one, else when a
  // put brings one. Cancelable while blocked.
  [[nodiscard]] Promise<T> take(std::source_location site = std::source_location::current()) {
    if (std::optional<T> v = take_available()) return resolved(std::move(*v));
    return detail::enqueue_waiter(takers_, trace_object_, site);
  }

  // The value in the box, removed, if there is one; never blocks.
  [[nodiscard]] std::optional<T> take_available() {
    check_invariants();
    if (!contents_.has_value()) return std::nullopt;
    std::optional<T> v(std::move(contents_));
    contents_.reset();
    if (Putter* putter = putters_.pop_pending()) {
      contents_.emplace(std::move(putter->extra));
      detail::wake_queued(putter, trace::Reason::mailbox);
    }
    return v;
  }

  [[nodiscard]] bool is_empty() const noexcept { return !contents_.has_value(); }

  // Blocked calls, for tests and diagnostics.
  [[nodiscard]] std::size_t waiting_takers() const noexcept { return takers_.size(); }
  [[nodiscard]] std::size_t waiting_putters() const noexcept { return putters_.size(); }

 private:
  using Taker = detail::QueuedNode<T, trace::Kind::mailbox>;
  using Putter = detail::QueuedNode<void, trace::Kind::mailbox, T>;

  // This file's invariant, in debug builds. Called at the start of an
  // operation: after a wake-up the mailbox may be gone.
  void check_invariants() const noexcept {
    assert(takers_.empty() || !contents_.has_value());
    assert(putters_.empty() || contents_.has_value());
    takers_.check();
    putters_.check();
  }

  std::optional<T> contents_;
  detail::WaitQueue<Taker> takers_;
  detail::WaitQueue<Putter> putters_;
  trace::ObjectId trace_object_ = trace::kNoObject;  // its number, from its first no-waiter
};

}  // namespace skein
