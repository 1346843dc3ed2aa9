// signal_before_wait — a condition signalled before anyone waits on it.
//
// A loader finishes loading a configuration 1 ms into the run, stores it and
// signals a skein::Condition<void> `config_loaded`. A consumer service
// (a coroutine started with skein::async) first opens its log, which takes
// 3 ms (a sleep), and then waits on `config_loaded` to read the
// configuration. main runs the loader and the rest of the program's work,
// five 2 ms batches, and then stops; it does not wait for the consumer.
//
// THE FAULT: a condition has no memory. The loader signals at 1 ms, when
// nobody waits yet, so the signal is lost; the consumer starts waiting at
// 3 ms and nothing signals again, so it waits forever. One run has 1 lost
// signal and, as its consequence, 1 consumer left waiting at the end (its
// condition wait and the consumer coroutine stay pending; the trace ends
// cleanly with them). The order does not depend on load: the loader's 1 ms
// timer and the consumer's 3 ms timer are armed together at the start, and
// the loop fires timers in the order they are due, so the signal always
// comes first; main's five batches end after 10 ms or more, after the
// consumer has started waiting.
//
// --fixed: the classic fix. The loader sets a `loaded` flag with the
// signal, and the consumer checks it before waiting:
// `while (!loaded) co_await config_loaded.wait();`. It finds the flag set,
// never waits, reads the configuration and ends.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

struct Config {
  bool fixed = false;
  bool loaded = false;  // --fixed only: set together with the signal
  std::string text;
  skein::Condition<> config_loaded;
  std::string consumer_saw;
  bool consumer_done = false;
};

skein::Promise<void> loader(Config& c) {
  return skein::sleep(1ms).map([&c] {
    skein::label("loader");
    c.text = "workers = 4";
    if (c.fixed) c.loaded = true;
    c.config_loaded.signal();
  });
}

skein::Promise<void> consumer(Config& c) {
  skein::label("consumer");
  co_await skein::sleep(3ms);  // open the log first
  if (c.fixed) {
    while (!c.loaded) co_await c.config_loaded.wait();
  } else {
    co_await c.config_loaded.wait();
  }
  c.consumer_saw = c.text;
  c.consumer_done = true;
}

// The rest of the program: five batches of 2 ms each.
skein::Promise<void> batches(int left, int& done) {
  if (left == 0) return skein::resolved();
  return skein::sleep(2ms).then([left, &done] {
    skein::label("batch");
    ++done;
    return batches(left - 1, done);
  });
}

constexpr const char* kUsage =
    "Usage: signal_before_wait [--fixed] [--trace FILE]\n"
    "A loader signals a condition at 1 ms; the consumer only starts waiting on it\n"
    "at 3 ms, so the signal is lost and the consumer waits forever (main does not\n"
    "wait for it). --fixed adds a `loaded` flag the consumer checks first.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Config c;
  skein::samples::SampleCommandLine command_line("signal_before_wait", kUsage);
  command_line.add_flag("fixed", c.fixed);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  skein::async([&c] { return consumer(c); });
  int batches_done = 0;
  skein::run(skein::join({loader(c), batches(5, batches_done)}));

  std::printf("signal_before_wait%s: %d batches; consumer %s\n", c.fixed ? " --fixed" : "",
              batches_done,
              c.consumer_done ? ("read '" + c.consumer_saw + "'").c_str() : "still waiting");
  bool ok = batches_done == 5;
  if (c.fixed)
    ok = ok && c.consumer_done && c.consumer_saw == "workers = 4";
  else
    ok = ok && !c.consumer_done && c.config_loaded.waiters() == 1;
  return ok ? 0 : 1;
}
