// tcp.cpp — the machinery behind tcp.hpp: socket states shared between the
// handles and the asio handlers, and io threads (IoNode) settled from the
// handlers the loop runs.
//
// Each socket lives in a state object (TcpStreamState, TcpListenerState,
// ConnectState) that the user's handles and every asio handler in flight
// hold by std::shared_ptr, so the socket outlives its pending operations
// whatever the handles do. A pending operation is an IoNode registered in
// its state (the state holds one reference); the IoNode holds the state, so
// cancel can reach the socket.
//
// Invariants:
//   1. A registered operation is pending, and has an asio operation in
//      flight that will serve it: one started for it, or an earlier one
//      (aborted by a cancel) whose handler starts the next. So a registered
//      operation always ends, and the loop never reports deadlock while one
//      waits.
//   2. Whatever settles a registered operation unregisters it first (the
//      handler, or cancel_io), so a handler never settles a cancelled one.
//   3. Bytes received go to the stream's inbox before any read takes them,
//      and accepted sockets to the listener's backlog, so a cancelled read
//      or accept loses nothing.
//   4. A handler settles at most one operation, as its last step: settling
//      runs the program's callbacks, which may start new operations on the
//      same state or close it.
#include "runtime/tcp.hpp"

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <stdexcept>
#include <system_error>
#include <utility>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include "runtime/actor.hpp"
#include "runtime/cancel_ops.hpp"
#include "runtime/resolver.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/settle.hpp"
#include "runtime/trace_hooks.hpp"

namespace skein {

namespace detail {

namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using ErrorCode = boost::system::error_code;

// System errors keep std::system_category, so they compare with std::errc.
std::error_code to_std(const ErrorCode& ec) {
  if (ec.category() == boost::system::system_category()) return {ec.value(), std::system_category()};
  if (ec.category() == boost::system::generic_category()) return {ec.value(), std::generic_category()};
  return static_cast<std::error_code>(ec);
}

std::exception_ptr io_error(const ErrorCode& ec, const std::string& where) {
  return std::make_exception_ptr(std::system_error(to_std(ec), where));
}
std::exception_ptr io_error(std::errc code, const std::string& where) {
  return std::make_exception_ptr(std::system_error(std::make_error_code(code), where));
}

// What cancel asks to stop an operation: unregister it and cancel the
// socket operation. Returns whether `op` was registered (then the caller
// owns the state's reference on it).
struct IoOwner {
  virtual ~IoOwner() = default;
  virtual bool cancel_io(Node* op) = 0;
};

// An io thread: a pending NodeT<T> that knows the state it waits in.
template <class T>
struct IoNode final : NodeT<T> {
  IoNode(const NodeOps* node_ops, std::shared_ptr<IoOwner> io_owner)
      : NodeT<T>(node_ops, next_thread_id()), owner(std::move(io_owner)) {}
  std::shared_ptr<IoOwner> owner;

  // NodeOps::cancel: unregister (invariant 2), settle, then let go.
  static void cancel(Node* self, Node* root, CancelWork&) {
    std::shared_ptr<IoOwner> keep = static_cast<IoNode*>(self)->owner;
    const bool registered = keep->cancel_io(self);
    settle_canceled(root);
    if (registered) release(self);
  }
};
template <class T>
inline constexpr NodeOps io_ops{&destroy_as<IoNode<T>>, &IoNode<T>::cancel, trace::Kind::io};

// A new io thread spawned at `site`, registered (the second reference).
template <class T>
[[nodiscard]] std::pair<Promise<T>, Node*> spawn_io(std::shared_ptr<IoOwner> owner, const std::source_location& site) {
  auto* node = make_node<IoNode<T>>(&io_ops<T>, std::move(owner));
  Promise<T> p = Promise<T>::adopt(node);
  trace_spawn(node, site);
  add_ref(node);
  return {std::move(p), node};
}

// Runs as the loop (-1) while a handler settles an io thread.
class LoopActor {
 public:
  LoopActor() noexcept : saved_(g_runtime.actor) { g_runtime.actor = trace::kScheduler; }
  ~LoopActor() { g_runtime.actor = saved_; }
  LoopActor(const LoopActor&) = delete;
  LoopActor& operator=(const LoopActor&) = delete;

