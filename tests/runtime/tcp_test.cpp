// tcp_test.cpp — TCP over loopback (127.0.0.1 only): an exchange of
// messages, end of stream, a refused connection, cancellation of pending
// reads, writes, accepts and connects and what each leaves, streams and
// listeners destroyed with an operation pending, and the io records.
//
// Every run goes through run_within, which fails the test after a few
// seconds instead of hanging, so every test stops by itself.
#include <catch2/catch.hpp>

#include <array>
#include <cctype>
#include <cstdio>
#include <memory>
#include <chrono>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"

using namespace skein;
using namespace std::chrono_literals;

namespace {

// run(p), but fails the test if p has not settled within `limit`.
template <class T>
T run_within(const Promise<T>& p, std::chrono::milliseconds limit = 5000ms) {
  // pick: the loser is cancelled, so no timer is left behind to fire later.
  Promise<bool> settled = p.map([](const auto&...) { return true; });
  Promise<bool> in_time = pick(std::vector<Promise<bool>>{settled, skein::sleep(limit).map([] { return false; })});
  Promise<bool> first = skein::catch_(in_time, [](std::exception_ptr) { return resolved(true); });
  if (!run(first)) FAIL("timed out after " << limit.count() << " ms");
  return run(p);
}

struct Connection {
  TcpStream server;
  TcpStream client;
};

Connection connect_pair(TcpListener& listener) {
  Promise<TcpStream> accepted = listener.accept();
  Promise<TcpStream> connected = tcp_connect("127.0.0.1", listener.local_port());
  TcpStream client = run_within(connected);
  TcpStream server = run_within(accepted);
  return {server, client};
}

Connection connect_pair() {
  TcpListener listener = TcpListener::bind();
  return connect_pair(listener);
}

// Runs the loop until every asio handler already queued has run: the
// handlers of cancelled timers (run_within's) and of aborted socket
// operations, which hold nodes and would otherwise run inside a later test.
void drain_io() { run(skein::sleep(1ms)); }

// Declared first in every test: drains when the test's objects are gone,
// so no test leaves work behind for the next (its sockets are closed by then).
struct DrainAtEnd {
  DrainAtEnd() = default;
  DrainAtEnd(const DrainAtEnd&) = delete;
  DrainAtEnd& operator=(const DrainAtEnd&) = delete;
  ~DrainAtEnd() {
    try {
      drain_io();
    } catch (...) {
    }
  }
};

}  // namespace

TEST_CASE("tcp: bind picks a free port on 127.0.0.1 and accept/connect make a connection", "[tcp]") {
  DrainAtEnd drained;
  TcpListener listener = TcpListener::bind();
  CHECK(listener.is_open());
  CHECK(listener.local_port() != 0);
  Connection c = connect_pair(listener);
  CHECK(c.client.is_open());
  CHECK(c.server.is_open());
  CHECK(c.client.remote_port() == listener.local_port());
  CHECK(c.server.remote_port() == c.client.local_port());
}

TEST_CASE("tcp: a server and a client exchange a bounded number of messages, then end of stream", "[tcp]") {
  DrainAtEnd drained;
  TcpListener listener = TcpListener::bind();
  const int count = 50;
  std::vector<std::string> replies;
  int served = 0;

  // The server: read 8-byte messages and answer each in upper case, until
  // the client's end of stream, then close.
  std::function<Promise<void>(TcpStream)> serve = [&](TcpStream s) -> Promise<void> {
    return s.read_exactly(8).then([&, s](const std::string& msg) {
      std::string upper = msg;
      for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      ++served;
      return s.write_all(upper).then([&, s] { return serve(s); });
    });
  };
  Promise<void> server = listener.accept().then([&](const TcpStream& s) {
    return skein::catch_(serve(s), [s](std::exception_ptr e) -> Promise<void> {
      try {
        std::rethrow_exception(e);
      } catch (const std::system_error& err) {
        if (err.code() != end_of_stream_error()) throw;
      }
      s.close();  // the client has finished
      return resolved();
    });
  });

  std::function<Promise<void>(TcpStream, int)> talk = [&](TcpStream s, int i) -> Promise<void> {
    if (i == count) {
      s.shutdown_write();
      std::shared_ptr<std::array<char, 16>> buf = std::make_shared<std::array<char, 16>>();
      // The lambda keeps a handle: the last one's going would close the stream.
      return s.read_some(*buf).map([buf, s](std::size_t n) { CHECK(n == 0); });  // the server closed
    }
    char msg[9];
    std::snprintf(msg, sizeof msg, "msg-%04d", i);
    return s.write_all(msg).then([&, s, i] {
      return s.read_exactly(8).then([&, s, i](const std::string& reply) {
        replies.push_back(reply);
        return talk(s, i + 1);
      });
    });
  };
  Promise<void> client = tcp_connect("127.0.0.1", listener.local_port()).then([&](const TcpStream& s) {
    return talk(s, 0);
  });
  run_within(join({server, client}));
  CHECK(served == count);
  REQUIRE(replies.size() == static_cast<std::size_t>(count));
  CHECK(replies.front() == "MSG-0000");
  CHECK(replies.back() == "MSG-0049");
}

