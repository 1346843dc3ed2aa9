// styles — one small request loop written three ways on the same runtime:
// promise combinators (a bind chain), a stackful fiber with await, and a
// C++20 coroutine with co_await. Each sends --requests requests one after
// another (a request is a short sleep answered with a number) and sums the
// answers; the three run one after the other, so their traces sit side by
// side on the timeline with the same shape: a thread that waits on a
// request, wakes from its timer, and issues the next one.
//
// What differs is only how the waiting thread looks: in the combinator
// version each step is a new bind thread merged into the first (one row,
// continued by merges), the fiber is one thread resumed from the loop
// (switch records), and the coroutine is one thread resumed inside the
// request's resolve. The program prints the three sums, which must agree.
#include <chrono>
#include <cstdint>
#include <cstdio>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

struct Options {
  std::int64_t requests = 5;
};

// The request: the "server" answers i with i * i after a short delay.
skein::Promise<std::int64_t> request(std::int64_t i) {
  return skein::sleep(std::chrono::microseconds(300)).map([i] {
    skein::label("request");
    return i * i;
  });
}

// 1. Combinators: the loop is a bind whose callback returns the next bind.
skein::Promise<std::int64_t> loop_with_binds(std::int64_t i, std::int64_t n, std::int64_t total) {
  if (i == n) return skein::resolved(total);
  return request(i).then([i, n, total](std::int64_t answer) {
    skein::label("combinators");
    return loop_with_binds(i + 1, n, total + answer);
  });
}

// 2. A fiber: straight-line code on its own stack, blocking in await.
skein::Promise<std::int64_t> loop_in_fiber(std::int64_t n) {
  return skein::spawn_fiber([n] {
    skein::label("fiber");
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < n; ++i) total += skein::await(request(i));
    return total;
  });
}

// 3. A coroutine: straight-line code, suspended at each co_await.
skein::Promise<std::int64_t> loop_in_coroutine(std::int64_t n) {
  skein::label("coroutine");
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; ++i) total += co_await request(i);
  co_return total;
}

constexpr const char* kUsage =
    "Usage: styles [--requests N] [--trace FILE]\n"
    "The same loop of N requests (default 5) written with promise combinators, with\n"
    "a fiber and await, and with a C++ coroutine, run one after the other.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Options options;
  skein::samples::SampleCommandLine command_line("styles", kUsage);
  command_line.add_integer("requests", options.requests, 1, 100'000);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  const std::int64_t n = options.requests;
  const std::int64_t with_binds = skein::run(loop_with_binds(0, n, 0));
  const std::int64_t in_fiber = skein::run(loop_in_fiber(n));
  const std::int64_t in_coroutine = skein::run(loop_in_coroutine(n));
  std::printf("combinators %lld\nfiber %lld\ncoroutine %lld\n", static_cast<long long>(with_binds),
              static_cast<long long>(in_fiber), static_cast<long long>(in_coroutine));
  const std::int64_t expected = (n - 1) * n * (2 * n - 1) / 6;
  return with_binds == expected && in_fiber == expected && in_coroutine == expected ? 0 : 1;
}
