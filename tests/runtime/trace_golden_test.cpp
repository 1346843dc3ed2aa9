// trace_golden_test.cpp — the exact records small programs produce, against
// the memory sink. Ids are renumbered by first appearance (memory_sink.hpp):
// -1 is the scheduler, 0 the main thread.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"

using namespace skein;
using Lines = std::vector<std::string>;

namespace {
struct Boom : std::runtime_error {
  Boom() : std::runtime_error("boom") {}
};
}  // namespace

TEST_CASE("golden: bind on a pending promise, then resolve", "[trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  Promise<int> b = p.then([](int x) { return resolved(x + 1); });
  r.resolve(41);
  CHECK(run(b) == 42);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "resolve 1 0 ok",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: a bind's tail call is merged, and the row continues as the callee", "[trace][proxy]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = p.then([q = q](int) { return q; });
  r.resolve(1);
  rq.resolve(5);
  b.label("b");
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 bind",
                            "wait 3 1",
                            "resolve 1 0 ok",
                            "read 3 1",
                            "merge 3 2",
                            "resolve 2 0 ok",
                            "label 2 b"});
}

TEST_CASE("golden: a deferred callback is switched to from the ready queue", "[trace][depth]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  Promise<int> q = p;
  const int length = detail::kMaxCallbackDepth + 2;  // ids: p 1, maps 2..67
  for (int i = 0; i < length; ++i) q = q.map([](int x) { return x + 1; });
  r.resolve(0);
  const std::size_t mark = sink.lines.size();
  CHECK(sink.lines[mark - 1] == "resolve 65 65 ok");  // the 64th map, settled at depth 64
  CHECK(run(q) == length);
  CHECK(sink.from(mark) == Lines{"wait 0 67",
                                 "switch -1",
                                 "switch 66",
                                 "read 66 65",
                                 "resolve 66 66 ok",
                                 "read 67 66",
                                 "resolve 67 67 ok",
                                 "switch -1",
                                 "switch 0",
                                 "read 0 67"});
}

TEST_CASE("golden: pause is a notify yield from the loop", "[trace][pause]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Promise<void> b = skein::pause().then([] { return resolved(); });
  run(b);
  CHECK(sink.lines == Lines{"spawn 1 0 pause",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "wait 0 2",
                            "switch -1",
                            "notify -1 1 yield",
                            "resolve 1 -1 ok",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: a pause loop merges each iteration into the first", "[trace][pause][proxy]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  int i = 0;
  std::function<Promise<void>()> loop = [&]() -> Promise<void> {
    if (++i == 3) return resolved();
    return skein::pause().then(loop);
  };
  run(loop());
  CHECK(sink.lines == Lines{"spawn 1 0 pause",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "wait 0 2",
                            "switch -1",
                            "notify -1 1 yield",
                            "resolve 1 -1 ok",
                            "read 2 1",
                            "spawn 3 2 pause",
                            "spawn 4 2 bind",
                            "wait 4 3",
                            "merge 2 4",
                            "switch -1",
                            "notify -1 3 yield",
                            "resolve 3 -1 ok",
                            "read 4 3",
                            "resolve 4 4 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 4"});
}

TEST_CASE("golden: sleep is a notify timer after the loop idles", "[trace][sleep]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Promise<void> b = skein::sleep(std::chrono::milliseconds(1)).then([] { return resolved(); });
  run(b);
  CHECK(sink.lines == Lines{"spawn 1 0 sleep",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "wait 0 2",
                            "switch -1",
                            "idle",
                            "notify -1 1 timer",
                            "resolve 1 -1 ok",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: join reads each input as it settles", "[trace][join]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [a, ra] = skein::wait();
  auto [b, rb] = skein::wait();
  Promise<void> j = join({a, b, resolved()});
  rb.resolve();
  ra.resolve();
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 join",
                            "wait 3 1",
                            "wait 3 2",
                            "resolve 2 0 ok",
                            "read 3 2",
                            "resolve 1 0 ok",
                            "read 3 1",
                            "resolve 3 3 ok"});
}

TEST_CASE("golden: cancel settles the task and flows forwards", "[trace][cancel]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [t, r] = skein::task<int>();
  Promise<int> b = t.map([](int x) { return x; });
  cancel(b);
  CHECK(sink.lines == Lines{"spawn 1 0 task",
                            "spawn 2 0 map",
                            "wait 2 1",
                            "resolve 1 0 cancel",
                            "read 2 1",
                            "resolve 2 2 cancel"});
}

TEST_CASE("golden: a failing async thread is resolved with outcome fail", "[trace][async]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  AsyncExceptionHook previous = set_async_exception_hook([](std::exception_ptr) {});
  async([]() -> Promise<void> { throw Boom{}; });
  label("main");
  counter("ring", 3);
  set_async_exception_hook(previous);
  CHECK(sink.lines == Lines{"spawn 1 0 async", "resolve 1 1 fail", "label 0 main", "counter ring 3"});
  CHECK(sink.messages == Lines{"boom"});
}

TEST_CASE("spawn records carry the creating call's site", "[trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  const auto line = std::source_location::current().line();
  auto [p, r] = skein::wait();
  Promise<void> b = p.map([] {});
  REQUIRE(sink.sites.size() == 2);
  CHECK(sink.sites[0].line() == line + 1);
  CHECK(sink.sites[1].line() == line + 2);
  CHECK(std::string(sink.sites[1].file_name()).find("trace_golden_test.cpp") != std::string::npos);
  CHECK(std::string(sink.sites[1].function_name()).empty() == false);
  r.resolve();
}

// --- drop: the last Resolver of a pending promise ends (resolver.hpp) -------

TEST_CASE("golden: a resolver dropped while its promise is pending records drop, by main", "[trace][drop]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Promise<int> p = [] {
    auto [q, r] = skein::wait<int>();
    return q;
  }();  // r ends here
  CHECK(p.state() == State::pending);
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "drop 1 0"});
}

