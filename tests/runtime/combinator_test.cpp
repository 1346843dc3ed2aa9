// combinator_test.cpp — catch_, finally, join, all, choose, pick, async.
#include <catch2/catch.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/runtime.hpp"

using namespace skein;

namespace {
struct Boom : std::runtime_error {
  Boom() : std::runtime_error("boom") {}
};
struct Other : std::runtime_error {
  Other() : std::runtime_error("other") {}
};
}  // namespace

TEST_CASE("catch_ passes a value through and recovers from a rejection", "[catch]") {
  auto [p, r] = skein::wait<int>();
  auto [e, re] = skein::wait<int>();
  int handled = 0;
  auto handler = [&](std::exception_ptr) {
    ++handled;
    return resolved(-1);
  };
  Promise<int> ok = catch_(p, handler);
  Promise<int> recovered = catch_(e, handler);
  r.resolve(5);
  re.fail(Boom{});
  CHECK(ok.value() == 5);
  CHECK(recovered.value() == -1);
  CHECK(handled == 1);
}

TEST_CASE("catch_ sees the error and may rethrow another", "[catch]") {
  auto [p, r] = skein::wait<int>();
  Promise<int> c = catch_(p, [](std::exception_ptr err) -> Promise<int> {
    try {
      std::rethrow_exception(err);
    } catch (const Boom&) {
      throw Other{};
    }
  });
  r.fail(Boom{});
  CHECK_THROWS_AS(c.value(), Other);
}

TEST_CASE("catch_ tail-merges the handler's pending promise", "[catch][proxy]") {
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> c = catch_(p, [q = q](std::exception_ptr) { return q; });
  r.fail(Boom{});
  CHECK(c.state() == State::pending);
  rq.resolve(8);
  CHECK(c.value() == 8);
}

TEST_CASE("catch_ on a settled promise", "[catch]") {
  CHECK(catch_(resolved(1), [](std::exception_ptr) { return resolved(2); }).value() == 1);
  CHECK(catch_(failed<int>(Boom{}), [](std::exception_ptr) { return resolved(2); }).value() == 2);
}

TEST_CASE("finally runs its cleanup on success and on failure, keeping the outcome", "[finally]") {
  auto [p, r] = skein::wait<int>();
  auto [e, re] = skein::wait<int>();
  int cleanups = 0;
  Promise<int> a = finally(p, [&] { ++cleanups; });
  Promise<int> b = finally(e, [&] { ++cleanups; });
  CHECK(cleanups == 0);
  r.resolve(3);
  re.fail(Boom{});
  CHECK(cleanups == 2);
  CHECK(a.value() == 3);
  CHECK_THROWS_AS(b.value(), Boom);
}

TEST_CASE("finally waits for a cleanup promise, and its failure wins", "[finally]") {
  auto [p, r] = skein::wait<int>();
  auto [c, rc] = skein::wait();
  Promise<int> f = finally(p, [c = c] { return c; });
  r.resolve(4);
  CHECK(f.state() == State::pending);
  rc.resolve();
  CHECK(f.value() == 4);

  auto [p2, r2] = skein::wait<int>();
  Promise<int> g = finally(p2, []() -> Promise<void> { return failed<void>(Other{}); });
  r2.fail(Boom{});
  CHECK_THROWS_AS(g.value(), Other);

  Promise<int> h = finally(resolved(9), [] {});
  CHECK(h.value() == 9);
  Promise<int> t = finally(resolved(9), []() -> void { throw Other{}; });
  CHECK_THROWS_AS(t.value(), Other);
}

TEST_CASE("join waits for every input, then reports the first rejection", "[join]") {
  auto [a, ra] = skein::wait();
  auto [b, rb] = skein::wait();
  auto [c, rc] = skein::wait();
  Promise<void> j = join({a, b, c, resolved()});
  rb.resolve();
  rc.fail(Boom{});
  CHECK(j.state() == State::pending);
  ra.fail(Other{});
  CHECK_THROWS_AS(j.value(), Boom);  // c failed first
  CHECK(join({}).state() == State::fulfilled);
}

TEST_CASE("all gathers values in input order", "[join]") {
  auto [a, ra] = skein::wait<int>();
  auto [b, rb] = skein::wait<int>();
  Promise<std::vector<int>> v = all(std::vector<Promise<int>>{a, resolved(2), b});
  rb.resolve(3);
  CHECK(v.state() == State::pending);
  ra.resolve(1);
  CHECK(v.value() == std::vector<int>{1, 2, 3});
  CHECK(all(std::vector<Promise<int>>{}).value().empty());
}

