// sync_test.cpp — the synchronisation primitives: mailbox, mutex, condition,
// stream, semaphore. For each: blocking and wake-up, FIFO order, what
// cancelling a waiter leaves behind (no lost value, no lost lock), and the
// rule that a wake-up settles the waiter at once but runs its callbacks from
// the loop (wait_queue.hpp). The exact trace records are in
// sync_golden_test.cpp.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"

using namespace skein;
using namespace std::chrono_literals;

namespace {

// Takes `count` values from `box` in a bind loop, appending them to `out`.
Promise<void> take_n(Mailbox<int>& box, int count, std::vector<int>& out) {
  if (count == 0) return resolved();
  return box.take().then([&box, count, &out](int v) {
    out.push_back(v);
    return take_n(box, count - 1, out);
  });
}

// W4's two threads: `a` puts x in `to_b` and waits for x + 1 in `to_a`,
// `rounds` times; `b` answers. Returns a's last value (rounds, when right).
Promise<int> ping(Mailbox<int>& to_b, Mailbox<int>& to_a, int rounds, int x) {
  if (rounds == 0) return resolved(x);
  return to_b.put(x).then([&to_b, &to_a, rounds, x] {
    return to_a.take().then([&to_b, &to_a, rounds, x](int y) {
      if (y != x + 1) throw std::runtime_error("ping: sent " + std::to_string(x) + ", got " + std::to_string(y));
      return ping(to_b, to_a, rounds - 1, y);
    });
  });
}
Promise<void> pong(Mailbox<int>& to_b, Mailbox<int>& to_a, int rounds) {
  if (rounds == 0) return resolved();
  return to_b.take().then([&to_b, &to_a, rounds](int x) {
    return to_a.put(x + 1).then([&to_b, &to_a, rounds] { return pong(to_b, to_a, rounds - 1); });
  });
}

}  // namespace

// --- Mailbox ---------------------------------------------------------------------

TEST_CASE("mailbox: put on an empty box and take from a full one do not block", "[sync][mailbox]") {
  Mailbox<int> box;
  CHECK(box.is_empty());
  Promise<void> put = box.put(1);
  CHECK(put.state() == State::fulfilled);
  CHECK_FALSE(box.is_empty());
  Promise<int> take = box.take();
  CHECK(take.value() == 1);
  CHECK(box.is_empty());
  Mailbox<std::string> full(std::string("x"));
  CHECK_FALSE(full.is_empty());
  CHECK(full.take_available() == std::optional<std::string>("x"));
  CHECK(full.take_available() == std::nullopt);
}

TEST_CASE("mailbox: take blocks while empty, put wakes the oldest taker", "[sync][mailbox]") {
  Mailbox<int> box;
  Promise<int> t1 = box.take();
  Promise<int> t2 = box.take();
  CHECK(t1.state() == State::pending);
  CHECK(box.waiting_takers() == 2);
  CHECK(box.put(10).state() == State::fulfilled);  // handed over, not stored
  CHECK(t1.value() == 10);
  CHECK(t2.state() == State::pending);
  CHECK(box.is_empty());
  CHECK(box.put(20).state() == State::fulfilled);
  CHECK(t2.value() == 20);
  CHECK(box.is_empty());
  CHECK(box.waiting_takers() == 0);
}

TEST_CASE("mailbox: put blocks while full, take admits the oldest putter", "[sync][mailbox]") {
  Mailbox<int> box(1);
  Promise<void> p2 = box.put(2);
  Promise<void> p3 = box.put(3);
  CHECK(p2.state() == State::pending);
  CHECK(box.waiting_putters() == 2);
  CHECK(box.take().value() == 1);
  CHECK(p2.state() == State::fulfilled);  // 2 is in the box now
  CHECK(p3.state() == State::pending);
  CHECK(box.take_available() == 2);
  CHECK(p3.state() == State::fulfilled);
  CHECK(box.take().value() == 3);
  CHECK(box.is_empty());
}

TEST_CASE("mailbox: a woken taker's callbacks run at once, inside put, as in Lwt", "[sync][mailbox]") {
  detail::refill_sync_wake_budget();
  Mailbox<int> box;
  std::vector<std::string> log;
  Promise<void> t = box.take().map([&](int v) { log.push_back("took " + std::to_string(v)); });
  Promise<void> put = box.put(5);
  log.push_back("put returned");
  CHECK(put.state() == State::fulfilled);
  CHECK(t.state() == State::fulfilled);
  CHECK(log == std::vector<std::string>{"took 5", "put returned"});
  CHECK(detail::sync_wake_budget() == detail::kSyncWakeBudget - 1);
}