TEST_CASE("golden: a resolver dropped inside a callback is dropped by that callback's thread", "[trace][drop]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  std::optional<Resolver<void>> held;
  Promise<void> pending;
  {
    auto [q, r] = skein::wait();
    pending = q;
    held.emplace(std::move(r));
  }
  auto [go, rgo] = skein::wait();
  Promise<void> m = go.map([&held] { held.reset(); });
  rgo.resolve();
  CHECK(m.state() == State::fulfilled);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 map",
                            "wait 3 2",
                            "resolve 2 0 ok",
                            "read 3 2",
                            "drop 1 3",  // the map's callback let go of 1's last resolver
                            "resolve 3 3 ok"});
}

TEST_CASE("golden: a copy dropped while another lives records nothing, the last one records the drop",
          "[trace][drop]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait();
  std::optional<Resolver<void>> copy(r);
  { Resolver<void> another = *copy; }
  copy.reset();
  CHECK(sink.lines == Lines{"spawn 1 0 wait"});
  { Resolver<void> last = std::move(r); }  // a move hands the handle over: still one
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "drop 1 0"});
}

TEST_CASE("golden: overwriting a resolver by assignment drops the promise it settled", "[trace][drop]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait();
  auto [q, rq] = skein::wait();
  r = rq;  // p's only resolver is overwritten; q keeps two
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "spawn 2 0 wait", "drop 1 0"});
  r = r;  // itself: nothing ends
  r = std::move(rq);
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "spawn 2 0 wait", "drop 1 0"});
  r.resolve();
  CHECK(q.state() == State::fulfilled);
}

TEST_CASE("golden: a resolver dropped after it settled its promise records nothing", "[trace][drop]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  {
    auto [p, r] = skein::wait<int>();
    r.resolve(1);
    auto [f, rf] = skein::wait<int>();
    rf.fail(std::runtime_error("no"));
  }
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "resolve 1 0 ok", "spawn 2 0 wait", "resolve 2 0 fail"});
}

TEST_CASE("golden: a cancelled task's resolver records nothing when dropped", "[trace][drop][cancel]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  {
    auto [t, r] = skein::task<int>();
    cancel(t);
  }
  CHECK(sink.lines == Lines{"spawn 1 0 task", "resolve 1 0 cancel"});
}

TEST_CASE("golden: the drop of a merged promise names the root it settles", "[trace][drop][proxy]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  std::optional<Resolver<int>> rq;
  Promise<int> b;
  {
    auto [q, resolver] = skein::wait<int>();
    rq.emplace(std::move(resolver));
    b = p.then([q = q](int) { return q; });
  }
  r.resolve(1);  // b's callback returns q, pending: q's node is now a proxy of b's root
  rq.reset();    // the root, still pending, goes by q's id (merge 3 2)
  CHECK(b.state() == State::pending);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 bind",
                            "wait 3 1",
                            "resolve 1 0 ok",
                            "read 3 1",
                            "merge 3 2",
                            "drop 2 0"});
}

TEST_CASE("golden: a node's resolver count saturates: at the maximum it stays and never drops",
          "[trace][drop]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  // One below the maximum still counts exactly, down to the drop.
  {
    auto [p, r] = skein::wait();
    std::vector<Resolver<void>> copies(detail::kResolversSaturated - 2, r);  // 65534 handles
    copies.clear();
    CHECK(sink.lines == Lines{"spawn 1 0 wait"});
  }
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "drop 1 0"});
  // Past the maximum the count stays there: no handle's end is the last.
  // (A count that wrapped would reach 0 while handles live; one that
  // saturated going up but not coming down would too.)
  {
    auto [p, r] = skein::wait();
    std::vector<Resolver<void>> copies(detail::kResolversSaturated + 1, r);  // 65537 handles
    copies.clear();
    CHECK(sink.lines == Lines{"spawn 1 0 wait", "drop 1 0", "spawn 2 0 wait"});
    r = Resolver<void>();
    CHECK(p.state() == State::pending);
  }
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "drop 1 0", "spawn 2 0 wait"});
}