 private:
  ThreadId saved_;
};

// Settles the unregistered io thread `op` (taking over its reference) from a
// handler: notify(-1 -> op, io), then the resolve by -1, then switch -1 if
// callbacks ran, as the loop's wake-ups do.
template <class T, class... A>
void io_fulfill(Node* op, A&&... value) {
  LoopActor actor;
  auto* root = underlying(static_cast<NodeT<T>*>(op));
  if (root->state == NodeState::pending) [[likely]] {
    trace_notify(trace::kScheduler, root, trace::Reason::io);
    const bool runs_code = root->last != nullptr;
    fulfill(root, std::forward<A>(value)...);
    if (runs_code) trace_switch(trace::kScheduler);
  }
  release(op);
}
void io_reject(Node* op, std::exception_ptr error) {
  LoopActor actor;
  Node* root = underlying(op);
  if (root->state == NodeState::pending) [[likely]] {
    trace_notify(trace::kScheduler, root, trace::Reason::io);
    const bool runs_code = root->last != nullptr;
    reject(root, std::move(error), false);
    if (runs_code) trace_switch(trace::kScheduler);
  }
  release(op);
}

// A stream handle over a connected socket (defined after the handles).
[[nodiscard]] TcpStream make_stream(tcp::socket socket);

}  // namespace

// --- streams ------------------------------------------------------------------------

struct TcpStreamState final : IoOwner, std::enable_shared_from_this<TcpStreamState> {
  explicit TcpStreamState(tcp::socket s) : socket(std::move(s)) {}

  static constexpr std::size_t kChunk = 64 * 1024;
  enum class ReadMode : std::uint8_t { some, exactly };

  tcp::socket socket;

  // Input (invariant 3): received, not yet read.
  std::string inbox;
  bool eof = false;
  ErrorCode read_error;  // a failure no read has reported yet
  bool read_in_flight = false;
  std::unique_ptr<char[]> chunk;  // what asio reads into

  // The pending read (registered: one reference).
  Node* read_op = nullptr;
  ReadMode read_mode = ReadMode::some;
  std::span<char> read_target;  // some: the caller's buffer
  std::size_t read_want = 0;    // exactly: how many bytes

  // The pending write: its bytes, shared with the asio operation writing
  // them, so a stale operation never writes from freed memory.
  Node* write_op = nullptr;
  std::shared_ptr<const std::string> write_data;
  std::size_t written = 0;
  bool write_in_flight = false;

  bool cancel_io(Node* op) override {
    ErrorCode ignored;
    if (op == read_op) {
      read_op = nullptr;
      socket.cancel(ignored);  // the write, if any, is restarted by its handler
      return true;
    }
    if (op == write_op) {
      write_op = nullptr;
      write_data.reset();
      socket.cancel(ignored);
      return true;
    }
    return false;
  }

  void close() {
    ErrorCode ignored;
    socket.close(ignored);  // pending asio operations complete with operation_aborted
  }

  // Moves up to buffer.size() inbox bytes into buffer.
  std::size_t take_into(std::span<char> buffer) {
    const std::size_t n = std::min(buffer.size(), inbox.size());
    std::memcpy(buffer.data(), inbox.data(), n);
    inbox.erase(0, n);
    return n;
  }

  void start_read() {
    if (!chunk) chunk = std::make_unique<char[]>(kChunk);
    read_in_flight = true;
    socket.async_read_some(asio::buffer(chunk.get(), kChunk),
                           [self = shared_from_this()](const ErrorCode& ec, std::size_t n) { self->on_read(ec, n); });
  }

  void on_read(const ErrorCode& ec, std::size_t n) {
    read_in_flight = false;
    if (!ec) inbox.append(chunk.get(), n);
    else if (ec == asio::error::eof) eof = true;
    else if (ec != asio::error::operation_aborted) read_error = ec;
    serve_read();
  }

  // Serves the registered read from the inbox, or keeps reading for it.
  void serve_read() {
    if (read_op == nullptr) return;
    if (read_mode == ReadMode::some ? !inbox.empty() : inbox.size() >= read_want) {
      Node* op = std::exchange(read_op, nullptr);
      if (read_mode == ReadMode::some) {
        const std::size_t n = take_into(read_target);
        io_fulfill<std::size_t>(op, n);
      } else {
        std::string bytes = inbox.substr(0, read_want);
        inbox.erase(0, read_want);
        io_fulfill<std::string>(op, std::move(bytes));
      }
      return;
    }
    if (eof) {
      Node* op = std::exchange(read_op, nullptr);
      if (read_mode == ReadMode::some) io_fulfill<std::size_t>(op, std::size_t{0});
      else io_reject(op, io_error(asio::error::eof, "skein::TcpStream::read_exactly: end of stream"));
      return;
    }
    if (read_error) {
      Node* op = std::exchange(read_op, nullptr);
      io_reject(op, io_error(std::exchange(read_error, ErrorCode{}), "skein::TcpStream: read"));
      return;
    }
    if (!socket.is_open()) {
      Node* op = std::exchange(read_op, nullptr);
      io_reject(op, io_error(asio::error::operation_aborted, "skein::TcpStream: read: the stream was closed"));
      return;
    }
    if (!read_in_flight) start_read();
  }

