// notify_test.cpp — skein::notify (runtime/notify.hpp): the exact record it
// adds, from which thread, to which id, with which reason (external or
// request; the runtime's own reasons are refused), and that it changes
// nothing else.
// Golden lines against the memory sink (ids renumbered by first appearance;
// -1 the scheduler, 0 the main thread).
#include <catch2/catch.hpp>

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"

using namespace skein;
using Lines = std::vector<std::string>;

TEST_CASE("notify: main code notifies a pending thread, reason external, and nothing else happens",
          "[trace][notify]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  skein::notify(p);
  CHECK(p.state() == State::pending);  // an annotation: it wakes and settles nothing
  r.resolve(1);
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "notify 0 1 external", "resolve 1 0 ok"});
}

TEST_CASE("notify: the sender is the thread whose callback runs", "[trace][notify]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [flag_waiter, never] = skein::wait<void>();  // the thread that polls a flag
  auto [go, start] = skein::wait<void>();
  Promise<void> setter = go.map([&flag_waiter] { skein::notify(flag_waiter); });
  start.resolve();
  CHECK(setter.state() == State::fulfilled);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 map",
                            "wait 3 2",
                            "resolve 2 0 ok",
                            "read 3 2",
                            "notify 3 1 external",
                            "resolve 3 3 ok"});
  never.resolve();
}

TEST_CASE("notify: from the loop the sender is the scheduler", "[trace][notify]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [target, r] = skein::wait<void>();
  ThreadId actor_in_callback = -100;
  Promise<void> b = skein::pause().map([&] {
    actor_in_callback = skein::current_thread();
    skein::notify(target);
    r.resolve();
  });
  run(b);
  // The pause's callback is the map's thread (3), not the loop.
  CHECK(actor_in_callback == b.id());
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 pause",
                            "spawn 3 0 map",
                            "wait 3 2",
                            "wait 0 3",
                            "switch -1",
                            "notify -1 2 yield",
                            "resolve 2 -1 ok",
                            "read 3 2",
                            "notify 3 1 external",
                            "resolve 1 3 ok",
                            "resolve 3 3 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 3"});
}

TEST_CASE("notify: a merged thread is notified under its newest identity", "[trace][notify][proxy]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = p.then([q = q](int) { return q; });
  r.resolve(1);  // b's callback returns the pending q: b now behaves as q
  skein::notify(b);
  rq.resolve(5);
  CHECK(b.value() == 5);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 bind",
                            "wait 3 1",
                            "resolve 1 0 ok",
                            "read 3 1",
                            "merge 3 2",
                            "notify 0 2 external",  // q's id, the one whose resolve comes next
                            "resolve 2 0 ok"});
}

// The use the annotation is for (samples/blockread --missing-notify
// --annotate): a loop polls a flag with pause(), growing by tail-merges; the
// thread that sets the flag notifies the loop's promise. The id recorded
// must be the one whose callback acts on the flag, or the notify explains
// nothing.
TEST_CASE("notify: a polling loop is notified under the id of the turn that sees the flag",
          "[trace][notify][proxy]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  bool flag = false;
  ThreadId notified = -100;
  ThreadId acted = -100;
  int turns = 0;
  std::function<Promise<void>()> poll = [&]() -> Promise<void> {
    return skein::pause().then([&]() -> Promise<void> {
      ++turns;
      if (flag) {
        acted = skein::current_thread();
        return resolved();
      }
      return poll();
    });
  };
  Promise<void> poller = poll();
  Promise<void> setter = skein::pause().then([&] {
    return skein::pause().map([&] {
      flag = true;
      notified = poller.id();
      skein::notify(poller);
    });
  });
  run(join({poller, setter}));
  CHECK(turns >= 3);  // the flag was set after the loop had merged at least twice
  CHECK(notified == acted);
  std::size_t external = 0;
  for (const auto& line : sink.lines)
    if (line.ends_with(" external")) ++external;
  CHECK(external == 1);
}

