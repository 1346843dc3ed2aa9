// cancel_test.cpp — cancellation and its propagation, with Lwt's rules.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime/runtime.hpp"

using namespace skein;

TEST_CASE("cancel rejects a task with Canceled", "[cancel]") {
  auto [t, r] = skein::task<int>();
  cancel(t);
  CHECK(t.state() == State::rejected);
  CHECK(t.canceled());
  CHECK_THROWS_AS(t.value(), Canceled);
  REQUIRE_NOTHROW(r.resolve(1));  // resolving a cancelled promise is ignored
}

TEST_CASE("cancel on a wait() promise does nothing", "[cancel]") {
  auto [w, r] = skein::wait<int>();
  cancel(w);
  CHECK(w.state() == State::pending);
  r.resolve(2);
  CHECK(w.value() == 2);
}

TEST_CASE("cancel on a bind propagates to the task it waits on", "[cancel]") {
  auto [t, r] = skein::task<int>();
  bool called = false;
  Promise<int> b = t.then([&](int x) {
    called = true;
    return resolved(x);
  });
  Promise<int> m = b.map([](int x) { return x; });
  cancel(m);
  CHECK(t.canceled());
  CHECK(b.canceled());
  CHECK(m.canceled());
  CHECK_FALSE(called);
}

TEST_CASE("cancel on a bind over a wait() does nothing", "[cancel]") {
  auto [w, r] = skein::wait<int>();
  Promise<int> b = w.map([](int x) { return x + 1; });
  cancel(b);
  CHECK(b.state() == State::pending);
  r.resolve(1);
  CHECK(b.value() == 2);
}

TEST_CASE("after a tail-merge, cancel reaches the merged promise's task", "[cancel][proxy]") {
  auto [p, r] = skein::wait();
  auto [t, rt] = skein::task<int>();
  Promise<int> b = p.then([t = t] { return t; });
  r.resolve();
  cancel(b);
  CHECK(t.canceled());
  CHECK(b.canceled());
}

TEST_CASE("after a tail-merge into a bind, cancel reaches what that bind waits on", "[cancel][proxy]") {
  auto [p, r] = skein::wait();
  auto [t, rt] = skein::task();
  Promise<void> b = p.then([t = t] { return t.then([] { return resolved(); }); });
  r.resolve();
  cancel(b);
  CHECK(t.canceled());
  CHECK(b.canceled());
}

TEST_CASE("pick cancels the losers and choose does not", "[cancel][choose]") {
  auto [a, ra] = skein::task<int>();
  auto [b, rb] = skein::task<int>();
  auto [w, rw] = skein::wait<int>();
  Promise<int> p = pick(std::vector<Promise<int>>{a, b, w});
  rb.resolve(2);
  CHECK(p.value() == 2);
  CHECK(a.canceled());
  CHECK(w.state() == State::pending);  // a wait() ignores cancel
  rw.resolve(0);

  auto [c, rc] = skein::task<int>();
  auto [d, rd] = skein::task<int>();
  Promise<int> q = choose(std::vector<Promise<int>>{c, d});
  rd.resolve(4);
  CHECK(q.value() == 4);
  CHECK(c.state() == State::pending);
  rc.resolve(0);

  auto [e, re] = skein::task<int>();
  CHECK(pick(std::vector<Promise<int>>{resolved(7), e}).value() == 7);
  CHECK(e.canceled());
}

TEST_CASE("cancel on join cancels every pending input", "[cancel][join]") {
  auto [a, ra] = skein::task();
  auto [b, rb] = skein::task();
  Promise<void> j = join({a, b});
  cancel(j);
  CHECK(a.canceled());
  CHECK(b.canceled());
  CHECK(j.canceled());
}

TEST_CASE("on_cancel runs on cancellation only", "[cancel]") {
  int hits = 0;
  auto [t, r] = skein::task();
  on_cancel(t, [&] { ++hits; });
  auto [u, ru] = skein::task();
  on_cancel(u, [&] { hits += 100; });
  ru.resolve();
  cancel(t);
  CHECK(hits == 1);
  on_cancel(t, [&] { ++hits; });  // already cancelled: runs at once
  CHECK(hits == 2);
}

TEST_CASE("catch_ can recover from a cancellation", "[cancel][catch]") {
  auto [t, r] = skein::task<int>();
  Promise<int> c = catch_(t, [](std::exception_ptr) { return resolved(0); });
  cancel(t);
  CHECK(c.value() == 0);
}
