// stream.hpp — Stream<T>: a bounded, closable queue of values from pushers
// to readers (Lwt_stream.create_bounded).
//
// push(v) appends v and is fulfilled at once while fewer than `capacity`
// values are buffered (or a reader waits, which takes v directly); else it
// waits until a reader makes room. next() removes the oldest value: at once
// when one is buffered, else when a push brings one; after close(), once the
// buffer is drained, it is fulfilled with std::nullopt. close() wakes every
// waiting reader with nullopt and rejects every waiting push with
// StreamClosed (their values are dropped); a push after close is rejected
// with StreamClosed too; values already buffered stay readable. Capacity 0
// makes a rendezvous: each push waits for a reader.
//
// Departure from Lwt: Lwt's bounded push fails with Full when a second push
// arrives while one is already blocked; here pushers queue, first come,
// first served, like readers.
//
//   Invariants: readers_ is empty unless buffer_ is empty; pushers_ is empty
//   unless buffer_ holds `capacity` values; after close, both are empty.
//
// Tracing (wait_queue.hpp): a push or next that waits is a thread of kind
// stream; a push handing its value to a waiting reader, a next admitting a
// waiting pusher, and close waking either, record notify(actor -> that
// waiter, stream) before its resolve. A cancelled next is unlinked and never
// receives a value (it stays buffered for the next reader); a cancelled push
// never pushes. The stream must outlive its waiters' calls.
//
// Lost wake-ups: a Stream does not drop one. A push with no reader waiting
// buffers its value for the next next(); it records no-waiter(pusher's
// thread, this stream's number, stream), which numbers the stream, and
// every next or push that waits after that records queued(waiter, number).
// A stream destroyed with calls waiting (not closed) records a drop for
// each.
#pragma once

#include <cassert>
#include <cstddef>
#include <deque>
#include <exception>
#include <optional>
#include <source_location>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"
#include "runtime/wait_queue.hpp"

namespace skein {

// Why a push was refused: the stream is closed (Lwt_stream.Closed).
class StreamClosed : public std::logic_error {
 public:
  StreamClosed() : std::logic_error("skein::Stream: push on a closed stream") {}
};

template <class T>
class Stream {
  static_assert(std::is_nothrow_move_constructible_v<T>,
                "skein::Stream<T>: T must be nothrow-move-constructible, so a hand-over cannot lose a value");

 public:
  explicit Stream(std::size_t capacity) : capacity_(capacity) {}
  Stream(const Stream&) = delete;  // waiters point at the queues
  Stream& operator=(const Stream&) = delete;

  // Fulfilled once v is buffered or in a reader's hands; rejected with
  // StreamClosed if the stream is (or gets) closed first. Cancelable while
  // waiting.
  [[nodiscard]] Promise<void> push(T v, std::source_location site = std::source_location::current()) {
    check_invariants();
    if (closed_) return failed<void>(StreamClosed{});
    if (Reader* reader = readers_.pop_pending()) {
      detail::wake_queued(reader, trace::Reason::stream, std::optional<T>(std::move(v)));
      return resolved();
    }
    if (buffer_.size() < capacity_) {
      buffer_.push_back(std::move(v));
      detail::trace_no_waiter(trace_object_, trace::Reason::stream);
      return resolved();
    }
    return detail::enqueue_waiter(pushers_, trace_object_, site, std::move(v));
  }

  // The oldest value, or nullopt once the stream is closed and drained.
  // Cancelable while waiting.
  [[nodiscard]] Promise<std::optional<T>> next(std::source_location site = std::source_location::current()) {
    if (std::optional<T> v = next_available()) return resolved(std::move(v));
    if (closed_) return resolved(std::optional<T>());
    return detail::enqueue_waiter(readers_, trace_object_, site);
  }

  // The oldest value if one is there now (buffered, or from a waiting
  // pusher at capacity 0); never waits.
  [[nodiscard]] std::optional<T> next_available() {
    check_invariants();
    std::optional<T> v;
    if (!buffer_.empty()) {
      v.emplace(std::move(buffer_.front()));
      buffer_.pop_front();
      if (Pusher* pusher = pushers_.pop_pending()) {
        buffer_.push_back(std::move(pusher->extra));
        detail::wake_queued(pusher, trace::Reason::stream);
      }
    } else if (Pusher* pusher = pushers_.pop_pending()) {  // capacity 0
      v.emplace(std::move(pusher->extra));
      detail::wake_queued(pusher, trace::Reason::stream);
    }
    return v;
  }

  // Ends the stream: readers waiting get nullopt, pushers waiting and later
  // pushes StreamClosed. Closing twice does nothing.
  // Woken code may destroy the stream: close wakes from local queues.
  void close() {
    check_invariants();
    if (closed_) return;
    closed_ = true;
    detail::WaitQueue<Reader> readers;
    detail::WaitQueue<Pusher> pushers;
    readers_.move_all_to(readers);
    pushers_.move_all_to(pushers);
    while (Reader* reader = readers.pop_pending()) detail::wake_queued(reader, trace::Reason::stream, std::optional<T>());
    while (Pusher* pusher = pushers.pop_pending())
      detail::wake_queued_with_error(pusher, trace::Reason::stream, std::make_exception_ptr(StreamClosed{}));
  }

  [[nodiscard]] bool is_closed() const noexcept { return closed_; }
  [[nodiscard]] std::size_t size() const noexcept { return buffer_.size(); }  // buffered values
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  // Waiting calls, for tests and diagnostics.
  [[nodiscard]] std::size_t waiting_readers() const noexcept { return readers_.size(); }
  [[nodiscard]] std::size_t waiting_pushers() const noexcept { return pushers_.size(); }

 private:
  using Reader = detail::QueuedNode<std::optional<T>, trace::Kind::stream>;
  using Pusher = detail::QueuedNode<void, trace::Kind::stream, T>;

  // This file's invariants, in debug builds. Called at the start of an
  // operation: after a wake-up the stream may be gone.
  void check_invariants() const noexcept {
    assert(readers_.empty() || buffer_.empty());
    assert(pushers_.empty() || buffer_.size() == capacity_);
    assert(!closed_ || (readers_.empty() && pushers_.empty()));
    readers_.check();
    pushers_.check();
  }

  std::size_t capacity_;
  bool closed_ = false;
  std::deque<T> buffer_;
  detail::WaitQueue<Reader> readers_;
  detail::WaitQueue<Pusher> pushers_;
  trace::ObjectId trace_object_ = trace::kNoObject;  // its number, from its first no-waiter
};

}  // namespace skein
