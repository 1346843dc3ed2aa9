// sync_golden_test.cpp — the exact records the synchronisation primitives
// produce, against the memory sink (ids renumbered by first appearance; -1
// is the scheduler, 0 the main thread). What each shows: a blocking call is
// a thread of the primitive's kind, spawned by its caller; a wake-up is
// notify(waker -> waiter, reason) then the waiter's resolve by the waker,
// and the waiter's callbacks run inside that resolve, or, past the stack
// guard's budget (wait_queue.hpp), from the loop (a switch to them). Either
// way the passage of control is explained by the notify and the resolve.
// Each test starts with a full budget.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"

using namespace skein;
using Lines = std::vector<std::string>;

TEST_CASE("golden: mailbox take waits, main puts, the taker's map runs inside the put", "[trace][sync][mailbox]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mailbox<int> box;
  Promise<int> b = box.take().map([](int x) { return x + 1; });
  CHECK(box.put(41).state() == State::fulfilled);
  CHECK(run(b) == 42);
  CHECK(sink.lines == Lines{"spawn 1 0 mailbox",
                            "spawn 2 0 map",
                            "wait 2 1",
                            "notify 0 1 mailbox",
                            "resolve 1 0 ok",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: past the budget, the taker's map runs from the loop", "[trace][sync][mailbox][guard]") {
  detail::g_sync_wake_budget = 0;
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mailbox<int> box;
  Promise<int> b = box.take().map([](int x) { return x + 1; });
  CHECK(box.put(41).state() == State::fulfilled);
  CHECK(run(b) == 42);
  CHECK(detail::sync_wake_budget() == detail::kSyncWakeBudget);  // refilled by the loop
  CHECK(sink.lines == Lines{"spawn 1 0 mailbox",
                            "spawn 2 0 map",
                            "wait 2 1",
                            "notify 0 1 mailbox",
                            "resolve 1 0 ok",
                            "wait 0 2",
                            "switch -1",
                            "switch 2",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: a blocked put is admitted by a thread's take: the taker notifies the putter",
          "[trace][sync][mailbox]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mailbox<int> box(1);
  Promise<void> p = box.put(2).then([] { return resolved(); });
  Promise<void> t = skein::pause().then([&box] { return box.take().map([](int) {}); });
  run(join({p, t}));
  CHECK(sink.lines == Lines{"spawn 1 0 mailbox",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "spawn 3 0 pause",
                            "spawn 4 0 bind",
                            "wait 4 3",
                            "spawn 5 0 join",
                            "wait 5 2",
                            "wait 5 4",
                            "wait 0 5",
                            "switch -1",
                            "notify -1 3 yield",
                            "resolve 3 -1 ok",
                            "read 4 3",
                            "notify 4 1 mailbox",  // thread 4 took the value and let the putter in
                            "resolve 1 4 ok",
                            "read 2 1",  // the putter's continuation, inside thread 4's take
                            "resolve 2 2 ok",
                            "read 5 2",
                            "resolve 4 4 ok",
                            "read 5 4",
                            "resolve 5 5 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 5"});
}

TEST_CASE("golden: a take merged into a bind is notified under the merged id", "[trace][sync][mailbox][proxy]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mailbox<int> box;
  auto [go, r] = skein::wait();
  Promise<int> b = go.then([&box] { return box.take(); });
  r.resolve();
  CHECK(box.put(5).state() == State::fulfilled);
  CHECK(b.value() == 5);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 bind",
                            "wait 2 1",
                            "resolve 1 0 ok",
                            "read 2 1",
                            "spawn 3 2 mailbox",  // spawned by the bind's thread, at its call site
                            "merge 2 3",
                            "notify 0 3 mailbox",
                            "resolve 3 0 ok"});
}

TEST_CASE("golden: unlock hands the mutex over with a notify from the unlocking thread", "[trace][sync][mutex]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mutex m;
  Promise<void> first = m.lock();  // free: a constant, no thread
  Promise<void> second = m.lock().map([] {});
  Promise<void> releaser = skein::pause().map([&m] { m.unlock(); });
  run(join({second, releaser}));
  CHECK(sink.lines == Lines{"spawn 1 0 mutex",
                            "spawn 2 0 map",
                            "wait 2 1",
                            "spawn 3 0 pause",
                            "spawn 4 0 map",
                            "wait 4 3",
                            "spawn 5 0 join",
                            "wait 5 2",
                            "wait 5 4",
                            "wait 0 5",
                            "switch -1",
                            "notify -1 3 yield",
                            "resolve 3 -1 ok",
                            "read 4 3",
                            "notify 4 1 mutex",
                            "resolve 1 4 ok",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "read 5 2",
                            "resolve 4 4 ok",
                            "read 5 4",
                            "resolve 5 5 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 5"});
}

TEST_CASE("golden: signal notifies the waiter from the signalling thread", "[trace][sync][condition]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Condition<int> c;
  Promise<int> w = c.wait();
  Promise<void> s = skein::pause().map([&c] { c.signal(3); });
  run(join({w.map([](int) {}), s}));
  CHECK(sink.lines == Lines{"spawn 1 0 condition",
                            "spawn 2 0 pause",
                            "spawn 3 0 map",
                            "wait 3 2",
                            "spawn 4 0 map",
                            "wait 4 1",
                            "spawn 5 0 join",
                            "wait 5 4",
                            "wait 5 3",
                            "wait 0 5",
                            "switch -1",
                            "notify -1 2 yield",
                            "resolve 2 -1 ok",
                            "read 3 2",
                            "notify 3 1 condition",
                            "resolve 1 3 ok",
                            "read 4 1",
                            "resolve 4 4 ok",
                            "read 5 4",
                            "resolve 3 3 ok",
                            "read 5 3",
                            "resolve 5 5 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 5"});
}

TEST_CASE("golden: broadcast notifies every waiter, oldest first, close notifies a waiting reader",
          "[trace][sync][condition][stream]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Condition<> c;
  Promise<void> a = c.wait();
  Promise<void> b = c.wait();
  c.broadcast();
  Stream<int> s(1);
  Promise<std::optional<int>> n = s.next();
  s.close();
  CHECK(n.value() == std::nullopt);
  CHECK(sink.lines == Lines{"spawn 1 0 condition",
                            "spawn 2 0 condition",
                            "notify 0 1 condition",
                            "resolve 1 0 ok",
                            "notify 0 2 condition",
                            "resolve 2 0 ok",
                            "spawn 3 0 stream",
                            "notify 0 3 stream",
                            "resolve 3 0 ok"});
}

TEST_CASE("golden: a push hands its value to a waiting reader with a notify", "[trace][sync][stream]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Stream<int> st(1);
  Promise<std::optional<int>> r = st.next();
  Promise<void> pusher = skein::pause().then([&st] { return st.push(1); });
  run(join({r.map([](const std::optional<int>&) {}), pusher}));
  CHECK(sink.lines == Lines{"spawn 1 0 stream",
                            "spawn 2 0 pause",
                            "spawn 3 0 bind",
                            "wait 3 2",
                            "spawn 4 0 map",
                            "wait 4 1",
                            "spawn 5 0 join",
                            "wait 5 4",
                            "wait 5 3",
                            "wait 0 5",
                            "switch -1",
                            "notify -1 2 yield",
                            "resolve 2 -1 ok",
                            "read 3 2",
                            "notify 3 1 stream",
                            "resolve 1 3 ok",
                            "read 4 1",
                            "resolve 4 4 ok",
                            "read 5 4",
                            "resolve 3 3 ok",
                            "read 5 3",
                            "resolve 5 5 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 5"});
}

TEST_CASE("golden: a cancelled acquire is resolved cancel and skipped, release notifies the next",
          "[trace][sync][semaphore][cancel]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Semaphore s(0);
  Promise<void> a = s.acquire();
  Promise<void> b = s.acquire();
  cancel(a);
  s.release();
  CHECK(b.state() == State::fulfilled);
  CHECK(sink.lines == Lines{"spawn 1 0 semaphore",
                            "spawn 2 0 semaphore",
                            "resolve 1 0 cancel",
                            "notify 0 2 semaphore",
                            "resolve 2 0 ok"});
}

TEST_CASE("golden: a blocking call's spawn names the caller's site", "[trace][sync]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mailbox<int> box;
  const unsigned line = __LINE__ + 1;
  Promise<int> t = box.take();
  REQUIRE(sink.sites.size() == 1);
  CHECK(sink.sites[0].line() == line);
  CHECK(std::string(sink.sites[0].file_name()).find("sync_golden_test.cpp") != std::string::npos);
  cancel(t);
}

// --- lost wake-ups: no-waiter, queued and drop (wait_queue.hpp) -------------

TEST_CASE("golden: a signal or broadcast with nobody waiting is a no-waiter, one number per condition, and a later "
          "wait is queued",
          "[trace][sync][condition][lost-wakeup]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Condition<> c;
  Condition<int> d;
  Promise<void> before = c.wait();  // c has no number yet: no queued
  c.signal();   // wakes it
  c.signal();   // nobody waits: lost
  c.broadcast();
  d.signal(7);  // a second condition: a second number
  Promise<void> after = c.wait();
  c.broadcast();
  CHECK(after.state() == State::fulfilled);
  CHECK(sink.lines == Lines{"spawn 1 0 condition",
                            "notify 0 1 condition",
                            "resolve 1 0 ok",
                            "no-waiter 0 #1 condition",
                            "no-waiter 0 #1 condition",
                            "no-waiter 0 #2 condition",
                            "spawn 2 0 condition",
                            "queued 2 #1",
                            "notify 0 2 condition",
                            "resolve 2 0 ok"});
  // The raw numbers: positive, the same for c every time, another for d.
  REQUIRE(sink.objects.size() == 4);
  CHECK(sink.objects[0] >= 1);
  CHECK(sink.objects[1] == sink.objects[0]);
  CHECK(sink.objects[3] == sink.objects[0]);
  CHECK(sink.objects[2] >= 1);
  CHECK(sink.objects[2] != sink.objects[0]);
}

TEST_CASE("golden: a signal with nobody waiting, inside a callback, is that callback's thread's no-waiter",
          "[trace][sync][condition][lost-wakeup]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Condition<> c;
  Promise<void> s = skein::pause().map([&c] { c.signal(); });
  run(s);
  CHECK(sink.lines == Lines{"spawn 1 0 pause",
                            "spawn 2 0 map",
                            "wait 2 1",
                            "wait 0 2",
                            "switch -1",
                            "notify -1 1 yield",
                            "resolve 1 -1 ok",
                            "read 2 1",
                            "no-waiter 2 #1 condition",
                            "resolve 2 2 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: a release, a put and a push with nobody waiting are no-waiters, and calls that block "
          "after them are queued",
          "[trace][sync][semaphore][mailbox][stream][lost-wakeup]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Semaphore s(0);
  Mailbox<int> box;
  Stream<int> st(1);
  s.release();  // the permit is kept in the count
  CHECK(s.count() == 1);
  CHECK(box.put(1).state() == State::fulfilled);  // stored in the box
  CHECK(st.push(1).state() == State::fulfilled);  // buffered
  CHECK(s.acquire().state() == State::fulfilled);  // takes the kept permit: a constant
  Promise<void> acquire = s.acquire();
  Promise<void> put = box.put(2);
  Promise<void> push = st.push(2);
  CHECK(sink.lines == Lines{"no-waiter 0 #1 semaphore",
                            "no-waiter 0 #2 mailbox",
                            "no-waiter 0 #3 stream",
                            "spawn 1 0 semaphore",
                            "queued 1 #1",
                            "spawn 2 0 mailbox",
                            "queued 2 #2",
                            "spawn 3 0 stream",
                            "queued 3 #3"});
  s.release();
  CHECK(box.take().value() == 1);
  CHECK(st.next().value() == std::optional<int>(1));
  CHECK(acquire.state() == State::fulfilled);
  CHECK(put.state() == State::fulfilled);
  CHECK(push.state() == State::fulfilled);
}

TEST_CASE("golden: a blocking call on a primitive that never missed a waiter records no queued",
          "[trace][sync][lost-wakeup]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mailbox<int> box;
  Promise<int> take = box.take();
  CHECK(box.put(3).state() == State::fulfilled);  // handed to the taker: no no-waiter
  CHECK(take.value() == 3);
  CHECK(sink.lines == Lines{"spawn 1 0 mailbox", "notify 0 1 mailbox", "resolve 1 0 ok"});
}

TEST_CASE("golden: a mutex's unlock with nobody waiting records nothing, and its waits no queued",
          "[trace][sync][mutex][lost-wakeup]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  Mutex m;
  CHECK(m.lock().state() == State::fulfilled);
  m.unlock();
  m.unlock();  // already free: as Lwt, nothing
  CHECK(m.lock().state() == State::fulfilled);
  Promise<void> waits = m.lock();
  m.unlock();
  m.unlock();
  CHECK(waits.state() == State::fulfilled);
  CHECK(sink.lines == Lines{"spawn 1 0 mutex", "notify 0 1 mutex", "resolve 1 0 ok"});
}

TEST_CASE("golden: a primitive destroyed with waiters records a drop of each, by the actor",
          "[trace][sync][lost-wakeup][drop]") {
  detail::refill_sync_wake_budget();
  test::MemorySink sink;
  test::ScopedSink on(sink);
  std::vector<Promise<void>> waits;
  Promise<int> take;
  Promise<std::optional<int>> next;
  {
    Condition<> c;
    waits.push_back(c.wait());
    waits.push_back(c.wait());
    Promise<void> cancelled = c.wait();
    cancel(cancelled);  // unlinked: not dropped
    Mutex m;
    CHECK(m.lock().state() == State::fulfilled);
    waits.push_back(m.lock());
    Semaphore s(0);
    waits.push_back(s.acquire());
    Stream<int> st(0);
    next = st.next();
  }
  CHECK(sink.lines == Lines{"spawn 1 0 condition",
                            "spawn 2 0 condition",
                            "spawn 3 0 condition",
                            "resolve 3 0 cancel",
                            "spawn 4 0 mutex",
                            "spawn 5 0 semaphore",
                            "spawn 6 0 stream",
                            "drop 6 0",  // members die in reverse order: the stream first
                            "drop 5 0",
                            "drop 4 0",
                            "drop 1 0",
                            "drop 2 0"});
  // Inside a callback, the drop is that callback's thread's.
  const std::size_t mark = sink.lines.size();
  std::optional<Mailbox<int>> box;
  box.emplace();
  take = box->take();
  auto [go, rgo] = skein::wait();
  Promise<void> m = go.map([&box] { box.reset(); });
  rgo.resolve();
  CHECK(take.state() == State::pending);
  CHECK(sink.from(mark) == Lines{"spawn 7 0 mailbox",
                                 "spawn 8 0 wait",
                                 "spawn 9 0 map",
                                 "wait 9 8",
                                 "resolve 8 0 ok",
                                 "read 9 8",
                                 "drop 7 9",
                                 "resolve 9 9 ok"});
}
