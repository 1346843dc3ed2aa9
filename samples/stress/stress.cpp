// stress — a real program on the runtime that runs until it has produced
// about --records trace records, with the mix of a real program, for the
// benchmarks of the capture, the store and the viewer (and for anyone who
// wants a big trace of real code). samples/synthetic writes a trace without
// running anything; this one runs.
//
// A network thread, woken by a 0 ms timer each turn, hands one request to
// each of --clients bind loops through a Stream. Serving a request is the
// mix of a real server: two questions to a server coroutine through a
// Mailbox (its answers are tasks it resolves), chains of maps, a join of the
// two answers, and, in fixed proportions, a caught failure, a timer, a
// label, a counter, and lookups in a cache of values that were ready long
// before (binds on settled threads: a read each, no new thread). The client
// loops are tail calls, so each client is one row continued by merges. That
// gives roughly the proportions of a traced server (recorder/format/FORMAT.md,
// "Size"): reads about two fifths of the records, spawns and resolves about
// a sixth each, then waits, notifies, switches and merges. Every wake-up
// comes from a timer, a resolve or another thread's notify: no thread wakes
// itself with pause().
//
// How many records: a counting sink sits in front of whatever sink is
// installed (the capture's, with --trace or SKEIN_TRACE, or none), and the
// network hands out no more requests once it has counted --records; the
// requests of the last turn finish, so the total overshoots by at most a
// turn's worth, a few hundred records. The trace file also holds its header, the `site` lines
// and `(end)`, which the runtime does not produce. Memory stays bounded:
// finished requests are freed, and the capture streams to its file.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

struct Options {
  std::int64_t records = 100'000;
  std::int64_t clients = 8;
};

// Counts every record the runtime reports and passes it on.
class CountingSink final : public skein::trace::Sink {
 public:
  explicit CountingSink(skein::trace::Sink* next) : next_(next) {}
  std::int64_t records = 0;

  void spawn(skein::ThreadId child, skein::ThreadId parent, skein::trace::Kind kind,
             const std::source_location& site) override {
    ++records;
    if (next_ != nullptr) next_->spawn(child, parent, kind, site);
  }
  void wait(skein::ThreadId waiter, skein::ThreadId input) override {
    ++records;
    if (next_ != nullptr) next_->wait(waiter, input);
  }
  void read(skein::ThreadId reader, skein::ThreadId input) override {
    ++records;
    if (next_ != nullptr) next_->read(reader, input);
  }
  void notify(skein::ThreadId sender, skein::ThreadId receiver, skein::trace::Reason reason) override {
    ++records;
    if (next_ != nullptr) next_->notify(sender, receiver, reason);
  }
  void resolve(skein::ThreadId thread, skein::ThreadId by, skein::trace::Outcome outcome,
               std::string_view message) override {
    ++records;
    if (next_ != nullptr) next_->resolve(thread, by, outcome, message);
  }
  void merge(skein::ThreadId thread, skein::ThreadId into) override {
    ++records;
    if (next_ != nullptr) next_->merge(thread, into);
  }
  void label(skein::ThreadId thread, std::string_view text) override {
    ++records;
    if (next_ != nullptr) next_->label(thread, text);
  }
  void switch_to(skein::ThreadId thread) override {
    ++records;
    if (next_ != nullptr) next_->switch_to(thread);
  }
  void counter(std::string_view name, std::int64_t value) override {
    ++records;
    if (next_ != nullptr) next_->counter(name, value);
  }
  void idle() override {
    ++records;
    if (next_ != nullptr) next_->idle();
  }
  void should_resolve(skein::ThreadId thread) override {
    ++records;
    if (next_ != nullptr) next_->should_resolve(thread);
  }
  void drop(skein::ThreadId thread, skein::ThreadId by) override {
    ++records;
    if (next_ != nullptr) next_->drop(thread, by);
  }
  void no_waiter(skein::ThreadId sender, skein::trace::ObjectId object, skein::trace::Reason reason) override {
    ++records;
    if (next_ != nullptr) next_->no_waiter(sender, object, reason);
  }
  void queued(skein::ThreadId waiter, skein::trace::ObjectId object) override {
    ++records;
    if (next_ != nullptr) next_->queued(waiter, object);
  }

 private:
  skein::trace::Sink* next_;
};

constexpr std::size_t kLookupsPerRequest = 11;
constexpr std::int64_t kCacheEntries = 16;

struct Work {
  Options options;
  CountingSink* counting = nullptr;
  // Requests arrive from the network thread, one stream per client.
  std::vector<std::unique_ptr<skein::Stream<std::int64_t>>> inboxes;
  skein::Mailbox<std::optional<std::pair<std::int64_t, skein::Resolver<std::int64_t>>>> server_inbox;
  std::int64_t turns = 0;     // handed out by the network, one request per client each
  std::int64_t requests = 0;  // served by the clients
  std::int64_t checksum = 0;
  std::int64_t clients_running = 0;
  // Values that are ready long before they are used (a configuration read
  // at start, a warm cache): a bind or map on one runs at once, makes no
  // thread and records a read. In a traced server most reads are of this
  // kind.
  std::vector<skein::Promise<std::int64_t>> cache;

  [[nodiscard]] bool enough() const { return counting->records >= options.records; }
};

