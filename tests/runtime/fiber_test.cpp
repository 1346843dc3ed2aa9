// fiber_test.cpp — stackful fibers (runtime/fiber.hpp): values, errors,
// await on settled, pending and failed promises, nesting, cancellation, the
// actor, per-fiber exception state, pooled stacks over 100,000 fibers, the
// guard page (a death test in a child process), and golden traces.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/coroutine.hpp"
#include "runtime/fiber.hpp"
#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"

using namespace skein;
using Lines = std::vector<std::string>;

namespace {

struct Boom : std::runtime_error {
  explicit Boom(const char* what = "boom") : std::runtime_error(what) {}
};

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  }
}

// Restores the stack configuration a test changed.
struct StackConfigRestore {
  FiberStackConfig saved = fiber_stack_config();
  ~StackConfigRestore() { configure_fiber_stacks(saved); }
};

}  // namespace

TEST_CASE("a fiber runs at once and its promise has its value", "[fiber]") {
  bool ran = false;
  Promise<int> f = spawn_fiber([&] {
    ran = true;
    return 7;
  });
  CHECK(ran);
  REQUIRE(f.state() == State::fulfilled);
  CHECK(f.value() == 7);

  int side = 0;
  Promise<void> v = spawn_fiber([&] { side = 3; });
  CHECK(v.state() == State::fulfilled);
  CHECK(side == 3);
}

TEST_CASE("an exception thrown in a fiber rejects its promise and never escapes", "[fiber]") {
  Promise<int> f;
  REQUIRE_NOTHROW(f = spawn_fiber([]() -> int { throw Boom("inside"); }));
  REQUIRE(f.state() == State::rejected);
  CHECK_FALSE(f.canceled());
  CHECK(message_of(f.error()) == "inside");
  CHECK_THROWS_AS(run(f), Boom);
}

TEST_CASE("await on a settled promise returns at once, without blocking", "[fiber][await]") {
  Promise<int> f = spawn_fiber([] { return await(resolved(20)) + await(resolved(22)); });
  CHECK(f.state() == State::fulfilled);
  CHECK(f.value() == 42);

  auto [p, r] = skein::wait<std::string>();
  r.resolve("settled before");
  Promise<std::size_t> g = spawn_fiber([p = p] { return await(p).size(); });
  CHECK(g.value() == 14);
}

TEST_CASE("await on a pending promise blocks the fiber until the loop resumes it", "[fiber][await]") {
  auto [p, r] = skein::wait<int>();
  std::vector<std::string> events;
  Promise<int> f = spawn_fiber([&, p = p] {
    events.push_back("before");
    const int x = await(p);
    events.push_back("after " + std::to_string(x));
    return x * 2;
  });
  events.push_back("spawn returned");
  CHECK(f.state() == State::pending);
  const std::size_t queued = detail::ready_queue_size();
  r.resolve(21);
  // Resolving only queues the fiber: it runs when the loop does.
  CHECK(events == Lines{"before", "spawn returned"});
  CHECK(detail::ready_queue_size() == queued + 1);
  CHECK(run(f) == 42);
  CHECK(events == Lines{"before", "spawn returned", "after 21"});
}

TEST_CASE("await on a failed promise rethrows its error in the fiber", "[fiber][await]") {
  auto [p, r] = skein::wait<int>();
  Promise<std::string> caught = spawn_fiber([p = p]() -> std::string {
    try {
      (void)await(p);
      return "no error";
    } catch (const Boom& e) {
      return std::string("caught ") + e.what();
    }
  });
  Promise<int> passed_on = spawn_fiber([p = p] { return await(p) + 1; });
  r.fail(Boom("bad input"));
  CHECK(run(caught) == "caught bad input");
  CHECK_THROWS_WITH(run(passed_on), "bad input");
  CHECK_FALSE(passed_on.canceled());

  // A constant rejection is rethrown at once.
  Promise<int> at_once = spawn_fiber([] { return await(failed<int>(Boom("now"))); });
  CHECK(at_once.state() == State::rejected);
}

TEST_CASE("a fiber reads what the awaited promise became after a tail-merge", "[fiber][await][proxy]") {
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = p.then([q = q](int) { return q; });
  Promise<int> f = spawn_fiber([b = b] { return await(b) + 1; });
  r.resolve(0);  // b now behaves as q: the fiber's waiter moved to q's root
  CHECK(run(skein::pause().map([] { return 0; })) == 0);
  CHECK(f.state() == State::pending);
  rq.resolve(41);
  CHECK(run(f) == 42);
}