TEST_CASE("sync: past the budget, a wake-up's callbacks run from the loop, which refills the budget",
          "[sync][mailbox][guard]") {
  detail::refill_sync_wake_budget();
  Mailbox<int> box;
  std::vector<int> got;
  auto record = [&got](int v) { got.push_back(v); };
  // A wake-up with no callbacks spends nothing: nothing can run on the stack.
  Promise<int> bare = box.take();
  CHECK(box.put(-1).state() == State::fulfilled);
  CHECK(detail::sync_wake_budget() == detail::kSyncWakeBudget);
  for (int i = 0; i < detail::kSyncWakeBudget; ++i) {
    Promise<void> t = box.take().map(record);
    CHECK(box.put(i).state() == State::fulfilled);
    CHECK(t.state() == State::fulfilled);
  }
  CHECK(detail::sync_wake_budget() == 0);
  CHECK(got.size() == static_cast<std::size_t>(detail::kSyncWakeBudget));
  Promise<int> take = box.take();
  Promise<void> late = take.map(record);
  CHECK(box.put(99).state() == State::fulfilled);
  CHECK(take.value() == 99);  // settled now: the value is the taker's
  CHECK(late.state() == State::pending);  // but its callback waits for the loop
  CHECK(got.back() != 99);
  CHECK(detail::ready_queue_size() == 1);
  run(late);
  CHECK(got.back() == 99);
  CHECK(detail::sync_wake_budget() == detail::kSyncWakeBudget);
}

