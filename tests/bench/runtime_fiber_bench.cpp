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

namespace {

constexpr const char* kUsage =
    "usage: runtime_fiber_bench --workload W5 --n N --repeat R\n"
    "  W5 fiber hand-over: two Skein fibers ping-pong a counter N round trips\n"
    "  through two mailboxes; prints ns per hand-over (one direction; a round\n"
    "  trip is 2 hand-overs).\n"
    "  Runs once untimed with max(1, N/10), then R timed runs, printing one line\n"
    "  per timed run: \"W5 skein 43.21\".\n"
    "  Exit 0 on success, 1 if the result is wrong, 2 on bad arguments.\n";

[[noreturn]] void check_failed(const std::string& what) {
  std::fprintf(stderr, "runtime_fiber_bench: check failed: W5: %s\n", what.c_str());
  std::exit(1);
}

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

[[noreturn]] void bad_args(const std::string& message) {
  std::fprintf(stderr, "runtime_fiber_bench: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

std::uint64_t positive_int(std::string_view name, const char* text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || value == 0)
    bad_args(std::string(name) + " must be a positive integer, got \"" + text + "\"");
  return value;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<std::string> workload;
  std::optional<std::uint64_t> n;
  std::optional<std::uint64_t> repeat;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg != "--workload" && arg != "--n" && arg != "--repeat")
      bad_args("unexpected argument \"" + std::string(arg) + "\"");
    if (i + 1 >= argc) bad_args(std::string(arg) + " needs a value");
    const char* value = argv[++i];
    if (arg == "--workload") {
      if (std::strcmp(value, "W5") != 0) bad_args("unknown workload \"" + std::string(value) + "\"");
      workload = value;
    } else if (arg == "--n") {
      n = positive_int(arg, value);
    } else {
      repeat = positive_int(arg, value);
    }
  }
  if (!workload || !n || !repeat) bad_args("--workload, --n and --repeat are all required");

  std::fprintf(stderr,
               "# W5 skein: ns per hand-over (one direction; a round trip is 2 hand-overs), "
               "n=%llu round trips, repeat=%llu\n",
               static_cast<unsigned long long>(*n), static_cast<unsigned long long>(*repeat));

  w5(*n / 10 > 0 ? *n / 10 : 1);
  for (std::uint64_t r = 0; r < *repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::uint64_t ops = w5(*n);
    const auto t1 = std::chrono::steady_clock::now();
    const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
    std::printf("W5 skein %.2f\n", ns / static_cast<double>(ops));
    std::fflush(stdout);
  }
  return 0;
}