TEST_CASE("a fiber's function may be move-only, and it dies on the fiber once run", "[fiber]") {
  auto owned = std::make_unique<int>(6);
  std::weak_ptr<int> watch;
  auto shared = std::make_shared<int>(1);
  watch = shared;
  auto [p, r] = skein::wait();
  Promise<int> f = spawn_fiber([owned = std::move(owned), shared = std::move(shared), p = p] {
    await(p);
    return *owned * 7;
  });
  CHECK_FALSE(watch.expired());  // held by the blocked fiber's function
  r.resolve();
  CHECK(run(f) == 42);
  CHECK(watch.expired());
}

TEST_CASE("await outside a fiber: a settled value, or a clear error for a pending one", "[fiber][await]") {
  CHECK(await(resolved(5)) == 5);
  CHECK_THROWS_AS(await(failed<int>(Boom{})), Boom);
  auto [p, r] = skein::wait<int>();
  CHECK_FALSE(in_fiber());
  CHECK_THROWS_WITH(await(p), Catch::Contains("not a fiber"));
  CHECK_THROWS_AS(await(Promise<int>{}), std::logic_error);
  r.resolve(1);
  CHECK(await(p) == 1);
}

TEST_CASE("a callback running on a fiber's stack cannot block the fiber", "[fiber][await]") {
  std::string error;
  Promise<void> f = spawn_fiber([&] {
    auto [p, r] = skein::wait();
    auto [never, keep] = skein::wait();
    Promise<void> b = p.map([&, never = never] {
      CHECK_FALSE(in_fiber());
      try {
        await(never);
      } catch (const std::logic_error& e) {
        error = e.what();
      }
    });
    r.resolve();  // b's callback runs here, inside the resolver, on the fiber's stack
    CHECK(in_fiber());
  });
  CHECK(f.state() == State::fulfilled);
  CHECK_THAT(error, Catch::Contains("not the fiber itself"));
}

TEST_CASE("the actor is the fiber while its code runs, and is restored when it blocks", "[fiber][actor]") {
  auto [p, r] = skein::wait();
  std::vector<ThreadId> seen;
  Promise<void> f = spawn_fiber([&, p = p] {
    seen.push_back(current_thread());
    await(p);
    seen.push_back(current_thread());
  });
  CHECK(current_thread() == trace::kMainThread);
  r.resolve();
  run(f);
  CHECK(current_thread() == trace::kMainThread);
  CHECK(seen == std::vector<ThreadId>{f.id(), f.id()});
}

TEST_CASE("fibers nest: a fiber spawns and awaits another", "[fiber][nested]") {
  std::vector<std::string> events;
  Promise<int> outer = spawn_fiber([&] {
    events.push_back("outer starts");
    Promise<int> inner = spawn_fiber([&] {
      events.push_back("inner starts");
      await(skein::pause());
      events.push_back("inner resumes");
      CHECK(in_fiber());
      return 40;
    });
    events.push_back("outer got inner's promise");
    CHECK(in_fiber());
    const int x = await(inner);
    events.push_back("outer resumes");
    return x + 2;
  });
  CHECK(run(outer) == 42);
  CHECK(events ==
        Lines{"outer starts", "inner starts", "outer got inner's promise", "inner resumes", "outer resumes"});
}

TEST_CASE("fibers ping-pong through promises many times", "[fiber]") {
  // Two fibers hand a counter back and forth through fresh promises; each
  // hand-over blocks one fiber and lets the loop resume the other.
  constexpr int kRounds = 10000;
  std::vector<Resolver<int>> to_b, to_a;
  std::vector<Promise<int>> at_b, at_a;
  for (int i = 0; i < kRounds; ++i) {
    auto [pb, rb] = skein::wait<int>();
    auto [pa, ra] = skein::wait<int>();
    at_b.push_back(pb);
    to_b.push_back(rb);
    at_a.push_back(pa);
    to_a.push_back(ra);
  }
  Promise<int> a = spawn_fiber([&] {
    int x = 0;
    for (int i = 0; i < kRounds; ++i) {
      to_b[i].resolve(x);
      x = await(at_a[i]);
    }
    return x;
  });
  Promise<void> b = spawn_fiber([&] {
    for (int i = 0; i < kRounds; ++i) to_a[i].resolve(await(at_b[i]) + 1);
  });
  CHECK(run(a) == kRounds);
  CHECK(b.state() == State::fulfilled);
}

