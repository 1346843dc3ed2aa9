// crash_handlers.hpp — the signal and std::terminate handlers the capture
// installs at start and takes out at stop, so that a dying program's trace
// is written.
//
// The handlers cover every signal whose default action ends the process
// (signal(7): the faults, SIGTERM, SIGINT, SIGHUP, SIGPIPE, ... and the
// real-time signals), but only where that default is still in force at
// start: a signal the program ignores or handles itself is left to it. Each
// handler runs the capture's flush on an alternate stack, then restores the
// default action and re-raises, so the exit status is the signal's. While
// one handler flushes, the other fatal signals wait on its thread (SIGPIPE
// among them, which its writes may raise). In ring mode SIGUSR1 asks for a
// snapshot instead. std::terminate flushes, then calls the handler it
// replaced.
//
// Invariants:
//   1. A handler is installed only over a default action, and taken out at
//      stop only if it is still the one installed here: a handler the
//      program installed since is the program's to keep.
//   2. The flush and the snapshot request given at install are
//      async-signal-safe; the handlers add only sigaction, raise and errno.
//   3. One set of handlers at a time (one capture at a time).
#pragma once

namespace skein::capture {

using CrashFlush = void (*)() noexcept;
using SnapshotRequest = void (*)() noexcept;

// `request_snapshot`: SIGUSR1's action in ring mode; null in stream mode,
// where SIGUSR1 flushes like the other fatal signals.
void install_crash_handlers(CrashFlush flush, SnapshotRequest request_snapshot);
void uninstall_crash_handlers();

}  // namespace skein::capture
