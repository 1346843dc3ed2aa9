// crash_handlers.cpp — the handlers' state (what each signal's action was
// before, which ones were installed, the alternate stack) and the handlers
// themselves: flush, restore the default, re-raise.
#include "recorder/capture/crash_handlers.hpp"

#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <exception>

namespace skein::capture {
namespace {

CrashFlush g_flush = nullptr;
SnapshotRequest g_request_snapshot = nullptr;
std::terminate_handler g_previous_terminate = nullptr;
bool g_handlers_installed = false;
struct sigaction g_previous_actions[NSIG];
bool g_handler_installed[NSIG] = {};
alignas(16) char g_alt_stack[64 * 1024];

// Every signal whose default action ends the process (signal(7)): the
// faults first, then the others, then (for_each_flushed_signal) the real-time
// signals the C library leaves to programs, SIGRTMIN to SIGRTMAX, whose
// default is to end the process too. SIGUSR1 is ring mode's snapshot
// request.
constexpr int kFlushedSignals[] = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT, SIGTRAP,   SIGSYS,
                                   SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGPIPE, SIGUSR1,   SIGUSR2,
                                   SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGPWR};
template <class F>
void for_each_flushed_signal(F&& f) {
  for (int sig : kFlushedSignals) f(sig);
  for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig < NSIG; ++sig) f(sig);
}

void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  g_flush();
  // Re-raise with the default action: the signal is blocked while we run,
  // so it is delivered when this handler returns.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
  errno = saved_errno;
}

void on_usr1(int) { g_request_snapshot(); }

[[noreturn]] void on_terminate() {
  g_flush();
  if (g_previous_terminate != nullptr) g_previous_terminate();
  std::abort();
}

// The default action is in force (not ignored, no handler of the program's).
bool default_action(int sig, struct sigaction& current) {
  if (sigaction(sig, nullptr, &current) != 0) return false;
  return (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL;
}

}  // namespace

void install_crash_handlers(CrashFlush flush, SnapshotRequest request_snapshot) {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  g_flush = flush;
  g_request_snapshot = request_snapshot;
  stack_t alt{};
  alt.ss_sp = g_alt_stack;
  alt.ss_size = sizeof g_alt_stack;
  sigaltstack(&alt, nullptr);
  sigset_t flushing;
  sigemptyset(&flushing);
  for_each_flushed_signal([&](int sig) { sigaddset(&flushing, sig); });
  for_each_flushed_signal([&](int sig) {
    g_handler_installed[sig] = false;
    if (!default_action(sig, g_previous_actions[sig])) return;  // the program's, or ignored: left to it
    struct sigaction action {};
    if (sig == SIGUSR1 && request_snapshot != nullptr) {
      action.sa_handler = on_usr1;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_RESTART;
    } else {
      action.sa_handler = on_fatal_signal;
      action.sa_mask = flushing;
      action.sa_flags = SA_ONSTACK;
    }
    g_handler_installed[sig] = sigaction(sig, &action, nullptr) == 0;
  });
  g_previous_terminate = std::set_terminate(on_terminate);
}

void uninstall_crash_handlers() {
  if (!g_handlers_installed) return;
  g_handlers_installed = false;
  for_each_flushed_signal([](int sig) {
    if (!g_handler_installed[sig]) return;
    g_handler_installed[sig] = false;
    // A handler the program installed since is the program's to keep.
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0 || (current.sa_flags & SA_SIGINFO) != 0) return;
    if (current.sa_handler == on_fatal_signal || current.sa_handler == on_usr1)
      sigaction(sig, &g_previous_actions[sig], nullptr);
  });
  std::set_terminate(g_previous_terminate);
}

}  // namespace skein::capture