TEST_CASE("tcp: read_some returns what came, then 0 at end of stream, read_exactly fails with eof", "[tcp]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  run_within(c.client.write_all("hello"));
  c.client.close();
  std::array<char, 3> buf{};
  CHECK(run_within(c.server.read_some(buf)) == 3);
  CHECK(std::string(buf.data(), 3) == "hel");
  try {
    (void)run_within(c.server.read_exactly(4));
    FAIL("read_exactly past the end did not fail");
  } catch (const std::system_error& e) {
    CHECK(e.code() == end_of_stream_error());
  }
  CHECK(run_within(c.server.read_exactly(2)) == "lo");  // the bytes that came are still there
  CHECK(run_within(c.server.read_some(buf)) == 0);
  CHECK(run_within(c.server.read_some(buf)) == 0);
}

TEST_CASE("tcp: connecting to a port just closed is refused", "[tcp][error]") {
  DrainAtEnd drained;
  std::uint16_t port = 0;
  {
    TcpListener listener = TcpListener::bind();
    port = listener.local_port();
  }  // the last handle closes it
  try {
    (void)run_within(tcp_connect("127.0.0.1", port));
    FAIL("connect succeeded");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::connection_refused);
    CHECK(std::string(e.what()).find("skein::tcp_connect 127.0.0.1:" + std::to_string(port)) != std::string::npos);
  }
}

TEST_CASE("tcp: a host that is not an address is rejected, localhost is 127.0.0.1", "[tcp][error]") {
  DrainAtEnd drained;
  CHECK_THROWS_AS(run_within(tcp_connect("not an address", 1)), std::system_error);
  TcpListener listener = TcpListener::bind();
  Promise<TcpStream> accepted = listener.accept();
  TcpStream s = run_within(tcp_connect("localhost", listener.local_port()));
  CHECK(s.is_open());
  (void)run_within(accepted);
}

TEST_CASE("tcp: a read timed out by pick is cancelled, the stream stays usable and loses no byte",
          "[tcp][cancel]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  std::array<char, 16> buf{};
  Promise<std::size_t> read = c.server.read_some(buf);
  Promise<std::size_t> timed =
      pick(std::vector<Promise<std::size_t>>{read, skein::sleep(10ms).map([] { return std::size_t{999}; })});
  CHECK(run_within(timed) == 999);
  CHECK(read.canceled());
  CHECK(c.server.is_open());
  run_within(c.client.write_all("after"));
  run_within(skein::sleep(5ms));  // the aborted read's handler has run
  CHECK(run_within(c.server.read_exactly(5)) == "after");
}

TEST_CASE("tcp: cancelling a read right after bytes arrived keeps them for the next read", "[tcp][cancel]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  std::array<char, 16> buf{};
  Promise<std::size_t> read = c.server.read_some(buf);
  run_within(c.client.write_all("kept"));
  // Run the loop until the read itself has completed with the bytes; a
  // cancel after that is too late and changes nothing.
  REQUIRE(run_within(read) == 4);
  cancel(read);
  CHECK(read.state() == State::fulfilled);
  CHECK(run_within(read) == 4);
  Promise<std::size_t> second = c.server.read_some(buf);
  Promise<void> more = c.client.write_all("more");
  cancel(second);  // before the loop has seen the bytes: they must not be lost
  CHECK(second.canceled());
  CHECK(run_within(c.server.read_exactly(4)) == "more");
  run_within(more);
}

TEST_CASE("tcp: cancelling a read does not disturb a write pending on the same stream", "[tcp][cancel]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  const std::string big(32 * 1024 * 1024, 'x');  // more than the socket buffers: the write waits
  Promise<void> write = c.server.write_all(big);
  std::array<char, 16> buf{};
  Promise<std::size_t> read = c.server.read_some(buf);
  run_within(skein::sleep(5ms));
  CHECK(write.state() == State::pending);
  cancel(read);
  CHECK(read.canceled());
  Promise<std::string> all = c.client.read_exactly(big.size());
  run_within(write);
  CHECK(run_within(all) == big);
}

TEST_CASE("tcp: a cancelled write leaves the stream open", "[tcp][cancel]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  const std::string big(32 * 1024 * 1024, 'y');
  Promise<void> write = c.server.write_all(big);
  run_within(skein::sleep(5ms));
  REQUIRE(write.state() == State::pending);
  cancel(write);
  CHECK(write.canceled());
  CHECK(c.server.is_open());
  run_within(skein::sleep(5ms));
  run_within(c.client.write_all("ping"));
  CHECK(run_within(c.server.read_exactly(4)) == "ping");
}

TEST_CASE("tcp: a cancelled accept leaves the listener usable", "[tcp][cancel]") {
  DrainAtEnd drained;
  TcpListener listener = TcpListener::bind();
  Promise<TcpStream> first = listener.accept();
  cancel(first);
  CHECK(first.canceled());
  Connection c = connect_pair(listener);
  CHECK(c.server.is_open());
}