  // What a new read gets at once, if anything; null: it has to wait.
  template <class T>
  [[nodiscard]] std::optional<Promise<T>> read_now(const char* what) {
    if (!socket.is_open())
      return failed<T>(io_error(std::errc::bad_file_descriptor, std::string(what) + ": the stream is closed"));
    if (read_op != nullptr)
      return failed<T>(std::logic_error(std::string(what) + ": another read is pending on this stream"));
    if (read_error) return failed<T>(io_error(std::exchange(read_error, ErrorCode{}), what));
    return std::nullopt;
  }

  void start_write() {
    write_in_flight = true;
    std::shared_ptr<const std::string> data = write_data;
    asio::async_write(socket, asio::buffer(data->data() + written, data->size() - written),
                      [self = shared_from_this(), data](const ErrorCode& ec, std::size_t n) { self->on_write(data, ec, n); });
  }

  void on_write(const std::shared_ptr<const std::string>& data, const ErrorCode& ec, std::size_t n) {
    write_in_flight = false;
    if (write_op == nullptr) return;  // its write was cancelled
    if (data != write_data) {         // a stale operation of a cancelled write; the new one waited
      start_write();
      return;
    }
    written += n;
    if (!ec) {
      write_data.reset();
      io_fulfill<void>(std::exchange(write_op, nullptr));
    } else if (ec == asio::error::operation_aborted && socket.is_open()) {
      start_write();  // aborted by a cancel of the read: go on where it stopped
    } else {
      write_data.reset();
      const char* why = ec == asio::error::operation_aborted ? "skein::TcpStream::write_all: the stream was closed"
                                                             : "skein::TcpStream::write_all";
      io_reject(std::exchange(write_op, nullptr), io_error(ec, why));
    }
  }
};

// --- listeners --------------------------------------------------------------------

struct TcpListenerState final : IoOwner, std::enable_shared_from_this<TcpListenerState> {
  explicit TcpListenerState(tcp::acceptor a) : acceptor(std::move(a)) {}

  tcp::acceptor acceptor;
  std::deque<tcp::socket> backlog;  // accepted, not yet taken (invariant 3)
  ErrorCode accept_error;           // a failure no accept has reported yet
  bool accept_in_flight = false;
  Node* accept_op = nullptr;  // registered: one reference

  bool cancel_io(Node* op) override {
    if (op != accept_op) return false;
    accept_op = nullptr;
    ErrorCode ignored;
    acceptor.cancel(ignored);
    return true;
  }

  void close() {
    ErrorCode ignored;
    acceptor.close(ignored);
  }

  void start_accept() {
    accept_in_flight = true;
    acceptor.async_accept([self = shared_from_this()](const ErrorCode& ec, tcp::socket s) {
      self->on_accept(ec, std::move(s));
    });
  }

  void on_accept(const ErrorCode& ec, tcp::socket s) {
    accept_in_flight = false;
    if (!ec) backlog.push_back(std::move(s));
    else if (ec != asio::error::operation_aborted) accept_error = ec;
    serve_accept();
  }

  void serve_accept() {
    if (accept_op == nullptr) return;
    if (!backlog.empty()) {
      tcp::socket s = std::move(backlog.front());
      backlog.pop_front();
      io_fulfill<TcpStream>(std::exchange(accept_op, nullptr), make_stream(std::move(s)));
    } else if (accept_error) {
      io_reject(std::exchange(accept_op, nullptr),
                io_error(std::exchange(accept_error, ErrorCode{}), "skein::TcpListener::accept"));
    } else if (!acceptor.is_open()) {
      io_reject(std::exchange(accept_op, nullptr),
                io_error(asio::error::operation_aborted, "skein::TcpListener::accept: the listener was closed"));
    } else if (!accept_in_flight) {
      start_accept();
    }
  }
};

// --- connecting -------------------------------------------------------------------

namespace {

struct ConnectState final : IoOwner, std::enable_shared_from_this<ConnectState> {
  ConnectState() : socket(skein::io_context()) {}
  tcp::socket socket;
  Node* connect_op = nullptr;  // registered: one reference
  std::string where;           // "skein::tcp_connect 127.0.0.1:5000", for errors

