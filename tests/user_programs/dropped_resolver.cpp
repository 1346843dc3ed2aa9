// dropped_resolver — a request table whose error path forgets a reply.
//
// A small RPC layer: call(id, n) makes a reply promise with skein::task,
// files its Resolver in a table of pending requests
// (std::unordered_map<int, skein::Resolver<std::int64_t>>) and sends the
// request to a server over a skein::Stream. The server (a fiber) reads the
// requests one at a time, takes 1 ms to look each one up, and answers it:
// the integer square root of n, through the resolver it finds in the table.
// Five clients (coroutines, started with skein::async: fire and forget) each
// make one call, ids 1 to 5, and note the answer or the error they get.
// Request 3 asks for the square root of -9, which the server refuses. main
// sends the five requests, closes the stream and runs until the server has
// handled them all; it does not wait for the clients.
//
// THE FAULT: on its error path the server erases the request from the table
// without resolving or failing its resolver, so the reply is dropped: one
// reply is left pending, the one of request 3, whose resolver is erased at
// request 3, and the client awaiting it (client 3, a coroutine, and the async
// thread that runs it) waits forever. The other four replies are answered.
// The program still ends: main waits only for the server, which has handled
// all five requests; the trace ends cleanly with request 3's reply (and its
// client) pending. That is 1 occurrence, fixed by the request data: exactly
// one of the five requests is invalid.
//
// --fixed: the error path fails the resolver,
// resolver.fail(std::domain_error(...)), before erasing the entry, and
// client 3 catches the failure (try/catch around its co_await) and ends.
// Nothing is left pending.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

struct Request {
  int id;
  std::int64_t n;
};

class Rpc {
 public:
  explicit Rpc(bool fixed) : fixed_(fixed) {}

  skein::Promise<std::int64_t> call(int id, std::int64_t n) {
    auto [reply, resolver] = skein::task<std::int64_t>();
    reply.label("reply " + std::to_string(id));
    pending_.emplace(id, std::move(resolver));
    (void)requests_.push(Request{id, n});  // the stream is large enough for every request
    return reply;
  }

  void close() { requests_.close(); }

  // The server: answer requests until the stream is closed.
  void serve() {
    skein::label("server");
    while (std::optional<Request> request = skein::await(requests_.next())) {
      skein::await(skein::sleep(1ms));  // look it up
      ++handled_;
      auto entry = pending_.find(request->id);
      if (entry == pending_.end()) continue;
      if (request->n < 0) {
        if (fixed_)
          entry->second.fail(std::domain_error("request " + std::to_string(request->id) +
                                               ": no square root of a negative number"));
        pending_.erase(entry);  // without --fixed the reply is dropped here
        continue;
      }
      skein::Resolver<std::int64_t> resolver = std::move(entry->second);
      pending_.erase(entry);
      resolver.resolve(static_cast<std::int64_t>(std::sqrt(static_cast<double>(request->n))));
    }
  }

  [[nodiscard]] int handled() const { return handled_; }
  [[nodiscard]] std::size_t still_pending() const { return pending_.size(); }

 private:
  bool fixed_;
  std::unordered_map<int, skein::Resolver<std::int64_t>> pending_;
  skein::Stream<Request> requests_{16};
  int handled_ = 0;
};

// What each client got: an answer, an error message, or nothing yet.
struct Outcomes {
  std::map<int, std::int64_t> answers;
  std::map<int, std::string> errors;
};

skein::Promise<void> client(Rpc& rpc, int id, std::int64_t n, Outcomes& out) {
  const std::string name = "client " + std::to_string(id);
  skein::label(name);
  skein::Promise<std::int64_t> reply = rpc.call(id, n);
  try {
    const std::int64_t root = co_await reply;
    out.answers[id] = root;
  } catch (const std::exception& e) {
    out.errors[id] = e.what();
  }
}

constexpr const char* kUsage =
    "Usage: dropped_resolver [--fixed] [--trace FILE]\n"
    "Five clients call a square-root server through a table of pending replies;\n"
    "request 3 (of -9) is refused, and the server's error path erases its resolver\n"
    "without settling it: client 3 waits forever. --fixed fails the resolver and\n"
    "the client catches the error.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  bool fixed = false;
  skein::samples::SampleCommandLine command_line("dropped_resolver", kUsage);
  command_line.add_flag("fixed", fixed);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Rpc rpc(fixed);
  Outcomes out;
  skein::Promise<void> server = skein::spawn_fiber([&rpc] { rpc.serve(); });
  const std::int64_t numbers[] = {16, 81, -9, 144, 1000000};
  for (int id = 1; id <= 5; ++id)
    skein::async([&rpc, &out, id, n = numbers[id - 1]] { return client(rpc, id, n, out); });
  rpc.close();
  skein::run(server);

  std::printf(
      "dropped_resolver%s: %d requests handled, %zu answers, %zu errors, %zu still in the table\n",
      fixed ? " --fixed" : "", rpc.handled(), out.answers.size(), out.errors.size(),
      rpc.still_pending());
  for (const auto& [id, message] : out.errors)
    std::printf("  client %d: %s\n", id, message.c_str());
  const std::map<int, std::int64_t> expected{{1, 4}, {2, 9}, {4, 12}, {5, 1000}};
  bool ok = rpc.handled() == 5 && out.answers == expected && rpc.still_pending() == 0;
  if (fixed)
    ok = ok && out.errors.size() == 1 && out.errors.count(3) == 1;
  else
    ok = ok && out.errors.empty();  // client 3 never hears back
  return ok ? 0 : 1;
}
