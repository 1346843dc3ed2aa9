// runtime_core_bench.cpp — Skein's side of the runtime benchmarks W1-W3, with
// the same workloads, interface and output as the Lwt peer
// (peers/lwt_bench.ml, which documents what one operation is).
//
// Usage: runtime_core_bench --workload W1|W2|W3 --n N --repeat R
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

namespace {

struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void check_failed(const std::string& what) { throw CheckFailed(what); }

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

constexpr const char* kUsage =
    "usage: runtime_core_bench --workload W1|W2|W3 --n N --repeat R\n"
    "  W1 resolve-bind, W2 pause-loop, W3 fan-out-join\n"
    "  Runs the workload once untimed with max(1, N/10), then R timed runs, and\n"
    "  prints one line per timed run: \"W1 skein 12.34\" (ns per operation).\n"
    "  Exit 0 on success, 1 if a workload's result is wrong, 2 on bad arguments.\n";

[[noreturn]] void bad_args(const std::string& message) {
  std::fprintf(stderr, "runtime_core_bench: %s\n%s", message.c_str(), kUsage);
  std::exit(2);
}

long long positive_int(std::string_view name, std::string_view s) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string_view::npos)
    bad_args(std::string(name) + " must be a positive integer, got \"" + std::string(s) + "\"");
  const long long v = std::stoll(std::string(s));
  if (v <= 0) bad_args(std::string(name) + " must be a positive integer, got \"" + std::string(s) + "\"");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload;
  long long n = 0;
  long long repeat = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (arg != "--workload" && arg != "--n" && arg != "--repeat") bad_args("unexpected argument \"" + std::string(arg) + "\"");
    if (i + 1 >= argc) bad_args(std::string(arg) + " needs a value");
    const std::string_view value = argv[++i];
    if (arg == "--workload") {
      if (value != "W1" && value != "W2" && value != "W3") bad_args("unknown workload \"" + std::string(value) + "\"");
      workload = value;
    } else if (arg == "--n") {
      n = positive_int("--n", value);
    } else {
      repeat = positive_int("--repeat", value);
    }
  }
  if (workload.empty() || n == 0 || repeat == 0) bad_args("--workload, --n and --repeat are all required");
  long long (*run_workload)(long long) = workload == "W1" ? w1 : workload == "W2" ? w2 : w3;
  const char* unit = workload == "W1"   ? "ns per resolve-bind iteration"
                     : workload == "W2" ? "ns per pause"
                                        : "ns per promise (1000 per join)";
  std::fprintf(stderr, "# %s skein: %s, n=%lld, repeat=%lld\n", workload.c_str(), unit, n, repeat);
  try {
    (void)run_workload(std::max(1LL, n / 10));
    for (long long r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const long long ops = run_workload(n);
      const auto t1 = std::chrono::steady_clock::now();
      const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      std::printf("%s skein %.2f\n", workload.c_str(), ns / static_cast<double>(ops));
      std::fflush(stdout);
    }
  } catch (const CheckFailed& e) {
    std::fprintf(stderr, "runtime_core_bench: check failed: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runtime_core_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
