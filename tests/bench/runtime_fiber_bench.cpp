// runtime_fiber_bench.cpp — Skein's side of benchmark W5, fiber hand-over,
// with the same workload, interface and output as the Boost.Fiber peer
// (peers/boost_fiber_bench.cpp, which documents what one operation is).
//
// Usage: runtime_fiber_bench --workload W5 --n N --repeat R
//
// W5: two Skein fibers (runtime/fiber.hpp) pass a counter back and forth N
// round trips through two mailboxes (runtime/mailbox.hpp, Lwt_mvar): A puts
// x into `ping` and awaits `pong.take()`; B awaits `ping.take()` and puts
// x + 1 into `pong`. One operation is one HAND-OVER, a value crossing from
// one fiber to the other, so the figure printed is total / (2 N). Each
// hand-over blocks the receiving fiber in await, and the loop resumes it
// from its ready queue when the value arrives: one switch out of a fiber
// and one into the other, through the scheduler, per hand-over.
//
// As on the peer's side: one untimed warm-up run with max(1, N/10), then R
// timed runs, each including creating and finishing the two fibers; every
// reply is checked to be the successor of what was sent and the final
// counter to be N, else exit 1; bad arguments exit 2. Tracing is off (no
// sink set). Output: one line per timed run, "W5 skein 43.21" (ns per
// hand-over, two decimals), timed with std::chrono::steady_clock.
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/fiber.hpp"
#include "runtime/mailbox.hpp"
#include "runtime/runtime.hpp"
#include "tests/bench/workload_main.hpp"

namespace {

constexpr const char* kUsage =
    "usage: runtime_fiber_bench --workload W5 --n N --repeat R\n"
    "  W5 fiber hand-over: two Skein fibers ping-pong a counter N round trips\n"
    "  through two mailboxes; prints ns per hand-over (one direction; a round\n"
    "  trip is 2 hand-overs).\n"
    "  Runs once untimed with max(1, N/10), then R timed runs, printing one line\n"
    "  per timed run: \"W5 skein 43.21\".\n"
    "  Exit 0 on success, 1 if the result is wrong, 2 on bad arguments.\n";

[[noreturn]] void check_failed(const std::string& what) { skein::bench::check_failed("W5: " + what); }

// Runs N round trips and returns the number of hand-overs (2 N), or exits 1.
std::uint64_t w5(std::uint64_t n) {
  skein::Mailbox<std::uint64_t> ping;
  skein::Mailbox<std::uint64_t> pong;
  const char* failure = nullptr;

  skein::Promise<std::uint64_t> a = skein::spawn_fiber([&] {
    std::uint64_t x = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
      skein::await(ping.put(x));
      const std::uint64_t y = skein::await(pong.take());
      if (y != x + 1) {
        failure = "A: reply is not the successor of the value sent";
        break;
      }
      x = y;
    }
    return x;
  });
  skein::Promise<void> b = skein::spawn_fiber([&] {
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t x = skein::await(ping.take());
      skein::await(pong.put(x + 1));
    }
  });

  std::uint64_t final_value = 0;
  try {
    final_value = skein::run(a);
    skein::run(b);
  } catch (const std::exception& e) {
    check_failed(std::string("a fiber failed: ") + e.what());
  }
  if (failure != nullptr) check_failed(failure);
  if (final_value != n)
    check_failed("final counter " + std::to_string(final_value) + " differs from N = " + std::to_string(n));
  if (!ping.is_empty() || !pong.is_empty()) check_failed("a mailbox is not empty at the end");
  return 2 * n;
}

long long run_w5(long long n) { return static_cast<long long>(w5(static_cast<std::uint64_t>(n))); }

constexpr skein::bench::Workload kWorkloads[] = {
    {"W5", "ns per hand-over (one direction; a round trip is 2 hand-overs)", run_w5},
};

}  // namespace

int main(int argc, char** argv) {
  return skein::bench::workload_main(argc, argv, "runtime_fiber_bench", kUsage, kWorkloads);
}