TEST_CASE("a fiber awaits a coroutine", "[fiber][coroutine]") {
  auto [p, r] = skein::wait<int>();
  auto twice = [](Promise<int> in) -> Promise<int> { co_return 2 * co_await in; };
  Promise<int> f = spawn_fiber([&, p = p] { return await(twice(p)) + 1; });
  CHECK(f.state() == State::pending);
  r.resolve(20);
  CHECK(run(f) == 41);
}

TEST_CASE("cancelling a blocked fiber cancels the promise it awaits", "[fiber][cancel]") {
  SECTION("uncaught, the cancellation settles the fiber with outcome cancel") {
    auto [t, r] = skein::task<int>();
    bool after = false;
    Promise<int> f = spawn_fiber([&, t = t] {
      const int x = await(t);
      after = true;
      return x;
    });
    cancel(f);
    CHECK(t.canceled());
    CHECK(f.state() == State::pending);  // the fiber has not run yet: the loop resumes it
    CHECK_THROWS_AS(run(f), Canceled);
    CHECK(f.canceled());
    CHECK_FALSE(after);
  }
  SECTION("caught, the fiber goes on") {
    auto [t, r] = skein::task<int>();
    Promise<int> f = spawn_fiber([t = t] {
      try {
        return await(t);
      } catch (const Canceled&) {
        return -1;
      }
    });
    cancel(f);
    CHECK(run(f) == -1);
    CHECK_FALSE(f.canceled());
  }
  SECTION("a wait() promise ignores it, and so the fiber goes on waiting") {
    auto [w, r] = skein::wait<int>();
    Promise<int> f = spawn_fiber([w = w] { return await(w); });
    cancel(f);
    CHECK(f.state() == State::pending);
    r.resolve(3);
    CHECK(run(f) == 3);
  }
  SECTION("through a bind that tail-merged the fiber") {
    auto [t, r] = skein::task<int>();
    Promise<int> b = skein::pause().then([t = t] { return spawn_fiber([t] { return await(t); }); });
    auto [gate, open] = skein::wait();
    Promise<void> canceller = gate.map([b = b] { cancel(b); });
    Promise<void> pauses = skein::pause().then([open = open]() mutable {
      open.resolve();
      return resolved();
    });
    CHECK_THROWS_AS(run(b), Canceled);
    CHECK(t.canceled());
    CHECK(b.canceled());
    run(canceller);
  }
}

TEST_CASE("each fiber keeps its own exception-handling state", "[fiber][exception]") {
  // Both fibers block inside a catch block; they resume in the other order,
  // and `throw;` must rethrow each fiber's own exception.
  auto [pa, ra] = skein::wait();
  auto [pb, rb] = skein::wait();
  auto rethrow_after = [](const char* what, Promise<void> gate) {
    return spawn_fiber([what, gate] {
      try {
        throw Boom(what);
      } catch (...) {
        await(gate);
        CHECK(std::uncaught_exceptions() == 0);
        throw;
      }
    });
  };
  Promise<void> a = rethrow_after("from a", pa);
  Promise<void> b = rethrow_after("from b", pb);
  try {  // and main code handling its own exception meanwhile
    throw Boom("from main");
  } catch (const Boom& e) {
    ra.resolve();
    CHECK_THROWS_WITH(run(a), "from a");
    CHECK(std::string(e.what()) == "from main");
  }
  rb.resolve();
  CHECK_THROWS_WITH(run(b), "from b");
}

TEST_CASE("callbacks nest at most kFiberCallbackDepth deep on a fiber's stack", "[fiber][depth]") {
  auto [p, r] = skein::wait<int>();
  Promise<int> q = p;
  const int length = kFiberCallbackDepth + 10;
  for (int i = 0; i < length; ++i) q = q.map([](int x) { return x + 1; });
  const std::size_t queued = detail::ready_queue_size();
  Promise<void> f = spawn_fiber([r = r]() mutable { r.resolve(0); });
  CHECK(f.state() == State::fulfilled);
  CHECK(q.state() == State::pending);
  CHECK(detail::ready_queue_size() == queued + 1);  // the rest of the chain, deferred
  CHECK(run(q) == length);
  // On the thread's own stack the same chain runs at once.
  auto [p2, r2] = skein::wait<int>();
  Promise<int> q2 = p2;
  for (int i = 0; i < length; ++i) q2 = q2.map([](int x) { return x + 1; });
  r2.resolve(0);
  CHECK(q2.state() == State::fulfilled);
}

