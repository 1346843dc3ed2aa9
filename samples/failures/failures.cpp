// failures — what failing threads look like: failures caught, a failure
// propagated through a chain of threads, and two planted problems that
// `skein lint` exists to find.
//
//   caught       a read of a bad sector fails; catch_ recovers with a
//                fallback value (the failure is read by the catch thread);
//   propagated   a parse fails three steps down a chain of binds; each step
//                reads its input's failure and fails in turn, a join of it
//                and a healthy sibling fails, and a catch_ at the top
//                recovers; every failure on the way is read by the next
//                thread;
//   cancelled    a slow lookup loses a pick against a deadline and is
//                cancelled: an outcome of its own, not a failure;
//   unread       PLANTED: a background flush fails and nobody ever looks at
//                its promise (lint rule unread-failure);
//   pending      PLANTED: a reply that never comes: a task whose resolver
//                is kept but never used, so the thread is still pending when
//                the trace ends (lint rule pending-at-end).
//
// Everything else finishes. The program prints what it recovered and exits
// 0; the planted problems are in the trace, not in the output.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using std::chrono::milliseconds;

struct DiskError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string describe(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown error";
  }
}

skein::Promise<std::string> caught(std::vector<std::string>& log) {
  skein::Promise<std::string> read_sector = skein::sleep(milliseconds(1)).then([]() -> skein::Promise<std::string> {
    skein::label("read sector 7");
    throw DiskError("sector 7 unreadable");
  });
  return skein::catch_(read_sector, [&log](std::exception_ptr error) {
    skein::label("fallback");
    log.push_back("caught: " + describe(error));
    return skein::resolved(std::string("zeroes"));
  });
}

skein::Promise<std::string> propagated(std::vector<std::string>& log) {
  skein::Promise<std::string> fetch = skein::sleep(milliseconds(2)).map([] {
    skein::label("fetch config");
    return std::string("port = eighty");
  });
  skein::Promise<std::int64_t> parse = fetch.map([](const std::string& text) -> std::int64_t {
    skein::label("parse config");
    throw ParseError("'" + text + "': not a number");
  });
  skein::Promise<void> apply = parse.map([](std::int64_t) { skein::label("apply config"); });
  skein::Promise<void> sibling = skein::sleep(milliseconds(3)).map([] { skein::label("warm cache"); });
  skein::Promise<void> startup = skein::join({apply, sibling});
  return skein::catch_(startup.map([] { return std::string("configured"); }), [&log](std::exception_ptr error) {
    skein::label("use defaults");
    log.push_back("propagated: " + describe(error));
    return skein::resolved(std::string("defaults"));
  });
}

skein::Promise<std::string> cancelled(std::vector<std::string>& log) {
  skein::Promise<std::string> lookup = skein::sleep(milliseconds(50)).map([] { return std::string("found"); });
  skein::Promise<std::string> deadline = skein::sleep(milliseconds(4)).map([&log] {
    log.push_back("cancelled: the lookup missed its deadline");
    return std::string("not found");
  });
  return skein::pick<std::string>({lookup, deadline});
}

constexpr const char* kUsage =
    "Usage: failures [--trace FILE]\n"
    "Failures caught, propagated and cancelled, plus two planted problems for\n"
    "skein lint: a failure nobody reads, and a thread left pending at the end.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  skein::samples::SampleCommandLine command_line("failures", kUsage);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  std::vector<std::string> log;

  // PLANTED: unread-failure. The flush fails at 2 ms; the handle is kept
  // (so the thread is not simply dropped) but its outcome is never read.
  skein::Promise<void> forgotten_flush = skein::sleep(milliseconds(2)).map([] {
    skein::label("background flush");
    throw DiskError("flush failed: disk full");
  });

  // PLANTED: pending-at-end. Nobody will ever resolve this reply.
  auto [reply, never_used] = skein::task<std::string>();
  reply.label("reply that never comes");

  // The stories that end well, and a wait long enough for the flush to fail.
  skein::Promise<std::string> linger = skein::sleep(milliseconds(6)).map([] { return std::string(); });
  const std::vector<skein::Promise<std::string>> stories{caught(log), propagated(log), cancelled(log), linger};
  const std::vector<std::string> outcomes = skein::run(skein::all(stories));

  for (const std::string& line : log) std::printf("%s\n", line.c_str());
  std::printf("results: %s, %s, %s\n", outcomes[0].c_str(), outcomes[1].c_str(), outcomes[2].c_str());
  const bool right = outcomes[0] == "zeroes" && outcomes[1] == "defaults" && outcomes[2] == "not found" &&
                     forgotten_flush.state() == skein::State::rejected && reply.state() == skein::State::pending;
  return right ? 0 : 1;
}
