// promise_test.cpp — promises, resolvers, bind and map: states, values,
// callback order, failure propagation, tail-merge, node sizes.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"

using namespace skein;

namespace {
struct Boom : std::runtime_error {
  Boom() : std::runtime_error("boom") {}
};
}  // namespace

TEST_CASE("wait gives a pending promise that its resolver fulfils", "[promise]") {
  auto [p, r] = skein::wait<int>();
  CHECK(p.state() == State::pending);
  CHECK_THROWS_AS(p.value(), std::logic_error);
  r.resolve(42);
  CHECK(p.state() == State::fulfilled);
  CHECK(p.value() == 42);
  CHECK(p.error() == nullptr);
}

TEST_CASE("resolving twice throws logic_error, as Lwt's Invalid_argument", "[promise]") {
  auto [p, r] = skein::wait<int>();
  r.resolve(1);
  CHECK_THROWS_AS(r.resolve(2), std::logic_error);
  CHECK_THROWS_AS(r.fail(Boom{}), std::logic_error);
  CHECK(p.value() == 1);
  auto [v, rv] = skein::wait();
  rv.resolve();
  CHECK_THROWS_AS(rv.resolve(), std::logic_error);
}

TEST_CASE("a failed promise holds its error and value() rethrows it", "[promise]") {
  auto [p, r] = skein::wait<std::string>();
  r.fail(Boom{});
  CHECK(p.state() == State::rejected);
  CHECK_THROWS_AS(p.value(), Boom);
  CHECK(p.error() != nullptr);
  CHECK_FALSE(p.canceled());
}

TEST_CASE("resolved and failed are constants", "[promise]") {
  CHECK(resolved(3).value() == 3);
  CHECK(resolved(std::string("x")).value() == "x");
  CHECK(resolved().state() == State::fulfilled);
  CHECK(failed<int>(Boom{}).state() == State::rejected);
  CHECK_THROWS_AS(failed<void>(std::make_exception_ptr(Boom{})).value(), Boom);
}

TEST_CASE("bind on a pending promise runs f inside the resolver", "[bind]") {
  auto [p, r] = skein::wait<int>();
  int calls = 0;
  Promise<int> b = p.then([&](int x) {
    ++calls;
    return resolved(x + 1);
  });
  CHECK(calls == 0);
  CHECK(b.state() == State::pending);
  r.resolve(41);
  CHECK(calls == 1);
  CHECK(b.value() == 42);
}

TEST_CASE("bind on a resolved promise runs f at once and returns its promise", "[bind]") {
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = skein::bind(resolved(1), [&](int) { return q; });
  CHECK(b.id() == q.id());  // the very same promise, as in Lwt
  rq.resolve(7);
  CHECK(b.value() == 7);
}

TEST_CASE("callbacks run in the order they were attached", "[bind]") {
  auto [p, r] = skein::wait();
  std::vector<int> order;
  std::vector<Promise<void>> keep;
  for (int i = 0; i < 5; ++i) keep.push_back(p.map([&order, i] { order.push_back(i); }));
  keep.push_back(p.then([&order] {
    order.push_back(5);
    return resolved();
  }));
  r.resolve();
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("callbacks run even when nobody keeps the bind's promise", "[bind]") {
  auto [p, r] = skein::wait<int>();
  int seen = 0;
  (void)p.map([&](int x) { seen = x; });
  r.resolve(9);
  CHECK(seen == 9);
}

TEST_CASE("a rejection flows through bind and map without calling them", "[bind]") {
  auto [p, r] = skein::wait<int>();
  bool called = false;
  Promise<int> m = p.map([&](int x) {
    called = true;
    return x;
  }).then([&](int x) {
    called = true;
    return resolved(x);
  });
  r.fail(Boom{});
  CHECK_FALSE(called);
  CHECK_THROWS_AS(m.value(), Boom);
}

TEST_CASE("an exception thrown by a callback rejects the bind's promise", "[bind]") {
  auto [p, r] = skein::wait<int>();
  Promise<int> b = p.then([](int) -> Promise<int> { throw Boom{}; });
  Promise<int> m = p.map([](int) -> int { throw Boom{}; });
  Promise<void> after = b.map([](int) {});
  REQUIRE_NOTHROW(r.resolve(1));
  CHECK_THROWS_AS(b.value(), Boom);
  CHECK_THROWS_AS(m.value(), Boom);
  CHECK_THROWS_AS(after.value(), Boom);
}

TEST_CASE("map changes the type and may return void", "[bind]") {
  auto [p, r] = skein::wait<int>();
  Promise<std::string> s = p.map([](int x) { return std::to_string(x); });
  int side = 0;
  Promise<void> v = s.map([&](const std::string& t) { side = static_cast<int>(t.size()); });
  r.resolve(1234);
  CHECK(s.value() == "1234");
  CHECK(side == 4);
  CHECK(v.state() == State::fulfilled);
}

TEST_CASE("tail-merge: a pending promise returned by f becomes the bind's promise", "[bind][proxy]") {
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = p.then([q = q](int) { return q; });
  std::vector<std::string> order;
  Promise<void> on_b = b.map([&](int) { order.push_back("b"); });
  Promise<void> on_q = q.map([&](int) { order.push_back("q"); });
  r.resolve(1);
  CHECK(b.state() == State::pending);
  CHECK(b.id() == q.id());  // b now behaves as q
  rq.resolve(5);
  CHECK(b.value() == 5);
  CHECK(q.value() == 5);
  CHECK(order == std::vector<std::string>{"b", "q"});  // b's waiters, then q's
}

TEST_CASE("tail-merge: resolving the inner promise's resolver settles the outer", "[bind][proxy]") {
  auto [p, r] = skein::wait();
  Resolver<int> inner;
  Promise<int> b = p.then([&] {
    auto [q, rq] = skein::wait<int>();
    inner = rq;
    return q;  // the only handle on q goes away: q lives as a proxy
  });
  r.resolve();
  inner.resolve(3);
  CHECK(b.value() == 3);
}

TEST_CASE("node sizes stay within budget", "[promise][memory]") {
  CHECK(sizeof(detail::NodeT<void>) <= 96);
  STATIC_REQUIRE(sizeof(detail::NodeT<void>) <= 96);
  STATIC_REQUIRE(sizeof(detail::NodeT<int>) <= 96);
  STATIC_REQUIRE(sizeof(Promise<int>) == sizeof(void*));
  auto lambda = [](int x) { return resolved(x + 1); };
  STATIC_REQUIRE(sizeof(detail::BindNode<int, int, decltype(lambda)>) <= 96);
  WARN("NodeT<void> " << sizeof(detail::NodeT<void>) << " B, NodeT<int> " << sizeof(detail::NodeT<int>)
                      << " B, BindNode<int,int,empty lambda> " << sizeof(detail::BindNode<int, int, decltype(lambda)>)
                      << " B");
}

TEST_CASE("nodes are freed when the last handle goes", "[promise][memory]") {
  const std::size_t before = detail::node_pool::live();
  {
    auto [p, r] = skein::wait<int>();
    Promise<int> b = p.then([](int x) { return resolved(x); });
    Promise<void> m = b.map([](int) {});
    CHECK(detail::node_pool::live() == before + 3);
    r.resolve(1);
  }
  CHECK(detail::node_pool::live() == before);
  {  // a pending chain nobody can settle any more is freed too
    auto [p, r] = skein::wait<int>();
    Promise<int> b = p.map([](int x) { return x; });
    (void)b.map([](int) {});
  }
  CHECK(detail::node_pool::live() == before);
}
