// foreign_thread_program.cpp — a traced program with a second OS thread that
// calls into the runtime against its rules: `foreign_thread_program STEPS`
// starts a std::thread named "labeller" that calls skein::label in a loop,
// waits until that thread has made its first call (so that it records before
// the main thread does), then runs the loop on the main thread: STEPS steps,
// each a pause and a bind on it that labels its thread "main step I". Then
// it stops the labeller and prints "labeller tid TID", "labels N" (the
// calls it made) and "steps done", and exits 0. Tracing comes from
// SKEIN_TRACE.
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "runtime/runtime.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: foreign_thread_program STEPS\n");
    return 2;
  }
  const int steps = std::atoi(argv[1]);
  std::atomic<bool> stop{false};
  std::atomic<long> labels{0};
  std::atomic<long> tid{0};
  std::thread labeller([&] {
    pthread_setname_np(pthread_self(), "labeller");
    tid.store(static_cast<long>(syscall(SYS_gettid)));
    while (!stop.load()) {
      skein::label("foreign label");
      labels.fetch_add(1);
    }
  });
  while (labels.load() == 0) std::this_thread::yield();

  skein::Promise<int> loop = skein::resolved(0);
  for (int i = 1; i <= steps; ++i)
    loop = loop.then([i](int) {
      return skein::pause().then([i] {
        skein::label("main step " + std::to_string(i));
        return skein::resolved(i);
      });
    });
  if (skein::run(loop) != steps) std::abort();

  stop.store(true);
  labeller.join();
  std::printf("labeller tid %ld\nlabels %ld\nsteps done\n", tid.load(), labels.load());
  return 0;
}