TEST_CASE("a dropped fiber promise: the fiber still finishes and frees everything", "[fiber][memory]") {
  const std::size_t live_before = detail::node_pool::live();
  const FiberStackStats before = fiber_stack_stats();
  int done = 0;
  {
    auto [p, r] = skein::wait();
    { Promise<void> dropped = spawn_fiber([&, p = p] { await(p); ++done; }); }
    CHECK(fiber_stack_stats().in_use == before.in_use + 1);
    r.resolve();
    run(skein::pause());
  }
  CHECK(done == 1);
  CHECK(fiber_stack_stats().in_use == before.in_use);
  CHECK(detail::node_pool::live() == live_before);
}

TEST_CASE("100,000 fibers complete on reused stacks, in bounded memory", "[fiber][memory][stress]") {
  StackConfigRestore restore;
  configure_fiber_stacks({kDefaultFiberStackSize, 64});
  const std::size_t live_before = detail::node_pool::live();
  const FiberStackStats before = fiber_stack_stats();

  // Waves of 50 fibers that each block once (on a pause) and finish from the
  // loop: at most 50 stacks are ever in use, and the pool keeps them all.
  constexpr int kWave = 50;
  constexpr int kFibers = 100000;
  long long sum = 0;
  std::vector<Promise<int>> wave;
  wave.reserve(kWave);
  for (int first = 0; first < kFibers; first += kWave) {
    wave.clear();
    for (int i = first; i < first + kWave; ++i) wave.push_back(spawn_fiber([i] {
        await(skein::pause());
        return i;
      }));
    for (int x : run(all(wave))) sum += x;
  }
  CHECK(sum == static_cast<long long>(kFibers) * (kFibers - 1) / 2);
  wave.clear();

  // And as many that finish at once, reusing one stack each time.
  int ran = 0;
  for (int i = 0; i < kFibers; ++i) (void)spawn_fiber([&] { ++ran; });
  CHECK(ran == kFibers);

  const FiberStackStats after = fiber_stack_stats();
  CHECK(after.in_use == before.in_use);
  CHECK(after.mapped - before.mapped <= kWave);
  CHECK(after.reused - before.reused >= 2 * kFibers - kWave);
  CHECK(after.peak_in_use <= std::max<std::size_t>(before.peak_in_use, kWave));
  CHECK(after.pooled <= 64);
  CHECK(detail::node_pool::live() == live_before);
}

TEST_CASE("the stack pool is bounded and its size is configurable", "[fiber][memory]") {
  StackConfigRestore restore;
  CHECK_THROWS_AS(configure_fiber_stacks({kMinFiberStackSize - 1, 8}), std::invalid_argument);

  configure_fiber_stacks({128 * 1024, 2});
  std::size_t size_seen = 0;
  (void)spawn_fiber([&] { size_seen = detail::current_fiber_stack().size; });
  CHECK(size_seen == 128 * 1024);
  CHECK(detail::current_fiber_stack().low == nullptr);  // not in a fiber

  // Five fibers blocked at once need five stacks; the pool keeps two of them.
  const FiberStackStats before = fiber_stack_stats();
  auto [gate, open] = skein::wait();
  std::vector<Promise<void>> blocked;
  for (int i = 0; i < 5; ++i) blocked.push_back(spawn_fiber([gate = gate] { await(gate); }));
  CHECK(fiber_stack_stats().in_use == before.in_use + 5);
  open.resolve();
  run(join(blocked));
  const FiberStackStats after = fiber_stack_stats();
  CHECK(after.in_use == before.in_use);
  CHECK(after.pooled == 2);
  CHECK(after.unmapped - before.unmapped >= 3);

  trim_fiber_stack_pool();
  CHECK(fiber_stack_stats().pooled == 0);
}

// --- the guard page -------------------------------------------------------------

namespace {

// The child's view of the fault, written from its signal handler.
int g_report_fd = -1;
void* g_guard_low = nullptr;
void* g_guard_high = nullptr;

void write_report(const char* text) noexcept {
  const ssize_t n = ::write(g_report_fd, text, std::strlen(text));
  (void)n;
}

// Runs on the alternate signal stack (the fiber's stack is exhausted). With
// SA_RESETHAND the default action is back in place, so returning re-runs the
// faulting instruction and the child dies by the signal.
void on_fault(int, siginfo_t* info, void*) {
  void* address = info->si_addr;
  write_report(address >= g_guard_low && address < g_guard_high ? "fault in guard page\n"
                                                                 : "fault outside the guard page\n");
}

[[gnu::noinline]] int recurse(int depth) {
  volatile char frame[256];
  frame[0] = static_cast<char>(depth);
  if (depth == 1 << 30) return frame[0];  // never: the stack ends long before
  return recurse(depth + 1) + frame[0];   // not a tail call
}

[[noreturn]] void overflow_in_child(int report_fd) {
  g_report_fd = report_fd;
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  ::sigaltstack(&ss, nullptr);
  struct sigaction action {};
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, nullptr);
  ::sigaction(SIGBUS, &action, nullptr);

