// tcp.hpp — TCP over Boost.Asio on the scheduler's io_context(): a
// listener, connect, and a stream with read_some, read_exactly, write_all.
// tcp.cpp has the machinery; OVERVIEW.md, section 8, the picture.
//
// Every operation that has to wait is a thread of kind io, spawned with the
// caller's site. When its socket operation completes, the loop (which runs
// the asio handlers: scheduler.hpp, step 3) records notify(-1 -> that
// thread, io) and settles it, as a timer's sleep is settled: the readiness of
// the socket explains the wake-up. An operation that can finish from what is
// already there (bytes already received, a connection already accepted)
// returns a settled constant, not a thread. A pending operation keeps the
// loop from reporting deadlock, as a pending sleep does.
//
// Errors reject with std::system_error carrying the asio error, converted to
// std::error_code: system errors keep std::system_category, so
// `e.code() == std::errc::connection_refused` holds, and an operation cut
// short by close() compares equal to std::errc::operation_canceled; the end
// of stream (asio's misc error eof) is end_of_stream_error().
//
// Cancellation: cancel(p) on a pending accept, connect, read or write rejects
// p with skein::Canceled at once and cancels the socket operation (the
// handler then sees operation_aborted and does nothing more). What it leaves:
//   - read: the stream stays open and usable; bytes that were arriving are
//     kept for the next read, never lost;
//   - write: the stream stays open, but a prefix of the bytes may have been
//     sent; what the peer sees next is undefined at the protocol level;
//   - accept: the listener stays usable; a connection accepted meanwhile is
//     kept for the next accept;
//   - connect: the half-made connection is closed.
// Asio 1.74 can only cancel every operation of a socket at once, so the
// other direction's operation (a write while a read is cancelled) is aborted
// too and restarted where it was, unseen by its caller.
//
// Ownership: TcpStream and TcpListener are shared handles; when the last
// copy goes (or on close()), the socket closes and its pending operations
// are rejected with std::system_error(operation_aborted). An operation in
// flight keeps the socket object itself alive until its handler has run, so
// destroying a stream or listener with a pending operation is safe.
//
// One read and one write may be pending on a stream at a time, and one
// accept on a listener; another one meanwhile is rejected with
// std::logic_error. Only numeric addresses (and "localhost") are accepted by
// tcp_connect: there is no name resolution.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

#include "runtime/promise.hpp"

namespace skein {

namespace detail {
struct TcpStreamState;
struct TcpListenerState;
}  // namespace detail

// A handle: copies share one connection, and operations are const, as on a
// shared_ptr (the connection changes, the handle does not).
class TcpStream {
 public:
  TcpStream() = default;  // no connection: every operation is rejected

  // At least one byte into `buffer`, as many as are there (up to its size),
  // or 0 at end of stream (and for an empty buffer). The buffer must stay
  // alive until the promise settles; it is written only just before the
  // promise is fulfilled.
  [[nodiscard]] Promise<std::size_t> read_some(std::span<char> buffer,
                                               std::source_location site = std::source_location::current()) const;
  // Exactly n bytes; rejected with end_of_stream_error() if the stream ends
  // first (the bytes that did come stay for the next read).
  [[nodiscard]] Promise<std::string> read_exactly(std::size_t n,
                                                  std::source_location site = std::source_location::current()) const;
  // All of `bytes` (copied: the caller's memory may go at once).
  [[nodiscard]] Promise<void> write_all(std::string_view bytes,
                                        std::source_location site = std::source_location::current()) const;

  // Half-close: the peer reads end of stream; reading goes on. Errors (a
  // connection already gone) are ignored.
  void shutdown_write() const;
  // Closes the socket; pending operations are rejected (operation_aborted).
  void close() const;
  [[nodiscard]] bool is_open() const;
  [[nodiscard]] std::uint16_t local_port() const;   // 0 when not connected
  [[nodiscard]] std::uint16_t remote_port() const;  // 0 when not connected

  // For tcp.cpp: a stream over a connected state.
  struct Handle;
  explicit TcpStream(std::shared_ptr<Handle> handle) noexcept : handle_(std::move(handle)) {}

 private:
  std::shared_ptr<Handle> handle_;
};

class TcpListener {
 public:
  TcpListener() = default;  // not listening: accept is rejected

  // Listens on 127.0.0.1:port (0: a free port the system picks). Throws
  // std::system_error when the port cannot be bound.
  [[nodiscard]] static TcpListener bind(std::uint16_t port = 0);

  // The next connection. Cancelable; see the header for what cancel leaves.
  [[nodiscard]] Promise<TcpStream> accept(std::source_location site = std::source_location::current()) const;

  // Stops listening; a pending accept is rejected (operation_aborted).
  void close() const;
  [[nodiscard]] bool is_open() const;
  [[nodiscard]] std::uint16_t local_port() const;  // 0 when not listening

  struct Handle;

 private:
  std::shared_ptr<Handle> handle_;
};

// The code read_exactly's rejection carries when the stream ends first.
[[nodiscard]] std::error_code end_of_stream_error();

// A connection to host:port, host a numeric IPv4/IPv6 address or
// "localhost" (127.0.0.1). Rejected with std::system_error on failure
// (connection_refused when nothing listens; invalid_argument for a host that
// is not an address).
[[nodiscard]] Promise<TcpStream> tcp_connect(std::string_view host, std::uint16_t port,
                                             std::source_location site = std::source_location::current());

}  // namespace skein
