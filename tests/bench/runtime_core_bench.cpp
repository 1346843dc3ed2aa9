// runtime_core_bench.cpp — Skein's side of the runtime benchmarks W1-W3, with
// the same workloads, interface and output as the Lwt peer
// (peers/lwt_bench.ml, which documents what one operation is); and L1, a
// lost wake-up of Skein's own with no peer, for what its record costs the
// capture (capture_overhead.cpp).
//
// Usage: runtime_core_bench --workload W1|W2|W3|L1 --n N --repeat R
// Runs the workload once untimed with max(1, N/10), then R timed runs, and
// prints one line per timed run: "W1 skein 12.34" (ns per operation). Every
// workload checks its result; exit 1 if wrong, 2 on bad arguments. Tracing
// is off (no sink set).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/runtime.hpp"
#include "tests/bench/workload_main.hpp"

namespace {

using skein::bench::check_failed;

// W1: a fresh pending promise per iteration, a bound continuation returning
// an already-resolved promise of x + 1, resolve, read.
long long w1(long long n) {
  auto succ = [](int x) { return skein::resolved(x + 1); };
  for (long long i = 0; i < n; ++i) {
    const int x = static_cast<int>(i);
    auto [p, r] = skein::wait<int>();
    skein::Promise<int> q = p.then(succ);
    r.resolve(x);
    if (q.state() != skein::State::fulfilled || q.value() != x + 1)
      check_failed("W1: iteration " + std::to_string(i) + " did not resolve to " + std::to_string(x + 1));
  }
  return n;
}

// W2: a recursive loop of N pauses under run().
skein::Promise<void> w2_loop(long long i, long long& count) {
  if (i == 0) return skein::resolved();
  return skein::pause().then([i, &count] {
    ++count;
    return w2_loop(i - 1, count);
  });
}
long long w2(long long n) {
  long long count = 0;
  skein::run(w2_loop(n, count));
  if (count != n) check_failed("W2: " + std::to_string(count) + " pauses resumed, expected " + std::to_string(n));
  return n;
}

// W3: rounds of 1000 pending promises, a map on each (adding into a sum),
// one join of the mapped promises, then resolve all 1000.
constexpr long long kW3Width = 1000;
long long w3(long long n) {
  const long long rounds = std::max(1LL, n / kW3Width);
  std::vector<skein::Resolver<int>> resolvers(kW3Width);
  std::vector<skein::Promise<void>> mapped;
  mapped.reserve(kW3Width);
  long long sum = 0;
  auto add = [&sum](int v) { sum += v; };
  const long long expected = kW3Width * (kW3Width - 1) / 2;
  for (long long round = 1; round <= rounds; ++round) {
    sum = 0;
    mapped.clear();
    for (long long i = 0; i < kW3Width; ++i) {
      auto [p, r] = skein::wait<int>();
      resolvers[static_cast<std::size_t>(i)] = std::move(r);
      mapped.push_back(p.map(add));
    }
    skein::Promise<void> all = skein::join(mapped);
    if (all.state() != skein::State::pending) check_failed("W3: join resolved before any promise");
    for (long long i = 0; i < kW3Width; ++i) resolvers[static_cast<std::size_t>(i)].resolve(static_cast<int>(i));
    if (all.state() != skein::State::fulfilled) check_failed("W3: round " + std::to_string(round) + ": join did not resolve");
    if (sum != expected)
      check_failed("W3: round " + std::to_string(round) + ": sum " + std::to_string(sum) + ", expected " +
                   std::to_string(expected));
  }
  return rounds * kW3Width;
}

// L1: a fresh task whose only resolver ends while it is pending (traced:
// spawn, drop).
long long l1(long long n) {
  for (long long i = 0; i < n; ++i) {
    auto [p, r] = skein::task<int>();
    { skein::Resolver<int> last = std::move(r); }
    if (p.state() != skein::State::pending) check_failed("L1: iteration " + std::to_string(i) + " settled");
  }
  return n;
}

constexpr const char* kUsage =
    "usage: runtime_core_bench --workload W1|W2|W3|L1 --n N --repeat R\n"
    "  W1 resolve-bind, W2 pause-loop, W3 fan-out-join, L1 resolver dropped (drop)\n"
    "  Runs the workload once untimed with max(1, N/10), then R timed runs, and\n"
    "  prints one line per timed run: \"W1 skein 12.34\" (ns per operation).\n"
    "  Exit 0 on success, 1 if a workload's result is wrong, 2 on bad arguments.\n";

constexpr skein::bench::Workload kWorkloads[] = {
    {"W1", "ns per resolve-bind iteration", w1},
    {"W2", "ns per pause", w2},
    {"W3", "ns per promise (1000 per join)", w3},
    {"L1", "ns per task whose resolver is dropped", l1},
};

}  // namespace

int main(int argc, char** argv) {
  return skein::bench::workload_main(argc, argv, "runtime_core_bench", kUsage, kWorkloads);
}