  (void)spawn_fiber([] {
    const detail::FiberStack stack = detail::current_fiber_stack();
    g_guard_low = stack.guard;
    g_guard_high = stack.low;
    write_report("fiber started\n");
    (void)recurse(0);
    write_report("recursion returned\n");
  });
  write_report("spawn returned\n");
  ::_exit(0);
}

}  // namespace

TEST_CASE("a fiber's stack overflow faults on its guard page", "[fiber][death]") {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(fds[0]);
    overflow_in_child(fds[1]);
  }
  ::close(fds[1]);
  std::string report;
  char buffer[256];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) report.append(buffer, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);

  INFO("child's report: " << report);
  REQUIRE_FALSE(WIFEXITED(status));
  REQUIRE(WIFSIGNALED(status));
  CHECK((WTERMSIG(status) == SIGSEGV || WTERMSIG(status) == SIGBUS));
  CHECK(report == "fiber started\nfault in guard page\n");
}

// --- golden traces ----------------------------------------------------------------

#if SKEIN_TRACE_HOOKS

TEST_CASE("golden: a fiber blocks on a promise resolved later by main code", "[fiber][trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  Promise<int> f = spawn_fiber([p = p] { return await(p) + 1; });
  r.resolve(41);
  CHECK(run(f) == 42);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 fiber",
                            "switch 2",  // the spawn runs the fiber at once
                            "wait 2 1",
                            "switch 0",  // it blocks: back to main, which spawned it
                            "resolve 1 0 ok",
                            "wait 0 2",
                            "switch -1",
                            "switch 2",  // the loop resumes it: explained by resolve 1
                            "read 2 1",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: a fiber that never blocks, and one that fails", "[fiber][trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Promise<int> f = spawn_fiber([] { return 1; });
  Promise<int> g = spawn_fiber([]() -> int { throw Boom("no"); });
  CHECK(sink.lines == Lines{"spawn 1 0 fiber",
                            "switch 1",
                            "resolve 1 1 ok",
                            "switch 0",
                            "spawn 2 0 fiber",
                            "switch 2",
                            "resolve 2 2 fail",
                            "switch 0"});
  CHECK(sink.messages == Lines{"no"});
}

TEST_CASE("golden: a fiber spawned by a callback blocks back to that callback", "[fiber][trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Promise<int> b = skein::pause().then([] {
    return spawn_fiber([] {
      await(skein::pause());
      return 5;
    });
  });
  CHECK(run(b) == 5);
  CHECK(sink.lines == Lines{"spawn 1 0 pause",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "wait 0 2",
                            "switch -1",
                            "notify -1 1 yield",
                            "resolve 1 -1 ok",
                            "read 2 1",
                            "spawn 3 2 fiber",  // the bind's callback spawns the fiber
                            "switch 3",
                            "spawn 4 3 pause",
                            "wait 3 4",
                            "switch 2",   // blocked: back to the bind
                            "merge 2 3",  // the bind's promise now behaves as the fiber
                            "switch -1",
                            "notify -1 4 yield",
                            "resolve 4 -1 ok",  // the fiber is queued, not run
                            "switch -1",
                            "switch 3",
                            "read 3 4",
                            "resolve 3 3 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 3"});
}

TEST_CASE("golden: cancelling a blocked fiber", "[fiber][trace][cancel]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [t, r] = skein::task<int>();
  Promise<int> f = spawn_fiber([t = t] { return await(t); });
  cancel(f);
  CHECK_THROWS_AS(run(f), Canceled);
  CHECK(sink.lines == Lines{"spawn 1 0 task",
                            "spawn 2 0 fiber",
                            "switch 2",
                            "wait 2 1",
                            "switch 0",
                            "resolve 1 0 cancel",
                            "wait 0 2",
                            "switch -1",
                            "switch 2",
                            "read 2 1",
                            "resolve 2 2 cancel",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

#endif  // SKEIN_TRACE_HOOKS