TEST_CASE("all deduces its type from a braced list and gathers in input order", "[join]") {
  auto [p, rp] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<std::vector<int>> v = skein::all({p, q, resolved(3)});
  static_assert(std::is_same_v<decltype(skein::all({p, q})), Promise<std::vector<int>>>);
  rq.resolve(2);
  CHECK(v.state() == State::pending);
  rp.resolve(1);
  CHECK(v.value() == std::vector<int>{1, 2, 3});

  // Values that own memory, and the spellings that compiled before: a named
  // vector, and the type given explicitly (the braced list's overload wins).
  auto [s, rs] = skein::wait<std::string>();
  Promise<std::vector<std::string>> strings = skein::all({s, resolved(std::string("second"))});
  rs.resolve("first");
  CHECK(strings.value() == std::vector<std::string>{"first", "second"});
  const std::vector<Promise<int>> named{resolved(4), resolved(5)};
  CHECK(skein::all(named).value() == std::vector<int>{4, 5});
  CHECK(skein::all<int>({resolved(6), resolved(7)}).value() == std::vector<int>{6, 7});
}

TEST_CASE("join takes a braced list of void promises of every origin", "[join]") {
  auto [a, ra] = skein::wait();
  auto [n, rn] = skein::wait<int>();
  int mapped = 0;
  Promise<void> j = skein::join({a, n.map([&](int x) { mapped = x; }), skein::pause(), resolved()});
  CHECK(j.state() == State::pending);
  rn.resolve(8);
  ra.resolve();
  CHECK(j.state() == State::pending);  // the pause is woken by the loop
  run(j);
  CHECK(mapped == 8);
  CHECK(skein::join({}).state() == State::fulfilled);
}

TEST_CASE("choose settles like the first input to settle while the others go on", "[choose]") {
  auto [a, ra] = skein::task<int>();
  auto [b, rb] = skein::task<int>();
  Promise<int> c = choose(std::vector<Promise<int>>{a, b});
  rb.resolve(2);
  CHECK(c.value() == 2);
  CHECK(a.state() == State::pending);  // not cancelled
  ra.resolve(1);
  CHECK(c.value() == 2);
  CHECK(choose(std::vector<Promise<int>>{a, b}).value() == 1);  // first settled in list order
  CHECK_THROWS_AS(choose(std::vector<Promise<int>>{}), std::invalid_argument);
}

TEST_CASE("choose passes on a rejection", "[choose]") {
  auto [a, ra] = skein::wait<int>();
  auto [b, rb] = skein::wait<int>();
  Promise<int> c = choose(std::vector<Promise<int>>{a, b});
  ra.fail(Boom{});
  CHECK_THROWS_AS(c.value(), Boom);
  rb.resolve(1);
}

TEST_CASE("choose and pick deduce their type from a braced list", "[choose][cancel]") {
  auto [a, ra] = skein::task<int>();
  auto [b, rb] = skein::task<int>();
  Promise<int> chosen = skein::choose({a, b});
  Promise<int> picked = skein::pick({a, b});
  static_assert(std::is_same_v<decltype(skein::pick({a, b})), Promise<int>>);
  rb.resolve(2);
  CHECK(chosen.value() == 2);
  CHECK(picked.value() == 2);
  CHECK(a.canceled());  // pick cancelled the loser
  Promise<void> timed = skein::pick({skein::pause(), skein::sleep(std::chrono::hours(1))});
  run(timed);
  CHECK(timed.state() == State::fulfilled);
}

TEST_CASE("async runs f now and its failure goes to the hook", "[async]") {
  std::vector<std::string> seen;
  AsyncExceptionHook previous = set_async_exception_hook([&](std::exception_ptr e) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      seen.emplace_back(x.what());
    }
  });
  bool ran = false;
  async([&] {
    ran = true;
    return resolved();
  });
  CHECK(ran);
  async([]() -> Promise<void> { throw Boom{}; });
  CHECK(seen == std::vector<std::string>{"boom"});
  auto [p, r] = skein::wait();
  async([p = p] { return p.then([]() -> Promise<void> { return failed<void>(Other{}); }); });
  CHECK(seen.size() == 1);
  r.resolve();
  CHECK(seen == std::vector<std::string>{"boom", "other"});
  set_async_exception_hook(previous);
}

TEST_CASE("an exception from on_cancel goes to the async hook", "[async][cancel]") {
  int hooked = 0;
  AsyncExceptionHook previous = set_async_exception_hook([&](std::exception_ptr) { ++hooked; });
  auto [t, rt] = skein::task();
  on_cancel(t, [] { throw Boom{}; });
  cancel(t);
  CHECK(hooked == 1);
  set_async_exception_hook(previous);
}
