// runtime_sync_bench.cpp — Skein's side of runtime benchmark W4, ping-pong
// through two mailboxes, with the same workload, interface and output as the
// Lwt peer (peers/lwt_bench.ml, which documents what one operation is) and
// runtime_core_bench.cpp.
//
// Usage: runtime_sync_bench --workload W4 --n N --repeat R
// Runs the workload once untimed with max(1, N/10), then R timed runs, and
// prints one line per timed run: "W4 skein 12.34" (ns per round trip). The
// result is checked (every reply and the final counter); exit 1 if wrong, 2
// on bad arguments. Tracing is off (no sink set).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "runtime/runtime.hpp"

namespace {

struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// W4: A puts x in box1 and waits for x + 1 in box2; B takes from box1 and
// puts the successor in box2. Both are recursive bind loops, as in Lwt; each
// new iteration's promise is tail-merged into the first (proxy.hpp).
struct PingPong {
  skein::Mailbox<long long> box1;
  skein::Mailbox<long long> box2;

  skein::Promise<long long> a(long long i, long long x) {
    if (i == 0) return skein::resolved(x);
    return box1.put(x).then([this, i, x] {
      return box2.take().then([this, i, x](long long y) {
        if (y != x + 1) throw CheckFailed("W4: sent " + std::to_string(x) + ", got back " + std::to_string(y));
        return a(i - 1, y);
      });
    });
  }
  skein::Promise<void> b(long long i) {
    if (i == 0) return skein::resolved();
    return box1.take().then([this, i](long long x) { return box2.put(x + 1).then([this, i] { return b(i - 1); }); });
  }
};

long long w4(long long n) {
  PingPong game;
  long long final_value = -1;
  skein::Promise<void> a = game.a(n, 0).map([&final_value](long long v) { final_value = v; });
  skein::run(skein::join({a, game.b(n)}));
  if (final_value != n)
    throw CheckFailed("W4: final counter " + std::to_string(final_value) + ", expected " + std::to_string(n));
  return n;
}

constexpr const char* kUsage =
    "usage: runtime_sync_bench --workload W4 --n N --repeat R\n"
    "  W4 ping-pong (two mailboxes)\n"
    "  Runs the workload once untimed with max(1, N/10), then R timed runs, and\n"
    "  prints one line per timed run: \"W4 skein 12.34\" (ns per round trip).\n"
    "  Exit 0 on success, 1 if the workload's result is wrong, 2 on bad arguments.\n";

[[noreturn]] void bad_args(const std::string& message) {
  std::fprintf(stderr, "runtime_sync_bench: %s\n%s", message.c_str(), kUsage);
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
      if (value != "W4") bad_args("unknown workload \"" + std::string(value) + "\"");
      workload = value;
    } else if (arg == "--n") {
      n = positive_int("--n", value);
    } else {
      repeat = positive_int("--repeat", value);
    }
  }
  if (workload.empty() || n == 0 || repeat == 0) bad_args("--workload, --n and --repeat are all required");
  std::fprintf(stderr, "# %s skein: ns per round trip (2 mailbox hand-overs), n=%lld, repeat=%lld\n", workload.c_str(), n,
               repeat);
  try {
    (void)w4(std::max(1LL, n / 10));
    for (long long r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const long long ops = w4(n);
      const auto t1 = std::chrono::steady_clock::now();
      const double ns = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
      std::printf("%s skein %.2f\n", workload.c_str(), ns / static_cast<double>(ops));
      std::fflush(stdout);
    }
  } catch (const CheckFailed& e) {
    std::fprintf(stderr, "runtime_sync_bench: check failed: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runtime_sync_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