TEST_CASE("notify: constants are not threads and record nothing", "[trace][notify]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  skein::notify(resolved(3));
  skein::notify(failed<int>(std::make_exception_ptr(std::runtime_error("x"))));
  CHECK(sink.lines.empty());
}

TEST_CASE("notify: by id, the id is recorded as given, and ids below -1 are dropped", "[trace][notify]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<void>();
  const ThreadId raw = p.id();
  skein::notify(raw);
  skein::notify(trace::kScheduler);
  skein::notify(trace::kNoThread);
  r.resolve();
  CHECK(sink.lines == Lines{"spawn 1 0 wait", "notify 0 1 external", "notify 0 -1 external", "resolve 1 0 ok"});
}

// samples/blockread: the frontend's callback puts a request on the ring and
// tells the backend, which waits for requests.
TEST_CASE("notify: reason request, from the thread that puts the request to the thread that serves it",
          "[trace][notify]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [server, serve] = skein::wait<void>();
  auto [go, start] = skein::wait<void>();
  Promise<void> client = go.map([&server] { skein::notify(server, trace::Reason::request); });
  start.resolve();
  skein::notify(server.id(), trace::Reason::request);  // by id, from main code
  CHECK(server.state() == State::pending);             // told, not woken
  serve.resolve();
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 wait",
                            "spawn 3 0 map",
                            "wait 3 2",
                            "resolve 2 0 ok",
                            "read 3 2",
                            "notify 3 1 request",
                            "resolve 3 3 ok",
                            "notify 0 1 request",
                            "resolve 1 0 ok"});
}

TEST_CASE("notify: a reason the runtime records itself is refused, with a sink or without", "[trace][notify]") {
  const std::vector<trace::Reason> runtime_reasons = {
      trace::Reason::timer,   trace::Reason::io,     trace::Reason::yield,  trace::Reason::condition,
      trace::Reason::mailbox, trace::Reason::mutex,  trace::Reason::stream, trace::Reason::semaphore};
  auto [p, r] = skein::wait<void>();
  for (const trace::Reason reason : runtime_reasons) {
    INFO(trace::reason_name(reason));
    CHECK_THROWS_AS(skein::notify(p, reason), std::invalid_argument);
    CHECK_THROWS_AS(skein::notify(p.id(), reason), std::invalid_argument);
  }
  {
    test::MemorySink sink;
    test::ScopedSink on(sink);
    for (const trace::Reason reason : runtime_reasons) {
      CHECK_THROWS_AS(skein::notify(p, reason), std::invalid_argument);
      CHECK_THROWS_AS(skein::notify(p.id(), reason), std::invalid_argument);
    }
    CHECK(sink.lines.empty());
  }
  r.resolve();
}

// A reason's code is the byte of the capture's records: existing codes
// never move, a new reason comes last.
TEST_CASE("notify: the reasons' codes and names, request the last", "[trace][notify]") {
  const std::vector<std::string_view> names = {"timer",  "io",        "yield",    "condition", "mailbox",
                                               "mutex",  "stream",    "semaphore", "external", "request"};
  for (std::size_t code = 0; code < names.size(); ++code)
    CHECK(trace::reason_name(static_cast<trace::Reason>(code)) == names[code]);
  CHECK(static_cast<std::size_t>(trace::Reason::request) == names.size() - 1);
  CHECK(trace::reason_name(static_cast<trace::Reason>(names.size())) == "unknown");
}

TEST_CASE("notify: an empty promise is a logic error", "[notify]") {
  Promise<void> empty;
  CHECK_THROWS_AS(skein::notify(empty), std::logic_error);
}

TEST_CASE("notify: with no sink set it records nothing and does not fail", "[notify]") {
  REQUIRE(trace::sink() == nullptr);
  auto [p, r] = skein::wait<void>();
  skein::notify(p);
  skein::notify(p.id());
  CHECK(p.state() == State::pending);
  r.resolve();
  CHECK(p.state() == State::fulfilled);
}
