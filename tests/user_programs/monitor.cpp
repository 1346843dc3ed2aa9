// monitor — a queue guarded by a skein::Mutex and a skein::Condition, the
// monitor pattern. Clean: no planted fault.
//
// A producer (a fiber) makes 8 orders, one every millisecond: it locks the
// mutex, pushes the order onto a std::deque, signals the condition
// `not_empty` and unlocks. A consumer (a coroutine) takes the 8 orders: it
// locks the mutex, `while (orders.empty()) co_await not_empty.wait(&mutex)`
// (the wait releases the mutex and holds it again when woken), pops an
// order, unlocks and adds the order to its total. Both end after 8 orders.
// Every wake-up is one the runtime performs: the producer's timers, the
// signal to the waiting consumer, and the mutex handed back to it.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

constexpr int kOrders = 8;

struct Orders {
  skein::Mutex mutex;
  skein::Condition<> not_empty;
  std::deque<std::int64_t> queue;  // guarded by mutex
};

void producer(Orders& o) {
  skein::label("producer");
  for (int i = 1; i <= kOrders; ++i) {
    skein::await(skein::sleep(1ms));
    skein::await(o.mutex.lock());
    o.queue.push_back(i * 10);
    skein::counter("orders.queued", static_cast<std::int64_t>(o.queue.size()));
    o.not_empty.signal();
    o.mutex.unlock();
  }
}

skein::Promise<std::int64_t> consumer(Orders& o) {
  skein::label("consumer");
  std::int64_t total = 0;
  for (int taken = 0; taken < kOrders; ++taken) {
    co_await o.mutex.lock();
    while (o.queue.empty()) co_await o.not_empty.wait(&o.mutex);
    const std::int64_t order = o.queue.front();
    o.queue.pop_front();
    o.mutex.unlock();
    total += order;
  }
  co_return total;
}

constexpr const char* kUsage =
    "Usage: monitor [--trace FILE]\n"
    "A producer fiber queues 8 orders, one a millisecond, under a mutex and signals\n"
    "a condition; a consumer coroutine waits on the condition with the mutex and\n"
    "takes them.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  skein::samples::SampleCommandLine command_line("monitor", kUsage);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Orders o;
  skein::Promise<std::int64_t> consumed = consumer(o);
  skein::Promise<void> produced = skein::spawn_fiber([&o] { producer(o); });
  std::int64_t total = 0;
  skein::run(skein::join({produced, consumed.map([&total](std::int64_t t) { total = t; })}));

  std::printf("monitor: consumer took orders worth %lld\n", static_cast<long long>(total));
  const bool ok =
      total == 10 * kOrders * (kOrders + 1) / 2 && o.queue.empty() && !o.mutex.is_locked();
  return ok ? 0 : 1;
}