// The network: each tick of a 0 ms timer, one request for every client.
// Bounded: each turn makes far more than one record, so it stops after at
// most --records turns even if the count stood still.
skein::Promise<void> network(Work& w) {
  skein::label("stress.network");
  for (std::int64_t turn = 0; turn < w.options.records && !w.enough(); ++turn) {
    co_await skein::sleep(std::chrono::nanoseconds(0));
    for (auto& inbox : w.inboxes) co_await inbox->push(turn);
    ++w.turns;
  }
  for (auto& inbox : w.inboxes) inbox->close();
}

// The server: answers each question put in its inbox until told to stop.
// Each question costs more than one record, so it never answers more than
// --records of them; the bound only guards the loop.
skein::Promise<void> server(Work& w) {
  skein::label("stress.server");
  for (std::int64_t answered = 0; answered <= 2 * w.options.records; ++answered) {
    auto message = co_await w.server_inbox.take();
    if (!message) co_return;
    auto& [question, answer] = *message;
    answer.resolve(question * 3 + 1);
  }
}

skein::Promise<std::int64_t> ask_server(Work& w, std::int64_t question) {
  auto [answer, resolver] = skein::task<std::int64_t>();
  return w.server_inbox.put(std::make_pair(question, std::move(resolver))).then([answer = answer] { return answer; });
}

// One request of one client: the mix the header describes.
skein::Promise<std::int64_t> request(Work& w, std::int64_t client, std::int64_t turn) {
  skein::Promise<std::int64_t> step =
      ask_server(w, turn).map([](std::int64_t v) { return v + 1; }).map([](std::int64_t v) { return v * 2; });
  if (turn % 8 == 3) {
    step = skein::catch_(step.map([](std::int64_t v) -> std::int64_t {
      if (v >= 0) throw std::runtime_error("transient error");
      return v;
    }),
                         [turn](std::exception_ptr) { return skein::resolved(turn); });
  }
  if (turn % 16 == 5) step = skein::sleep(std::chrono::nanoseconds(0)).then([step] { return step; });
  skein::Promise<std::int64_t> sibling = ask_server(w, client).map([client](std::int64_t v) { return v - client; });
  return skein::all<std::int64_t>({step, sibling}).map([&w, turn, client](const std::vector<std::int64_t>& v) {
    if (turn % 32 == 0) skein::label("stress.client " + std::to_string(client));
    if (turn % 32 == 16) skein::counter("stress.turn", turn);
    std::int64_t looked_up = 0;
    for (std::size_t k = 0; k < kLookupsPerRequest; ++k) {
      const skein::Promise<std::int64_t>& entry = w.cache[(static_cast<std::size_t>(turn) + k) % w.cache.size()];
      looked_up += entry.map([](std::int64_t c) { return c; }).value();
    }
    return v[0] + v[1] + looked_up;
  });
}

// A client: takes the next request from its inbox and serves it, until the
// network closes the inbox; the last client to stop stops the server.
skein::Promise<void> client_loop(Work& w, std::int64_t client) {
  return w.inboxes[static_cast<std::size_t>(client)]->next().then([&w, client](std::optional<std::int64_t> turn) {
    if (!turn) {
      if (--w.clients_running == 0) return w.server_inbox.put(std::nullopt);
      return skein::resolved();
    }
    return request(w, client, *turn).then([&w, client](std::int64_t v) {
      ++w.requests;
      w.checksum += v;
      return client_loop(w, client);
    });
  });
}

constexpr const char* kUsage =
    "Usage: stress [--records N] [--clients C] [--trace FILE]\n"
    "Runs C request loops (default 8) on the runtime until they have produced about\n"
    "N trace records (default 100000), with the mix of a real program.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records the Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Options options;
  skein::samples::SampleCommandLine command_line("stress", kUsage);
  command_line.add_integer("records", options.records, 1, 1'000'000'000);
  command_line.add_integer("clients", options.clients, 1, 10'000);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  CountingSink counting(skein::trace::sink());
  skein::trace::Sink* previous = skein::trace::set_sink(&counting);
  Work w;
  w.options = options;
  w.counting = &counting;
  w.clients_running = options.clients;
  for (std::int64_t k = 0; k < kCacheEntries; ++k) {
    auto [entry, fill] = skein::wait<std::int64_t>();
    entry.label("stress.cache");
    fill.resolve(k);
    w.cache.push_back(entry);
  }
  const auto started = std::chrono::steady_clock::now();
  for (std::int64_t c = 0; c < options.clients; ++c)
    w.inboxes.push_back(std::make_unique<skein::Stream<std::int64_t>>(1));
  std::vector<skein::Promise<void>> everyone{server(w)};
  for (std::int64_t c = 0; c < options.clients; ++c) everyone.push_back(client_loop(w, c));
  everyone.push_back(network(w));
  skein::run(skein::join(everyone));
  const auto elapsed = std::chrono::steady_clock::now() - started;
  skein::trace::set_sink(previous);
  std::printf("stress: %lld records, %lld requests from %lld clients in %.1f ms\n",
              static_cast<long long>(counting.records), static_cast<long long>(w.requests),
              static_cast<long long>(options.clients),
              std::chrono::duration<double, std::milli>(elapsed).count());
  return w.requests == w.turns * options.clients ? 0 : 1;  // every request handed out was served
}