TEST_CASE("mailbox: a bind loop of takers sees every value in order", "[sync][mailbox]") {
  Mailbox<int> box;
  std::vector<int> got;
  Promise<void> consumer = take_n(box, 5, got);
  std::function<Promise<void>(int)> produce = [&](int i) -> Promise<void> {
    if (i == 5) return resolved();
    return box.put(i).then([&, i] { return produce(i + 1); });
  };
  run(join({consumer, produce(0)}));
  CHECK(got == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("mailbox: a cancelled take is skipped and the value stays for the next taker", "[sync][mailbox][cancel]") {
  Mailbox<int> box;
  Promise<int> t1 = box.take();
  Promise<int> t2 = box.take();
  cancel(t1);
  CHECK(t1.canceled());
  CHECK(box.waiting_takers() == 1);
  CHECK(box.put(7).state() == State::fulfilled);
  CHECK(t2.value() == 7);
  Promise<int> t3 = box.take();
  cancel(t3);
  CHECK(box.put(8).state() == State::fulfilled);
  CHECK_FALSE(box.is_empty());  // nobody took 8: it waits in the box
  CHECK(box.take().value() == 8);
}

TEST_CASE("mailbox: a take timed out by pick loses no value", "[sync][mailbox][cancel]") {
  Mailbox<int> box;
  Promise<int> timed = pick(std::vector<Promise<int>>{box.take(), skein::sleep(1ms).map([] { return -1; })});
  CHECK(run(timed) == -1);
  CHECK(box.waiting_takers() == 0);
  CHECK(box.put(3).state() == State::fulfilled);
  CHECK(box.take_available() == 3);
}

TEST_CASE("mailbox: a cancelled put never puts its value", "[sync][mailbox][cancel]") {
  Mailbox<int> box(1);
  Promise<void> p2 = box.put(2);
  Promise<void> p3 = box.put(3);
  cancel(p2);
  CHECK(p2.canceled());
  CHECK(box.take().value() == 1);
  CHECK(box.take().value() == 3);
  CHECK(p3.state() == State::fulfilled);
  CHECK(box.is_empty());
}

TEST_CASE("mailbox: cancelling a bind whose callback returned a take unlinks the take", "[sync][mailbox][cancel][proxy]") {
  Mailbox<int> box;
  auto [go, r] = skein::wait();
  Promise<int> b = go.then([&box] { return box.take(); });  // the take is tail-merged into b
  r.resolve();
  CHECK(box.waiting_takers() == 1);
  cancel(b);
  CHECK(b.canceled());
  CHECK(box.waiting_takers() == 0);
  CHECK(box.put(4).state() == State::fulfilled);
  CHECK(box.take_available() == 4);
}

TEST_CASE("mailbox: a taker merged into a bind gets the value", "[sync][mailbox][proxy]") {
  Mailbox<int> box;
  auto [go, r] = skein::wait();
  Promise<int> b = go.then([&box] { return box.take(); });
  r.resolve();
  CHECK(box.put(9).state() == State::fulfilled);
  CHECK(b.value() == 9);
}

TEST_CASE("mailbox: waiters of a destroyed mailbox stay pending and cancelable", "[sync][mailbox]") {
  Promise<int> t;
  {
    Mailbox<int> box;
    t = box.take();
  }
  CHECK(t.state() == State::pending);
  cancel(t);
  CHECK(t.canceled());
}

TEST_CASE("mailbox: a million-round ping-pong of bind loops runs in constant stack", "[sync][mailbox][loop]") {
  // With the waiter's callbacks run on the waker's stack, one side would
  // recurse a few frames per round and overflow long before the end.
  const int rounds = 1'000'000;
  Mailbox<int> to_b;
  Mailbox<int> to_a;
  int final_value = -1;
  Promise<void> a = ping(to_b, to_a, rounds, 0).map([&](int v) { final_value = v; });
  run(join({a, pong(to_b, to_a, rounds)}));
  CHECK(final_value == rounds);
  CHECK(to_a.is_empty());
  CHECK(to_b.is_empty());
}

TEST_CASE("mailbox: code woken inside a put may use the mailbox again, or destroy it", "[sync][mailbox]") {
  detail::refill_sync_wake_budget();
  Mailbox<int> box;
  Promise<void> echo = box.take().then([&box](int v) { return box.put(v * 10); });  // runs inside put(1)
  CHECK(box.put(1).state() == State::fulfilled);
  CHECK(echo.state() == State::fulfilled);
  CHECK(box.take_available() == 10);

  auto owned = std::make_unique<Mailbox<int>>();
  Promise<void> destroyer = owned->take().map([&owned](int) { owned.reset(); });
  CHECK(owned->put(2).state() == State::fulfilled);  // the put's mailbox is gone when it returns
  CHECK(owned == nullptr);
  CHECK(destroyer.state() == State::fulfilled);
}

// --- Mutex -------------------------------------------------------------------------

TEST_CASE("mutex: lock is immediate when free, unlock hands over to the oldest waiter", "[sync][mutex]") {
  Mutex m;
  CHECK_FALSE(m.is_locked());
  CHECK(m.lock().state() == State::fulfilled);
  CHECK(m.is_locked());
  Promise<void> second = m.lock();
  Promise<void> third = m.lock();
  CHECK(second.state() == State::pending);
  CHECK(m.waiters() == 2);
  m.unlock();
  CHECK(second.state() == State::fulfilled);  // second holds it now
  CHECK(third.state() == State::pending);
  CHECK(m.is_locked());  // never free in between
  m.unlock();
  CHECK(third.state() == State::fulfilled);
  CHECK(m.is_locked());
  m.unlock();
  CHECK_FALSE(m.is_locked());
  m.unlock();  // unlocking a free mutex does nothing, as in Lwt
  CHECK_FALSE(m.is_locked());
}

TEST_CASE("mutex: with_lock runs critical sections one at a time, in arrival order", "[sync][mutex]") {
  Mutex m;
  std::vector<std::string> log;
  auto section = [&](std::string name) {
    return with_lock(m, [&log, name] {
      log.push_back(name + " in");
      return skein::pause().map([&log, name] { log.push_back(name + " out"); });
    });
  };
  Promise<void> all = join({section("a"), section("b"), section("c")});
  run(all);
  CHECK(log == std::vector<std::string>{"a in", "a out", "b in", "b out", "c in", "c out"});
  CHECK_FALSE(m.is_locked());
}

TEST_CASE("mutex: with_lock unlocks when f's promise fails and when f throws", "[sync][mutex]") {
  Mutex m;
  Promise<int> fails = with_lock(m, [] { return skein::pause().map([]() -> int { throw std::runtime_error("boom"); }); });
  CHECK_THROWS_WITH(run(fails), "boom");
  CHECK_FALSE(m.is_locked());
  Promise<int> throws = with_lock(m, []() -> Promise<int> { throw std::runtime_error("thrown"); });
  CHECK_THROWS_WITH(run(throws), "thrown");
  CHECK_FALSE(m.is_locked());
  CHECK(run(with_lock(m, [] { return resolved(3); })) == 3);
  CHECK_FALSE(m.is_locked());
}

TEST_CASE("mutex: a cancelled lock waiter never receives the mutex", "[sync][mutex][cancel]") {
  Mutex m;
  CHECK(m.lock().state() == State::fulfilled);
  Promise<void> second = m.lock();
  Promise<void> third = m.lock();
  cancel(second);
  CHECK(second.canceled());
  CHECK(m.waiters() == 1);
  m.unlock();
  CHECK(third.state() == State::fulfilled);
  CHECK(m.is_locked());
  Promise<void> fourth = m.lock();
  cancel(fourth);
  m.unlock();
  CHECK_FALSE(m.is_locked());  // the only waiter was cancelled: the mutex is free
}

TEST_CASE("mutex: a lock timed out by pick leaves the mutex free after unlock", "[sync][mutex][cancel]") {
  Mutex m;
  CHECK(m.lock().state() == State::fulfilled);
  Promise<void> timed = pick(std::vector<Promise<void>>{m.lock(), skein::sleep(1ms)});
  run(timed);
  CHECK(m.waiters() == 0);
  m.unlock();
  CHECK_FALSE(m.is_locked());
}

TEST_CASE("mutex: cancelling with_lock before it holds the lock withdraws the request", "[sync][mutex][cancel]") {
  Mutex m;
  CHECK(m.lock().state() == State::fulfilled);
  bool ran = false;
  Promise<void> w = with_lock(m, [&ran] {
    ran = true;
    return resolved();
  });
  cancel(w);
  CHECK(w.canceled());
  m.unlock();
  run(skein::pause());
  CHECK_FALSE(ran);
  CHECK_FALSE(m.is_locked());
}

// --- Semaphore ---------------------------------------------------------------------

TEST_CASE("semaphore: acquire takes permits, then waits, release hands over first come, first served", "[sync][semaphore]") {
  Semaphore s(2);
  CHECK(s.acquire().state() == State::fulfilled);
  CHECK(s.try_acquire());
  CHECK(s.count() == 0);
  CHECK_FALSE(s.try_acquire());
  Promise<void> a = s.acquire();
  Promise<void> b = s.acquire();
  CHECK(s.waiters() == 2);
  s.release();
  CHECK(a.state() == State::fulfilled);
  CHECK(b.state() == State::pending);
  CHECK(s.count() == 0);
  s.release();
  CHECK(b.state() == State::fulfilled);
  s.release();
  s.release();
  CHECK(s.count() == 2);
}

TEST_CASE("semaphore: a cancelled acquire never receives a permit", "[sync][semaphore][cancel]") {
  Semaphore s(0);
  Promise<void> a = s.acquire();
  Promise<void> b = s.acquire();
  cancel(a);
  s.release();
  CHECK(a.canceled());
  CHECK(b.state() == State::fulfilled);
  CHECK(s.count() == 0);
  Promise<void> c = s.acquire();
  cancel(c);
  s.release();
  CHECK(s.count() == 1);  // the permit went back, not to the cancelled waiter
}

TEST_CASE("semaphore: bounds how many threads run a section at once", "[sync][semaphore]") {
  Semaphore s(2);
  int inside = 0;
  int most = 0;
  std::vector<Promise<void>> workers;
  for (int i = 0; i < 6; ++i) {
    workers.push_back(s.acquire().then([&] {
      most = std::max(most, ++inside);
      return skein::pause().then([&] { return skein::pause(); }).map([&] {
        --inside;
        s.release();
      });
    }));
  }
  run(join(workers));
  CHECK(most == 2);
  CHECK(inside == 0);
  CHECK(s.count() == 2);
}

// --- Condition ---------------------------------------------------------------------

TEST_CASE("condition: signal wakes the oldest waiter, broadcast wakes all, a signal with no waiter is lost",
          "[sync][condition]") {
  Condition<> c;
  c.signal();  // nobody waits: lost
  Promise<void> a = c.wait();
  Promise<void> b = c.wait();
  Promise<void> d = c.wait();
  CHECK(a.state() == State::pending);
  c.signal();
  CHECK(a.state() == State::fulfilled);
  CHECK(b.state() == State::pending);
  c.broadcast();
  CHECK(b.state() == State::fulfilled);
  CHECK(d.state() == State::fulfilled);
  CHECK(c.waiters() == 0);
}

TEST_CASE("condition: broadcast wakes only the threads waiting when it began", "[sync][condition]") {
  detail::refill_sync_wake_budget();
  Condition<> c;
  Promise<void> rewait;
  Promise<void> a = c.wait().map([&] { rewait = c.wait(); });  // waits again from inside the broadcast
  Promise<void> b = c.wait();
  c.broadcast();
  CHECK(a.state() == State::fulfilled);
  CHECK(b.state() == State::fulfilled);
  REQUIRE(rewait.valid());
  CHECK(rewait.state() == State::pending);
  CHECK(c.waiters() == 1);
  c.signal();
  CHECK(rewait.state() == State::fulfilled);
}

TEST_CASE("condition: Condition<T> delivers the signalled value", "[sync][condition]") {
  Condition<std::string> c;
  Promise<std::string> a = c.wait();
  Promise<std::string> b = c.wait();
  Promise<std::string> d = c.wait();
  c.signal("first");
  CHECK(a.value() == "first");
  c.broadcast(std::string("all"));
  CHECK(b.value() == "all");
  CHECK(d.value() == "all");
}

TEST_CASE("condition: wait(&m) releases the mutex while waiting and holds it again after", "[sync][condition][mutex]") {
  Mutex m;
  Condition<> c;
  bool ready = false;
  std::vector<std::string> log;
  std::function<Promise<void>()> wait_ready = [&]() -> Promise<void> {
    if (ready) return resolved();
    return c.wait(&m).then([&] {
      log.push_back(m.is_locked() ? "woken holding m" : "woken without m");
      return wait_ready();
    });
  };
  Promise<void> consumer = with_lock(m, [&] { return wait_ready().map([&] { log.push_back("consumed"); }); });
  CHECK_FALSE(m.is_locked());  // released by wait
  Promise<void> producer = skein::pause().then([&] {
    return with_lock(m, [&] {
      log.push_back("producing");
      ready = true;
      c.signal();
      return resolved();
    });
  });
  run(join({consumer, producer}));
  CHECK(log == std::vector<std::string>{"producing", "woken holding m", "consumed"});
  CHECK_FALSE(m.is_locked());
}

TEST_CASE("condition: a cancelled wait is not woken, the signal goes to the next waiter", "[sync][condition][cancel]") {
  Condition<int> c;
  Promise<int> a = c.wait();
  Promise<int> b = c.wait();
  cancel(a);
  CHECK(a.canceled());
  c.signal(5);
  CHECK(b.value() == 5);
}

TEST_CASE("condition: a wait(&m) cancelled before its signal is rejected once it holds m again",
          "[sync][condition][mutex][cancel]") {
  Mutex m;
  Condition<> c;
  CHECK(m.lock().state() == State::fulfilled);
  Promise<void> w = c.wait(&m);
  CHECK_FALSE(m.is_locked());
  CHECK(m.lock().state() == State::fulfilled);  // someone else takes m
  cancel(w);
  CHECK(c.waiters() == 0);
  run(skein::pause());
  CHECK(w.state() == State::pending);  // waiting for m
  m.unlock();                          // hands m to the cancelled waiter
  CHECK_THROWS_AS(run(w), Canceled);
  CHECK(m.is_locked());  // held by the cancelled waiter, as in Lwt
  m.unlock();
  CHECK_FALSE(m.is_locked());
}

// --- Stream ------------------------------------------------------------------------

TEST_CASE("stream: push is immediate under capacity, then waits, next admits the oldest pusher", "[sync][stream]") {
  Stream<int> s(2);
  CHECK(s.push(1).state() == State::fulfilled);
  CHECK(s.push(2).state() == State::fulfilled);
  Promise<void> p3 = s.push(3);
  Promise<void> p4 = s.push(4);
  CHECK(p3.state() == State::pending);
  CHECK(s.waiting_pushers() == 2);
  CHECK(s.next().value() == std::optional<int>(1));
  CHECK(p3.state() == State::fulfilled);
  CHECK(p4.state() == State::pending);
  CHECK(s.next().value() == std::optional<int>(2));
  CHECK(p4.state() == State::fulfilled);
  CHECK(s.next_available() == 3);
  CHECK(s.next().value() == std::optional<int>(4));
  CHECK(s.size() == 0);
}

TEST_CASE("stream: next waits while empty, push hands its value to the oldest reader", "[sync][stream]") {
  Stream<int> s(1);
  Promise<std::optional<int>> a = s.next();
  Promise<std::optional<int>> b = s.next();
  CHECK(s.waiting_readers() == 2);
  CHECK(s.push(7).state() == State::fulfilled);
  CHECK(a.value() == std::optional<int>(7));
  CHECK(b.state() == State::pending);
  CHECK(s.size() == 0);
  CHECK(s.push(8).state() == State::fulfilled);
  CHECK(b.value() == std::optional<int>(8));
}

TEST_CASE("stream: close ends readers with nullopt after the buffer drains, and refuses pushes", "[sync][stream]") {
  Stream<int> s(1);
  Promise<std::optional<int>> waiting = s.next();
  s.close();
  CHECK(waiting.value() == std::nullopt);
  CHECK(s.is_closed());
  CHECK_THROWS_AS(s.push(1).value(), StreamClosed);

  Stream<int> t(1);
  CHECK(t.push(1).state() == State::fulfilled);
  Promise<void> blocked = t.push(2);
  t.close();
  CHECK_THROWS_AS(blocked.value(), StreamClosed);  // its value is dropped
  CHECK(t.next().value() == std::optional<int>(1));  // buffered values stay readable
  CHECK(t.next().value() == std::nullopt);
  CHECK(t.next().value() == std::nullopt);
  t.close();  // twice: nothing
}

TEST_CASE("stream: a reader woken by close may destroy the stream", "[sync][stream]") {
  detail::refill_sync_wake_budget();
  auto owned = std::make_unique<Stream<int>>(1);
  Promise<void> first = owned->next().map([&owned](const std::optional<int>& v) {
    CHECK_FALSE(v.has_value());
    owned.reset();
  });
  Promise<std::optional<int>> second = owned->next();
  owned->close();
  CHECK(owned == nullptr);
  CHECK(first.state() == State::fulfilled);
  CHECK(second.value() == std::nullopt);
}

TEST_CASE("stream: capacity 0 is a rendezvous", "[sync][stream]") {
  Stream<int> s(0);
  Promise<void> p = s.push(1);
  CHECK(p.state() == State::pending);
  CHECK(s.next().value() == std::optional<int>(1));
  CHECK(p.state() == State::fulfilled);
  Promise<std::optional<int>> r = s.next();
  CHECK(s.push(2).state() == State::fulfilled);
  CHECK(r.value() == std::optional<int>(2));
}

TEST_CASE("stream: a cancelled next loses no value, a cancelled push never pushes", "[sync][stream][cancel]") {
  Stream<int> s(1);
  Promise<std::optional<int>> a = s.next();
  cancel(a);
  CHECK(s.push(1).state() == State::fulfilled);
  CHECK(s.size() == 1);  // buffered, not given to the cancelled reader
  Promise<void> p2 = s.push(2);
  Promise<void> p3 = s.push(3);
  cancel(p2);
  CHECK(s.next().value() == std::optional<int>(1));
  CHECK(p3.state() == State::fulfilled);
  CHECK(s.next().value() == std::optional<int>(3));
  Promise<std::optional<int>> timed =
      pick(std::vector<Promise<std::optional<int>>>{s.next(), skein::sleep(1ms).map([] { return std::optional<int>(-1); })});
  CHECK(run(timed) == std::optional<int>(-1));
  CHECK(s.waiting_readers() == 0);
}

TEST_CASE("stream: a producer and a consumer loop through a small buffer until close", "[sync][stream]") {
  Stream<int> s(2);
  const int count = 100;
  std::vector<int> got;
  std::function<Promise<void>(int)> produce = [&](int i) -> Promise<void> {
    if (i == count) {
      s.close();
      return resolved();
    }
    return s.push(i).then([&, i] { return produce(i + 1); });
  };
  std::function<Promise<void>()> consume = [&]() -> Promise<void> {
    return s.next().then([&](const std::optional<int>& v) -> Promise<void> {
      if (!v) return resolved();
      got.push_back(*v);
      return consume();
    });
  };
  run(join({consume(), produce(0)}));
  REQUIRE(got.size() == static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) CHECK(got[static_cast<std::size_t>(i)] == i);
}
