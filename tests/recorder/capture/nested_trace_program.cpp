// nested_trace_program.cpp — a traced program whose children are traced too,
// on the same SKEIN_TRACE: `nested_trace_program STEPS COMMAND` prints "pid
// PID", runs STEPS labelled steps ("parent step 1" ...), then runs COMMAND
// with system() (the child inherits SKEIN_TRACE, as any child does), prints
// "child status N", runs STEPS more steps and exits 0. With COMMAND "fork"
// it forks instead: the child runs STEPS steps of its own ("forked step 1"
// ...) and exits 0 through exit() (so its atexit handlers run), and the
// parent waits for it. Each step is a resolved task and a map on it, run by
// the loop. Tracing comes from SKEIN_TRACE.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/runtime.hpp"

namespace {

void run_steps(const std::string& name, int from, int to) {
  for (int i = from; i <= to; ++i) {
    auto [p, r] = skein::task<int>();
    p.label(name + " step " + std::to_string(i));
    auto q = p.map([](int v) { return v + 1; });
    r.resolve(i);
    if (skein::run(q) != i + 1) std::abort();
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: nested_trace_program STEPS COMMAND|fork\n");
    return 2;
  }
  const int steps = std::atoi(argv[1]);
  const std::string command = argv[2];
  std::printf("pid %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  run_steps("parent", 1, steps);
  int status = 0;
  if (command == "fork") {
    const pid_t child = fork();
    if (child == 0) {
      run_steps("forked", 1, steps);
      std::exit(0);
    }
    if (child < 0 || waitpid(child, &status, 0) != child) return 3;
  } else {
    status = std::system(command.c_str());
  }
  std::printf("child status %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  std::fflush(stdout);
  run_steps("parent", steps + 1, 2 * steps);
  return 0;
}
