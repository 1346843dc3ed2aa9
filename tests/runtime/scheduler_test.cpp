// scheduler_test.cpp — run, pause, sleep, the depth limit, timers kept on
// time while threads keep pausing, and the loop's memory: a million-long
// bind chain and a million-iteration pause loop.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "runtime/runtime.hpp"

using namespace skein;
using namespace std::chrono_literals;

namespace {
struct Boom : std::runtime_error {
  Boom() : std::runtime_error("boom") {}
};
}  // namespace

TEST_CASE("run returns the value of a resolved promise", "[run]") {
  CHECK(run(resolved(5)) == 5);
  run(resolved());
}

TEST_CASE("run rethrows a rejection", "[run]") {
  CHECK_THROWS_AS(run(failed<int>(Boom{})), Boom);
  CHECK_THROWS_AS(run(skein::pause().then([]() -> Promise<void> { throw Boom{}; })), Boom);
}

TEST_CASE("run runs paused work until the promise settles", "[run][pause]") {
  int steps = 0;
  Promise<int> p = skein::pause().then([&] {
    ++steps;
    return skein::pause().map([&] {
      ++steps;
      return 10;
    });
  });
  CHECK(steps == 0);
  CHECK(run(p) == 10);
  CHECK(steps == 2);
}

TEST_CASE("pause resolves at the next iteration, in the order of the pauses", "[pause]") {
  std::vector<int> order;
  std::vector<Promise<void>> ps;
  for (int i = 0; i < 3; ++i) ps.push_back(skein::pause().map([&order, i] { order.push_back(i); }));
  CHECK(order.empty());
  run(join(ps));
  CHECK(order == std::vector<int>{0, 1, 2});
}

TEST_CASE("a nested run throws a clear error", "[run]") {
  Promise<void> p = skein::pause().then([] {
    CHECK_THROWS_WITH(run(resolved()), Catch::Contains("nested"));
    return resolved();
  });
  run(p);
}

TEST_CASE("a run from another OS thread while one is active throws", "[run]") {
  bool threw = false;
  Promise<void> p = skein::pause().then([&] {
    std::thread other([&] {
      try {
        run(resolved());
      } catch (const std::logic_error& e) {
        threw = std::string(e.what()).find("another OS thread") != std::string::npos;
      }
    });
    other.join();
    return resolved();
  });
  run(p);
  CHECK(threw);
}

TEST_CASE("run on a promise nothing can settle reports a deadlock", "[run]") {
  auto [p, r] = skein::wait();
  CHECK_THROWS_WITH(run(p), Catch::Contains("deadlock"));
  r.resolve();
}

TEST_CASE("timers fire in the order of their deadlines", "[sleep]") {
  // A sleep's deadline is taken inside sleep(), so it lies between the clock
  // read just before the call and the one just after, plus the duration. The
  // expected order follows from those bounds alone: a timer may fire before
  // another only if its earliest deadline is not after the other's latest.
  // On a quiet machine the bounds are microseconds wide and the timers'
  // deadlines 2 ms apart, so firing in creation order (3, 1, 2) fails; a
  // preempted creation widens a bound instead of failing the test.
  using Clock = std::chrono::steady_clock;
  struct Bounds { Clock::time_point earliest, latest; };
  std::vector<int> order;
  std::vector<Bounds> deadline(4);
  auto at = [&](int ms, int tag) {
    const auto before = Clock::now();
    Promise<void> p = skein::sleep(std::chrono::milliseconds(ms));
    const auto after = Clock::now();
    deadline[tag] = {before + std::chrono::milliseconds(ms), after + std::chrono::milliseconds(ms)};
    return p.map([&order, tag] { order.push_back(tag); });
  };
  const auto start = Clock::now();
  Promise<void> a = at(6, 3), b = at(2, 1), c = at(4, 2);
  run(join({a, b, c}));
  REQUIRE(order.size() == 3);
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    INFO("timer " << order[i] << " fired before timer " << order[i + 1]);
    CHECK(deadline[order[i]].earliest <= deadline[order[i + 1]].latest);
  }
  CHECK(Clock::now() - start >= 6ms);
}

TEST_CASE("a sleep is cancelable and its timer is cancelled", "[sleep][cancel]") {
  Promise<void> s = skein::sleep(10s);
  Promise<void> b = s.then([] { return resolved(); });
  Promise<void> stop = skein::pause().map([b = b] { cancel(b); });
  const auto start = std::chrono::steady_clock::now();
  run(stop);
  CHECK(s.canceled());
  CHECK_THROWS_AS(run(b), Canceled);
  CHECK(std::chrono::steady_clock::now() - start < 5s);
}

TEST_CASE("timers are serviced while the loop keeps pausing", "[sleep][pause]") {
  bool fired = false;
  Promise<void> t = skein::sleep(1ms).map([&] { fired = true; });
  std::function<Promise<void>()> spin = [&]() -> Promise<void> {
    if (fired) return resolved();
    return skein::pause().then(spin);
  };
  run(spin());
  CHECK(fired);
}

