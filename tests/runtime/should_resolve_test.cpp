// should_resolve_test.cpp — skein::should_resolve (runtime/should_resolve.hpp):
// the exact record it adds for which id, that it changes nothing else, that
// constants record nothing, and the errors. Golden lines against the
// memory sink (ids renumbered by first appearance; 0 the main thread).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"

using namespace skein;
using Lines = std::vector<std::string>;

TEST_CASE("should_resolve: records the promise, and nothing else happens", "[trace][should_resolve]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  skein::should_resolve(p);
  CHECK(p.state() == State::pending);  // a hint: it settles nothing
  r.resolve(1);
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "should-resolve 1", "resolve 1 0 ok"});
}

TEST_CASE("should_resolve: a merged promise is named by its newest identity", "[trace][should_resolve][proxy]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = p.then([q = q](int) { return q; });
  r.resolve(1);  // b now behaves as q
  skein::should_resolve(b);
  rq.resolve(5);
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "spawn 2 0 wait", "spawn 3 0 bind", "wait 3 1", "resolve 1 0 ok",
                            "read 3 1", "merge 3 2", "should-resolve 2", "resolve 2 0 ok"});
}

TEST_CASE("should_resolve: constants record nothing, and an empty promise is an error",
          "[trace][should_resolve]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  skein::should_resolve(resolved(3));
  CHECK(sink.lines.empty());
  Promise<void> empty;
  CHECK_THROWS_AS(skein::should_resolve(empty), std::logic_error);
}

TEST_CASE("should_resolve: with no sink set it records nothing and does not fail", "[should_resolve]") {
  REQUIRE(trace::sink() == nullptr);
  auto [p, r] = skein::wait<void>();
  skein::should_resolve(p);
  CHECK(p.state() == State::pending);
  r.resolve();
}