  bool cancel_io(Node* op) override {
    if (op != connect_op) return false;
    connect_op = nullptr;
    ErrorCode ignored;
    socket.close(ignored);  // aborts the connect; the half-made connection goes
    return true;
  }

  void on_connect(const ErrorCode& ec) {
    if (connect_op == nullptr) return;  // cancelled
    Node* op = std::exchange(connect_op, nullptr);
    if (!ec) io_fulfill<TcpStream>(op, make_stream(std::move(socket)));
    else io_reject(op, io_error(ec, where));
  }
};

}  // namespace

}  // namespace detail

// --- the handles --------------------------------------------------------------------

struct TcpStream::Handle {
  explicit Handle(std::shared_ptr<detail::TcpStreamState> s) noexcept : state(std::move(s)) {}
  ~Handle() { state->close(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  std::shared_ptr<detail::TcpStreamState> state;
};

struct TcpListener::Handle {
  explicit Handle(std::shared_ptr<detail::TcpListenerState> s) noexcept : state(std::move(s)) {}
  ~Handle() { state->close(); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  std::shared_ptr<detail::TcpListenerState> state;
};

namespace detail {
namespace {
TcpStream make_stream(tcp::socket socket) {
  return TcpStream(std::make_shared<TcpStream::Handle>(std::make_shared<TcpStreamState>(std::move(socket))));
}
}  // namespace
}  // namespace detail

namespace {

template <class T>
[[nodiscard]] Promise<T> not_connected(const char* what) {
  return failed<T>(detail::io_error(std::errc::not_connected, std::string(what) + ": no connection"));
}

std::uint16_t port_of(const boost::asio::ip::tcp::endpoint& e) { return e.port(); }

}  // namespace

Promise<std::size_t> TcpStream::read_some(std::span<char> buffer, std::source_location site) const {
  constexpr const char* what = "skein::TcpStream::read_some";
  if (!handle_) return not_connected<std::size_t>(what);
  detail::TcpStreamState& s = *handle_->state;
  if (auto now = s.read_now<std::size_t>(what)) return std::move(*now);
  if (buffer.empty()) return resolved(std::size_t{0});
  if (!s.inbox.empty()) return resolved(s.take_into(buffer));
  if (s.eof) return resolved(std::size_t{0});
  auto [p, op] = detail::spawn_io<std::size_t>(handle_->state, site);
  s.read_op = op;
  s.read_mode = detail::TcpStreamState::ReadMode::some;
  s.read_target = buffer;
  if (!s.read_in_flight) s.start_read();
  return std::move(p);
}

Promise<std::string> TcpStream::read_exactly(std::size_t n, std::source_location site) const {
  constexpr const char* what = "skein::TcpStream::read_exactly";
  if (!handle_) return not_connected<std::string>(what);
  detail::TcpStreamState& s = *handle_->state;
  if (auto now = s.read_now<std::string>(what)) return std::move(*now);
  if (s.inbox.size() >= n) {
    std::string bytes = s.inbox.substr(0, n);
    s.inbox.erase(0, n);
    return resolved(std::move(bytes));
  }
  if (s.eof) return failed<std::string>(detail::io_error(boost::asio::error::eof, std::string(what) + ": end of stream"));
  auto [p, op] = detail::spawn_io<std::string>(handle_->state, site);
  s.read_op = op;
  s.read_mode = detail::TcpStreamState::ReadMode::exactly;
  s.read_want = n;
  if (!s.read_in_flight) s.start_read();
  return std::move(p);
}

Promise<void> TcpStream::write_all(std::string_view bytes, std::source_location site) const {
  constexpr const char* what = "skein::TcpStream::write_all";
  if (!handle_) return not_connected<void>(what);
  detail::TcpStreamState& s = *handle_->state;
  if (!s.socket.is_open())
    return failed<void>(detail::io_error(std::errc::bad_file_descriptor, std::string(what) + ": the stream is closed"));
  if (s.write_op != nullptr)
    return failed<void>(std::logic_error(std::string(what) + ": another write is pending on this stream"));
  if (bytes.empty()) return resolved();
  auto [p, op] = detail::spawn_io<void>(handle_->state, site);
  s.write_op = op;
  s.write_data = std::make_shared<const std::string>(bytes);
  s.written = 0;
  if (!s.write_in_flight) s.start_write();  // else the stale operation's handler starts it
  return std::move(p);
}

void TcpStream::shutdown_write() const {
  if (!handle_) return;
  boost::system::error_code ignored;
  handle_->state->socket.shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
}

void TcpStream::close() const {
  if (handle_) handle_->state->close();
}

bool TcpStream::is_open() const { return handle_ && handle_->state->socket.is_open(); }

std::uint16_t TcpStream::local_port() const {
  if (!handle_) return 0;
  boost::system::error_code ec;
  auto e = handle_->state->socket.local_endpoint(ec);
  return ec ? 0 : port_of(e);
}

std::uint16_t TcpStream::remote_port() const {
  if (!handle_) return 0;
  boost::system::error_code ec;
  auto e = handle_->state->socket.remote_endpoint(ec);
  return ec ? 0 : port_of(e);
}

TcpListener TcpListener::bind(std::uint16_t port) {
  using boost::asio::ip::tcp;
  const tcp::endpoint endpoint(boost::asio::ip::address_v4::loopback(), port);
  tcp::acceptor acceptor(io_context());
  boost::system::error_code ec;
  const std::string where = "skein::TcpListener::bind 127.0.0.1:" + std::to_string(port);
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(boost::asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::system_error(detail::to_std(ec), where);
  TcpListener listener;
  listener.handle_ = std::make_shared<Handle>(std::make_shared<detail::TcpListenerState>(std::move(acceptor)));
  return listener;
}

Promise<TcpStream> TcpListener::accept(std::source_location site) const {
  constexpr const char* what = "skein::TcpListener::accept";
  if (!handle_) return failed<TcpStream>(detail::io_error(std::errc::bad_file_descriptor, std::string(what) + ": not listening"));
  detail::TcpListenerState& s = *handle_->state;
  if (!s.acceptor.is_open())
    return failed<TcpStream>(detail::io_error(std::errc::bad_file_descriptor, std::string(what) + ": the listener is closed"));
  if (s.accept_op != nullptr)
    return failed<TcpStream>(std::logic_error(std::string(what) + ": another accept is pending on this listener"));
  if (!s.backlog.empty()) {
    boost::asio::ip::tcp::socket socket = std::move(s.backlog.front());
    s.backlog.pop_front();
    return resolved(detail::make_stream(std::move(socket)));
  }
  if (s.accept_error) return failed<TcpStream>(detail::io_error(std::exchange(s.accept_error, {}), what));
  auto [p, op] = detail::spawn_io<TcpStream>(handle_->state, site);
  s.accept_op = op;
  if (!s.accept_in_flight) s.start_accept();
  return std::move(p);
}

void TcpListener::close() const {
  if (handle_) handle_->state->close();
}

bool TcpListener::is_open() const { return handle_ && handle_->state->acceptor.is_open(); }

std::uint16_t TcpListener::local_port() const {
  if (!handle_) return 0;
  boost::system::error_code ec;
  auto e = handle_->state->acceptor.local_endpoint(ec);
  return ec ? 0 : port_of(e);
}

std::error_code end_of_stream_error() { return detail::to_std(boost::asio::error::eof); }

Promise<TcpStream> tcp_connect(std::string_view host, std::uint16_t port, std::source_location site) {
  const std::string where = "skein::tcp_connect " + std::string(host) + ":" + std::to_string(port);
  boost::system::error_code ec;
  const boost::asio::ip::address address =
      host == "localhost" ? boost::asio::ip::address(boost::asio::ip::address_v4::loopback())
                          : boost::asio::ip::make_address(std::string(host), ec);
  if (ec) return failed<TcpStream>(detail::io_error(std::errc::invalid_argument, where + ": not a numeric address"));
  auto state = std::make_shared<detail::ConnectState>();
  state->where = where;
  auto [p, op] = detail::spawn_io<TcpStream>(state, site);
  state->connect_op = op;
  state->socket.async_connect(boost::asio::ip::tcp::endpoint(address, port),
                              [state](const boost::system::error_code& result) { state->on_connect(result); });
  return std::move(p);
}

}  // namespace skein
