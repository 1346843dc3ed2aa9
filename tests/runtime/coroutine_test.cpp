// coroutine_test.cpp — Promise<T> as a coroutine's return type
// (runtime/coroutine.hpp): eager start, co_await on settled, pending and
// failed promises, co_return and escaping exceptions, long chains under the
// depth limit, frames freed when the result is dropped, cancellation,
// coroutines and fibers awaiting each other, the spawn site, a stream of
// named messages (the README's GCC 12 workaround), golden traces.
#include <catch2/catch.hpp>

#include <optional>
#include <source_location>
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

Promise<int> add_one(Promise<int> in) { co_return co_await in + 1; }

Promise<int> constant(int x) { co_return x; }

Promise<void> record(std::vector<std::string>& events, Promise<int> in) {
  events.push_back("start");
  const int x = co_await in;
  events.push_back("got " + std::to_string(x));
}

Promise<int> throws_after(Promise<int> in) {
  (void)co_await in;
  throw Boom("after the await");
}

[[maybe_unused]] Promise<int> with_site(Promise<int> in, std::source_location site = std::source_location::current()) {
  (void)site;
  co_return co_await in;
}

struct Counter {
  int base = 100;
  Promise<int> plus(Promise<int> in) { co_return base + co_await in; }
};

}  // namespace

TEST_CASE("a coroutine starts eagerly and settles at co_return", "[coroutine]") {
  CHECK(constant(4).value() == 4);
  std::vector<std::string> events;
  auto [p, r] = skein::wait<int>();
  Promise<void> c = record(events, p);
  CHECK(events == Lines{"start"});  // ran up to its first pending co_await
  CHECK(c.state() == State::pending);
  r.resolve(9);
  // Resumed inside the resolver, like a bind callback: no loop needed.
  CHECK(events == Lines{"start", "got 9"});
  CHECK(c.state() == State::fulfilled);
}

TEST_CASE("co_await on settled promises does not suspend", "[coroutine]") {
  auto sum = []() -> Promise<int> {
    co_return co_await resolved(1) + co_await constant(2) + co_await add_one(resolved(3));
  };
  Promise<int> s = sum();
  CHECK(s.state() == State::fulfilled);
  CHECK(s.value() == 7);
}

TEST_CASE("a rejection is thrown at co_await, and an escaping exception rejects the coroutine", "[coroutine]") {
  auto [p, r] = skein::wait<int>();
  auto catching = [](Promise<int> in) -> Promise<std::string> {
    try {
      co_return std::to_string(co_await in);
    } catch (const Boom& e) {
      co_return std::string("caught ") + e.what();
    }
  };
  Promise<std::string> c = catching(p);
  Promise<int> passed_on = add_one(p);
  r.fail(Boom("bad"));
  CHECK(c.value() == "caught bad");
  CHECK_THROWS_WITH(passed_on.value(), "bad");
  CHECK_FALSE(passed_on.canceled());

  auto [q, rq] = skein::wait<int>();
  Promise<int> t = throws_after(q);
  rq.resolve(1);
  CHECK_THROWS_WITH(t.value(), "after the await");

  auto at_once = []() -> Promise<void> {
    throw Boom("at once");
    co_return;
  };
  Promise<void> a;
  REQUIRE_NOTHROW(a = at_once());
  CHECK_THROWS_WITH(a.value(), "at once");
  CHECK(add_one(Promise<int>{}).state() == State::rejected);  // an empty promise is a logic error
}

TEST_CASE("a long chain of coroutines runs in bounded stack", "[coroutine][depth]") {
  // Each link suspends on the previous one; resolving the head resumes them
  // inside the resolver up to the depth limit, then from the ready queue.
  auto [p, r] = skein::wait<int>();
  Promise<int> q = p;
  constexpr int kLength = 200000;
  for (int i = 0; i < kLength; ++i) q = add_one(q);
  CHECK(detail::live_coroutine_frames() >= kLength);
  r.resolve(0);
  CHECK(q.state() == State::pending);  // deferred past the depth limit
  CHECK(run(q) == kLength);
  CHECK(detail::live_coroutine_frames() == 0);
}

TEST_CASE("coroutine frames are freed, even when the result is dropped while suspended", "[coroutine][memory]") {
  const std::size_t live_before = detail::node_pool::live();
  REQUIRE(detail::live_coroutine_frames() == 0);
  std::vector<std::string> events;
  {
    auto [p, r] = skein::wait<int>();
    { Promise<void> dropped = record(events, p); }
    CHECK(detail::live_coroutine_frames() == 1);
    r.resolve(5);
  }
  CHECK(events == Lines{"start", "got 5"});
  CHECK(detail::live_coroutine_frames() == 0);
  { (void)constant(1); }
  CHECK(detail::live_coroutine_frames() == 0);
  CHECK(detail::node_pool::live() == live_before);
}

