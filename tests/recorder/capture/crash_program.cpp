// crash_program.cpp — a traced program that dies on purpose, for the
// capture's death tests: `crash_program MODE STEPS` runs STEPS labelled
// steps on the runtime ("step 1" ... "step STEPS", each a resolved task),
// prints "steps done" and then, by MODE: segv (a write through a null
// page with no access), abort, throw (an exception nobody catches), exit (a normal
// return, for comparison), foreign (another OS thread calls into the
// runtime, then a normal exit), wait (waits for a signal to end it), spin
// (goes on with more steps, "step STEPS+1" on, until a signal ends it or
// 10,000,000 more steps have run, then a normal exit), or
// long (a label, a counter name and a failure message of 70,000 bytes each,
// "a" then 23,333 three-byte characters U+20AC, longer than a trace string
// may be, then a normal exit).
// Mode phased is for a trace on the program's own standard output, or a
// reader that goes away: its reports go to standard error, "phase 1 done"
// after the first STEPS steps; it then reads a line from standard input,
// runs STEPS more steps, reports "steps done" and exits with status 5 (its
// own, distinct from any the capture could cause). Mode phased-own-output
// first writes one line of its own, "own output", on standard output, then
// goes on as phased. Tracing comes from SKEIN_TRACE.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "recorder/capture/trace_capture.hpp"
#include "runtime/runtime.hpp"

namespace {

void run_steps(int from, int to) {
  for (int i = from; i <= to; ++i) {
    auto [p, r] = skein::task<int>();
    p.label("step " + std::to_string(i));
    auto q = p.map([](int v) { return v + 1; });
    r.resolve(i);
    if (q.value() != i + 1) std::abort();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_program segv|abort|throw|exit|foreign|wait|spin|long|phased|phased-own-output STEPS\n");
    return 2;
  }
  const std::string mode = argv[1];
  const int steps = std::atoi(argv[2]);
  if (mode == "phased-own-output") {
    std::printf("own output\n");
    std::fflush(stdout);
  }
  run_steps(1, steps);
  if (mode == "phased" || mode == "phased-own-output") {
    std::fprintf(stderr, "phase 1 done\n");
    char line[16];
    if (std::fgets(line, sizeof line, stdin) == nullptr) return 3;
    run_steps(steps + 1, 2 * steps);
    std::fprintf(stderr, "steps done\n");
    return 5;
  }
  std::printf("steps done\n");
  std::fflush(stdout);
  if (mode == "segv") {
    // A write to a page with no access: a real fault, which neither UBSan
    // (not a null pointer) nor ASan (not its memory) intercepts first.
    void* page = mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *static_cast<volatile char*>(page) = 1;
  } else if (mode == "abort") {
    std::abort();
  } else if (mode == "throw") {
    throw std::runtime_error("nobody catches this");
  } else if (mode == "foreign") {
    std::thread other([] { skein::label("from a foreign thread"); });
    other.join();
    skein::label("back on the main thread");
  } else if (mode == "long") {
    std::string text = "a";
    for (int i = 0; i < 23'333; ++i) text += "\u20ac";
    skein::label(text);
    skein::counter(text, 1);
    auto [p, r] = skein::task<int>();
    r.fail(std::runtime_error(text));
    (void)p;
  } else if (mode == "spin") {
    run_steps(steps + 1, steps + 10'000'000);
  } else if (mode == "wait") {
    for (;;) pause();
  }
  return 0;
}