TEST_CASE("a heartbeat stays within one slice of its deadline while a thread works in paused slices",
          "[sleep][pause][fairness]") {
  // The program an Lwt user writes to keep a heartbeat on time: one thread
  // works in short CPU slices with a pause between them, another sleeps a
  // period and beats. A fair loop polls its timers between any two slices
  // (scheduler.hpp), so a beat is late by at most the slice its deadline
  // fell in; a loop that polled every 64th iteration instead would make
  // each beat about 64 slices (~125 ms) late.
  //
  // Robust to a loaded machine: the worker's spin reads the clock
  // continuously, so a gap longer than kGap between two reads is time the OS
  // gave to another process, and that time, where it falls between a beat's
  // deadline and its wake-up, is not the loop's lateness. Bounded: 20 beats,
  // about 0.15 s when fair, 2.6 s when not, and the worker gives up after 10 s.
  using Clock = std::chrono::steady_clock;
  constexpr auto kSlice = 2ms;
  constexpr auto kPeriod = 5ms;
  constexpr std::size_t kBeats = 20;
  constexpr auto kMargin = kSlice / 2;  // a poll, the timer's handler, a wake-up: microseconds
  constexpr auto kGap = 50us;
  struct Beat {
    Clock::time_point deadline, woke;
  };
  struct Gap {
    Clock::time_point from, to;
  };
  std::vector<Beat> beats;
  std::vector<Gap> stolen;
  bool done = false;

  // The deadline is read before sleep() takes its own, so it is never later
  // than the timer's: the lateness measured is never less than the real one.
  std::function<Promise<void>()> heartbeat = [&]() -> Promise<void> {
    if (beats.size() == kBeats) {
      done = true;
      return resolved();
    }
    const Clock::time_point deadline = Clock::now() + kPeriod;
    return skein::sleep(kPeriod).then([&, deadline] {
      beats.push_back({deadline, Clock::now()});
      return heartbeat();
    });
  };
  auto spin = [&] {
    Clock::time_point last = Clock::now();
    const Clock::time_point end = last + kSlice;
    while (last < end) {
      const Clock::time_point now = Clock::now();
      if (now - last > kGap) stolen.push_back({last, now});
      last = now;
    }
  };
  const Clock::time_point give_up = Clock::now() + 10s;
  std::size_t slices = 0;
  std::function<Promise<void>()> worker = [&]() -> Promise<void> {
    if (done || Clock::now() > give_up) return resolved();
    spin();
    ++slices;
    return skein::pause().then(worker);
  };
  run(join({heartbeat(), worker()}));

  REQUIRE(beats.size() == kBeats);
  CHECK(slices >= kBeats);  // the worker really competed with every beat
  Clock::duration worst{};
  std::size_t worst_beat = 0;
  Clock::duration worst_raw{}, worst_stolen{};
  for (std::size_t i = 0; i < beats.size(); ++i) {
    const Clock::duration late = beats[i].woke - beats[i].deadline;
    Clock::duration taken{};
    for (const Gap& g : stolen) {
      const Clock::time_point from = std::max(g.from, beats[i].deadline);
      const Clock::time_point to = std::min(g.to, beats[i].woke);
      if (from < to) taken += to - from;
    }
    if (late - taken > worst) {
      worst = late - taken;
      worst_beat = i;
      worst_raw = late;
      worst_stolen = taken;
    }
  }
  using us = std::chrono::microseconds;
  INFO("the latest beat, " << worst_beat << ", woke " << std::chrono::duration_cast<us>(worst_raw).count()
                           << " us after its deadline, of which the OS took "
                           << std::chrono::duration_cast<us>(worst_stolen).count() << " us; " << slices
                           << " slices of " << std::chrono::duration_cast<us>(kSlice).count() << " us ran");
  CHECK(worst <= kSlice + kMargin);
}

TEST_CASE("callbacks past the depth limit go to the ready queue", "[depth]") {
  auto [p, r] = skein::wait<int>();
  Promise<int> q = p;
  const int length = detail::kMaxCallbackDepth + 10;
  for (int i = 0; i < length; ++i) q = q.map([](int x) { return x + 1; });
  r.resolve(0);
  CHECK(q.state() == State::pending);  // deferred, not run on this stack
  CHECK(detail::ready_queue_size() == 1);
  CHECK(run(q) == length);
  CHECK(detail::ready_queue_size() == 0);
}

TEST_CASE("a 1,000,000-long bind chain completes", "[depth][memory]") {
  const int length = 1'000'000;
  auto [p, r] = skein::wait<int>();
  Promise<int> q = p;
  for (int i = 0; i < length; ++i) q = q.then([](int x) { return resolved(x + 1); });
  r.resolve(0);
  CHECK(run(q) == length);
}

TEST_CASE("a dropped pending chain of 1,000,000 nodes is freed without recursion", "[memory]") {
  const std::size_t before = detail::node_pool::live();
  {
    auto [p, r] = skein::wait<int>();
    Promise<int> q = p;
    for (int i = 0; i < 1'000'000; ++i) q = q.map([](int x) { return x; });
  }
  CHECK(detail::node_pool::live() == before);
}

TEST_CASE("a 1,000,000-iteration pause loop runs in constant memory", "[pause][memory][proxy]") {
  const int iterations = 1'000'000;
  int i = 0;
  std::size_t low = SIZE_MAX;
  std::size_t high = 0;
  std::function<Promise<void>()> loop = [&]() -> Promise<void> {
    const std::size_t live = detail::node_pool::live();
    low = std::min(low, live);
    high = std::max(high, live);
    if (++i == iterations) return resolved();
    return skein::pause().then(loop);
  };
  const std::size_t before = detail::node_pool::live();
  run(loop());
  CHECK(i == iterations);
  CHECK(high - low <= 4);
  CHECK(detail::node_pool::live() == before);
}

TEST_CASE("label and counter cost nothing without a sink", "[trace]") {
  label("main");
  counter("c", 1);
  CHECK(current_thread() == trace::kMainThread);
  Promise<void> p = skein::pause().then([] {
    CHECK(current_thread() > 0);
    return resolved();
  });
  run(p);
}