TEST_CASE("the actor is the coroutine while its body runs", "[coroutine][actor]") {
  auto [p, r] = skein::wait();
  std::vector<ThreadId> seen;
  auto body = [&seen](Promise<void> in) -> Promise<void> {
    seen.push_back(current_thread());
    co_await in;
    seen.push_back(current_thread());
  };
  Promise<void> c = body(p);
  CHECK(current_thread() == trace::kMainThread);
  r.resolve();
  CHECK(current_thread() == trace::kMainThread);
  CHECK(seen == std::vector<ThreadId>{c.id(), c.id()});
}

TEST_CASE("a coroutine resumes with what the awaited promise became after a tail-merge", "[coroutine][proxy]") {
  auto [p, r] = skein::wait<int>();
  auto [q, rq] = skein::wait<int>();
  Promise<int> b = p.then([q = q](int) { return q; });
  Promise<int> c = add_one(b);
  r.resolve(0);  // b now behaves as q
  CHECK(c.state() == State::pending);
  rq.resolve(41);
  CHECK(c.value() == 42);
}

TEST_CASE("member coroutines and coroutines awaiting coroutines", "[coroutine]") {
  Counter counter;
  auto [p, r] = skein::wait<int>();
  Promise<int> c = counter.plus(add_one(p));
  r.resolve(1);
  CHECK(c.value() == 102);
}

TEST_CASE("a coroutine awaits a fiber", "[coroutine][fiber]") {
  auto [p, r] = skein::wait<int>();
  Promise<int> f = spawn_fiber([p = p] { return await(p) * 3; });
  Promise<int> c = add_one(f);
  r.resolve(3);
  CHECK(c.state() == State::pending);  // the fiber waits for the loop
  CHECK(run(c) == 10);
}

TEST_CASE("cancelling a suspended coroutine cancels what it awaits", "[coroutine][cancel]") {
  SECTION("uncaught: outcome cancel") {
    auto [t, r] = skein::task<int>();
    Promise<int> c = add_one(t);
    cancel(c);
    CHECK(t.canceled());
    CHECK(c.canceled());
    CHECK_THROWS_AS(c.value(), Canceled);
  }
  SECTION("caught: the coroutine goes on") {
    auto [t, r] = skein::task<int>();
    auto guarded = [](Promise<int> in) -> Promise<int> {
      try {
        co_return co_await in;
      } catch (const Canceled&) {
      }
      co_return -1;
    };
    Promise<int> c = guarded(t);
    cancel(c);
    CHECK(c.value() == -1);
  }
  SECTION("a wait() promise ignores it") {
    auto [w, r] = skein::wait<int>();
    Promise<int> c = add_one(w);
    cancel(c);
    CHECK(c.state() == State::pending);
    r.resolve(1);
    CHECK(c.value() == 2);
  }
}

// The tests below look at the records, which need the hooks compiled in.
#if SKEIN_TRACE_HOOKS

TEST_CASE("the spawn site: the caller's, through a source_location parameter", "[coroutine][site]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  const std::uint_least32_t line = std::source_location::current().line() + 1;
  Promise<int> c = with_site(resolved(1));
  Promise<int> d = add_one(resolved(1));
  REQUIRE(sink.sites.size() == 2);
  CHECK(sink.sites[0].line() == line);
  CHECK(std::string(sink.sites[0].file_name()) == std::source_location::current().file_name());
  // Without one, the site is in the coroutine's definition, not at the call
  // (GCC: its closing brace, named after the coroutine).
  CHECK(sink.sites[1].line() != line + 1);
  CHECK_THAT(sink.sites[1].function_name(), Catch::Contains("add_one"));
  CHECK(c.value() == 1);
  CHECK(d.value() == 2);
}

namespace {

// A message that owns heap memory (the text is longer than std::string's
// small-string buffer), so a second destruction is a double free.
struct Msg {
  std::string text;
  int n;
};

// The form the README recommends for GCC 12: the message is named before
// the co_await. `co_await stream.push(Msg{...})` instead makes g++ 12.2
// destroy the temporary's std::string twice (GCC bug 101976, README), a
// double free at -O0 and -O2; so that form is not compiled here.
Promise<void> push_named(Stream<Msg>& stream, int count) {
  for (int i = 0; i < count; ++i) {
    Msg m{"message number " + std::to_string(i) + ", long enough for the heap", i};
    co_await stream.push(std::move(m));
  }
  stream.close();
}

Promise<std::vector<Msg>> drain(Stream<Msg>& stream) {
  std::vector<Msg> got;
  while (std::optional<Msg> m = co_await stream.next()) got.push_back(std::move(*m));
  co_return got;
}

}  // namespace