TEST_CASE("tcp: a cancelled connect is rejected with Canceled", "[tcp][cancel]") {
  DrainAtEnd drained;
  TcpListener listener = TcpListener::bind();
  Promise<TcpStream> connecting = tcp_connect("127.0.0.1", listener.local_port());
  cancel(connecting);
  CHECK(connecting.canceled());
  CHECK_THROWS_AS(run_within(connecting), Canceled);
}

TEST_CASE("tcp: a stream destroyed with a read pending rejects the read", "[tcp][lifetime]") {
  DrainAtEnd drained;
  Promise<std::size_t> read;
  std::array<char, 16> buf{};
  TcpStream client;
  {
    Connection c = connect_pair();
    client = c.client;
    read = c.server.read_some(buf);
  }  // the last server handle goes: the socket closes under the pending read
  try {
    (void)run_within(read);
    FAIL("the read did not fail");
  } catch (const std::system_error& e) {
    CHECK(e.code() == std::errc::operation_canceled);
  }
  CHECK(run_within(client.read_some(buf)) == 0);  // the peer sees end of stream
}

TEST_CASE("tcp: a listener destroyed with an accept pending rejects the accept", "[tcp][lifetime]") {
  DrainAtEnd drained;
  Promise<TcpStream> accepted;
  {
    TcpListener listener = TcpListener::bind();
    accepted = listener.accept();
  }
  CHECK_THROWS_AS(run_within(accepted), std::system_error);
}

TEST_CASE("tcp: close rejects pending operations and later ones", "[tcp][lifetime]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  std::array<char, 16> buf{};
  Promise<std::size_t> read = c.server.read_some(buf);
  c.server.close();
  CHECK_FALSE(c.server.is_open());
  CHECK_THROWS_AS(run_within(read), std::system_error);
  CHECK_THROWS_AS(run_within(c.server.read_some(buf)), std::system_error);
  CHECK_THROWS_AS(run_within(c.server.write_all("x")), std::system_error);
}

TEST_CASE("tcp: a second read while one is pending is a logic error, a default stream has no connection",
          "[tcp][error]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  std::array<char, 16> buf{};
  Promise<std::size_t> read = c.server.read_some(buf);
  CHECK_THROWS_AS(run_within(c.server.read_some(buf)), std::logic_error);
  cancel(read);
  TcpStream none;
  CHECK_THROWS_AS(run_within(none.read_some(buf)), std::system_error);
  CHECK_FALSE(none.is_open());
}

TEST_CASE("tcp: writing to a peer that has gone ends in an error", "[tcp][error]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  c.client.close();
  const std::string chunk(64 * 1024, 'z');
  bool failed_write = false;
  for (int i = 0; i < 200 && !failed_write; ++i) {
    try {
      run_within(c.server.write_all(chunk));
    } catch (const std::system_error&) {
      failed_write = true;
    }
  }
  CHECK(failed_write);
}

// The golden traces need the hooks compiled in (SKEIN_TRACE_HOOKS=OFF drops them).
#if SKEIN_TRACE_HOOKS
TEST_CASE("golden: a read is an io thread the loop notifies when bytes arrive", "[tcp][trace]") {
  DrainAtEnd drained;
  Connection c = connect_pair();
  run_within(c.client.write_all("abc"));
  drain_io();
  std::array<char, 8> buf{};
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Promise<std::size_t> n = c.server.read_some(buf).map([](std::size_t k) { return k; });
  CHECK(run(n) == 3);
  CHECK(sink.lines == std::vector<std::string>{"spawn 1 0 io",
                                               "spawn 2 0 map",
                                               "wait 2 1",
                                               "wait 0 2",
                                               "switch -1",
                                               "idle",
                                               "notify -1 1 io",
                                               "resolve 1 -1 ok",
                                               "read 2 1",
                                               "resolve 2 2 ok",
                                               "switch -1",
                                               "switch 0",
                                               "read 0 2"});
}

TEST_CASE("golden: a refused connect is rejected by the loop after a notify", "[tcp][trace]") {
  DrainAtEnd drained;
  std::uint16_t port = 0;
  {
    TcpListener listener = TcpListener::bind();
    port = listener.local_port();
  }
  drain_io();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  CHECK_THROWS_AS(run(tcp_connect("127.0.0.1", port)), std::system_error);
  CHECK(sink.lines == std::vector<std::string>{"spawn 1 0 io",
                                               "wait 0 1",
                                               "switch -1",
                                               "idle",
                                               "notify -1 1 io",
                                               "resolve 1 -1 fail",
                                               "switch 0",
                                               "read 0 1"});
  REQUIRE(sink.messages.size() == 1);
  CHECK(sink.messages[0].find("skein::tcp_connect 127.0.0.1") != std::string::npos);
}
#endif  // SKEIN_TRACE_HOOKS
