// echo — a TCP echo server and its clients over loopback, on Skein's
// runtime: real sockets (127.0.0.1, a port the system picks), one thread
// per connection, and a read timeout written as pick(sleep, read), so that
// cancellation shows on the timeline.
//
// The server accepts --connections connections, and serves each in its own
// coroutine (`echo.connection`): read what comes, write it back, until the
// client closes (a read of 0 bytes) or nothing comes for --timeout-ms.
// Each read races a sleep: when the read wins, pick cancels the sleep; when
// the sleep wins, pick cancels the read and the connection is closed. The
// clients (`echo.client`) each send --messages messages and check every
// echo; the last client then goes quiet for twice the timeout before
// closing, so exactly one read times out.
//
// Bounded: a fixed number of connections, messages per connection and
// reads per connection (each message needs at most a few reads); the server
// stops accepting after the last connection. It prints what it echoed and
// how many reads timed out, and exits 1 if an echo came back wrong.
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using std::chrono::milliseconds;

struct Options {
  std::int64_t connections = 3;
  std::int64_t messages = 4;
  std::int64_t timeout_ms = 200;
};

struct Stats {
  std::int64_t accepted = 0;
  std::int64_t echoed_bytes = 0;  // written back by the server
  std::int64_t messages_checked = 0;
  std::int64_t timeouts = 0;
  std::int64_t ended_by_client = 0;
};

// One read, or nothing if `timeout` passes first. Whichever loses is
// cancelled by pick: the sleep's timer, or the socket read.
skein::Promise<std::optional<std::size_t>> read_with_timeout(const skein::TcpStream& connection,
                                                             std::span<char> buffer, milliseconds timeout) {
  skein::Promise<std::optional<std::size_t>> timer =
      skein::sleep(timeout).map([]() -> std::optional<std::size_t> { return std::nullopt; });
  skein::Promise<std::optional<std::size_t>> read =
      connection.read_some(buffer).map([](std::size_t n) -> std::optional<std::size_t> { return n; });
  return skein::pick<std::optional<std::size_t>>({timer, read});
}

skein::Promise<void> serve_connection(skein::TcpStream connection, const Options& options, Stats& stats) {
  skein::label("echo.connection");
  std::array<char, 256> buffer{};
  // A message needs at most a few reads; the bound only guards the loop.
  const std::int64_t max_reads = 4 * options.messages + 2;
  for (std::int64_t reads = 0; reads < max_reads; ++reads) {
    const std::optional<std::size_t> got =
        co_await read_with_timeout(connection, buffer, milliseconds(options.timeout_ms));
    if (!got) {
      ++stats.timeouts;
      break;
    }
    if (*got == 0) {
      ++stats.ended_by_client;
      break;
    }
    co_await connection.write_all(std::string_view(buffer.data(), *got));
    stats.echoed_bytes += static_cast<std::int64_t>(*got);
  }
  connection.close();
}

skein::Promise<void> serve(skein::TcpListener listener, const Options& options, Stats& stats) {
  skein::label("echo.server");
  std::vector<skein::Promise<void>> connections;
  for (std::int64_t i = 0; i < options.connections; ++i) {
    skein::TcpStream connection = co_await listener.accept();
    ++stats.accepted;
    connections.push_back(serve_connection(connection, options, stats));
  }
  listener.close();
  co_await skein::join(connections);
}

skein::Promise<void> client(std::int64_t index, std::uint16_t port, bool goes_quiet, const Options& options,
                            Stats& stats) {
  skein::label("echo.client");
  skein::TcpStream connection = co_await skein::tcp_connect("127.0.0.1", port);
  for (std::int64_t m = 0; m < options.messages; ++m) {
    const std::string message = "client " + std::to_string(index) + " message " + std::to_string(m) + "\n";
    co_await connection.write_all(message);
    const std::string echoed = co_await connection.read_exactly(message.size());
    if (echoed != message) throw std::runtime_error("echo came back wrong: '" + echoed + "'");
    ++stats.messages_checked;
  }
  // The last client keeps the connection open and silent: the server's
  // read times out first and closes its end.
  if (goes_quiet) co_await skein::sleep(milliseconds(2 * options.timeout_ms));
  connection.close();
}

constexpr const char* kUsage =
    "Usage: echo [--connections N] [--messages M] [--timeout-ms T] [--trace FILE]\n"
    "A TCP echo server on 127.0.0.1 (a free port) and N clients (default 3), each\n"
    "sending M messages (default 4). The server gives up on a connection after T\n"
    "ms of silence (default 200): the last client goes quiet, so one read times out.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Options options;
  skein::samples::SampleCommandLine command_line("echo", kUsage);
  command_line.add_integer("connections", options.connections, 1, 100);
  command_line.add_integer("messages", options.messages, 1, 10'000);
  command_line.add_integer("timeout-ms", options.timeout_ms, 1, 60'000);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Stats stats;
  try {
    skein::TcpListener listener = skein::TcpListener::bind(0);
    const std::uint16_t port = listener.local_port();
    std::vector<skein::Promise<void>> everyone{serve(listener, options, stats)};
    for (std::int64_t i = 0; i < options.connections; ++i)
      everyone.push_back(client(i, port, i + 1 == options.connections, options, stats));
    skein::run(skein::join(everyone));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "echo: %s\n", e.what());
    return 1;
  }
  std::printf("echo: %lld connections, %lld messages echoed (%lld bytes), %lld read timed out\n",
              static_cast<long long>(stats.accepted), static_cast<long long>(stats.messages_checked),
              static_cast<long long>(stats.echoed_bytes), static_cast<long long>(stats.timeouts));
  const bool right = stats.accepted == options.connections &&
                     stats.messages_checked == options.connections * options.messages && stats.timeouts == 1 &&
                     stats.ended_by_client == options.connections - 1;
  return right ? 0 : 1;
}