TEST_CASE("a coroutine pushes named messages through a stream, waiting and not", "[coroutine][stream]") {
  // Reader first: every push finds a waiting reader or room. Pusher first,
  // at capacity 0 or 1: pushes wait for the reader, so the coroutine
  // suspends in co_await with its message in flight.
  const std::size_t frames = detail::live_coroutine_frames();
  for (const bool reader_first : {true, false}) {
    for (const std::size_t capacity : {0u, 1u, 4u}) {
      INFO("capacity " << capacity << (reader_first ? ", reader first" : ", pusher first"));
      Stream<Msg> stream(capacity);
      Promise<std::vector<Msg>> got;
      Promise<void> pushed;
      if (reader_first) {
        got = drain(stream);
        pushed = push_named(stream, 6);
      } else {
        pushed = push_named(stream, 6);
        CHECK(pushed.state() == State::pending);  // capacity < 6: the last pushes wait
        got = drain(stream);
      }
      const std::vector<Msg> messages = run(got);
      run(pushed);
      REQUIRE(messages.size() == 6);
      for (int i = 0; i < 6; ++i) {
        CHECK(messages[static_cast<std::size_t>(i)].n == i);
        CHECK(messages[static_cast<std::size_t>(i)].text ==
              "message number " + std::to_string(i) + ", long enough for the heap");
      }
    }
  }
  CHECK(detail::live_coroutine_frames() == frames);
}

TEST_CASE("golden: a coroutine awaits a promise resolved later by main code", "[coroutine][trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  Promise<int> c = add_one(p);
  r.resolve(41);
  CHECK(run(c) == 42);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 coroutine",  // the call
                            "wait 2 1",             // co_await: suspended, back to main
                            "resolve 1 0 ok",       // resumes inside this resolve
                            "read 2 1",
                            "resolve 2 2 ok",  // co_return
                            "switch -1",
                            "switch 0",
                            "read 0 2"});
}

TEST_CASE("golden: coroutines awaiting settled promises and failing", "[coroutine][trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  r.resolve(1);
  Promise<int> c = add_one(add_one(p));
  Promise<int> t = throws_after(c);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "resolve 1 0 ok",
                            "spawn 2 0 coroutine",
                            "read 2 1",
                            "resolve 2 2 ok",
                            "spawn 3 0 coroutine",
                            "read 3 2",
                            "resolve 3 3 ok",
                            "spawn 4 0 coroutine",
                            "read 4 3",
                            "resolve 4 4 fail"});
  CHECK(sink.messages == Lines{"after the await"});
}

TEST_CASE("golden: past the depth limit a coroutine is resumed from the ready queue", "[coroutine][trace][depth]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  Promise<int> q = p;
  const int length = detail::kMaxCallbackDepth + 2;  // ids: p 1, coroutines 2..67
  for (int i = 0; i < length; ++i) q = add_one(q);
  r.resolve(0);
  const std::size_t mark = sink.lines.size();
  CHECK(sink.lines[mark - 1] == "resolve 65 65 ok");  // the 64th, settled at depth 64
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

TEST_CASE("golden: a coroutine awaits a fiber, which the loop resumes", "[coroutine][fiber][trace]") {
  test::MemorySink sink;
  test::ScopedSink on(sink);
  auto [p, r] = skein::wait<int>();
  Promise<int> c = add_one(spawn_fiber([p = p] { return await(p); }));
  r.resolve(1);
  CHECK(run(c) == 2);
  CHECK(sink.lines == Lines{"spawn 1 0 wait",
                            "spawn 2 0 fiber",
                            "switch 2",
                            "wait 2 1",
                            "switch 0",
                            "spawn 3 0 coroutine",
                            "wait 3 2",
                            "resolve 1 0 ok",
                            "wait 0 3",
                            "switch -1",
                            "switch 2",
                            "read 2 1",
                            "resolve 2 2 ok",  // the coroutine resumes inside the fiber's resolve
                            "read 3 2",
                            "resolve 3 3 ok",
                            "switch -1",
                            "switch 0",
                            "read 0 3"});
}

#endif  // SKEIN_TRACE_HOOKS
