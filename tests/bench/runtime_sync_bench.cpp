// runtime_sync_bench.cpp — Skein's side of runtime benchmark W4, ping-pong
// through two mailboxes, with the same workload, interface and output as the
// Lwt peer (peers/lwt_bench.ml, which documents what one operation is) and
// runtime_core_bench.cpp; and L2 and L3, lost wake-ups of Skein's own with
// no peer, for what their records cost the capture (capture_overhead.cpp).
//
// Usage: runtime_sync_bench --workload W4|L2|L3 --n N --repeat R
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
#include "tests/bench/workload_main.hpp"

namespace {

using skein::bench::CheckFailed;

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

// L2: a signal with nobody waiting (traced: no-waiter).
long long l2(long long n) {
  skein::Condition<> condition;
  for (long long i = 0; i < n; ++i) condition.signal();
  if (condition.waiters() != 0) throw CheckFailed("L2: a waiter appeared");
  return n;
}

// L3: a wait on a condition that once had nobody to wake (so it has a
// number), woken by the next signal (traced: spawn, queued, notify,
// resolve).
long long l3(long long n) {
  skein::Condition<> condition;
  condition.signal();  // nobody waits: the condition's number, when traced
  for (long long i = 0; i < n; ++i) {
    skein::Promise<void> woken = condition.wait();
    condition.signal();
    if (woken.state() != skein::State::fulfilled) throw CheckFailed("L3: wait " + std::to_string(i) + " not woken");
  }
  return n;
}

constexpr const char* kUsage =
    "usage: runtime_sync_bench --workload W4|L2|L3 --n N --repeat R\n"
    "  W4 ping-pong (two mailboxes), L2 signal nobody waits for (no-waiter),\n"
    "  L3 wait queued on a numbered condition, then signalled (queued)\n"
    "  Runs the workload once untimed with max(1, N/10), then R timed runs, and\n"
    "  prints one line per timed run: \"W4 skein 12.34\" (ns per round trip).\n"
    "  Exit 0 on success, 1 if the workload's result is wrong, 2 on bad arguments.\n";

constexpr skein::bench::Workload kWorkloads[] = {
    {"W4", "ns per round trip (2 mailbox hand-overs)", w4},
    {"L2", "ns per signal with nobody waiting", l2},
    {"L3", "ns per wait queued and signalled", l3},
};

}  // namespace

int main(int argc, char** argv) {
  return skein::bench::workload_main(argc, argv, "runtime_sync_bench", kUsage, kWorkloads);
}
