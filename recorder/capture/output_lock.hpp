// output_lock.hpp — who may use stream mode's TraceWriter and its sinks: no
// one, the writer thread, or the crash handler, never two at once.
//
// The writer thread takes the lock around every use (a chunk converted, a
// flush, the finish at stop); the crash handler on another thread takes it
// before it writes what is buffered. A crash handler on the writer thread
// itself does not take it: the writer may hold it already, and the handler
// goes on from where the writer was (conversion_progress.hpp).
//
// Invariants:
//   1. Only the holder touches the stream's TraceWriter and its sinks.
//   2. The writer waits for the lock as long as it takes; once the crash
//      handler holds it, it is never given back (the process is dying).
//   3. The crash handler waits at most kCrashWaitForWriterMs for the writer
//      to finish its chunk, then goes on without the lock: a writer stuck
//      in a write must not keep a dying program's trace from being written.
//   4. One atomic word and nanosleep: async-signal-safe, no allocation.
#pragma once

#include <time.h>

#include <atomic>
#include <thread>

namespace skein::capture {

class OutputLock {
 public:
  // How long the crash handler waits for the writer thread.
  static constexpr int kCrashWaitForWriterMs = 500;

  // The writer thread, around each use.
  void lock_for_writer() noexcept {
    int expected = kFree;
    while (!holder_.compare_exchange_weak(expected, kWriter, std::memory_order_acquire)) {
      expected = kFree;
      std::this_thread::yield();
    }
  }
  void unlock() noexcept { holder_.store(kFree, std::memory_order_release); }

  // The crash handler, off the writer thread: true once it holds the lock,
  // false when the writer kept it past kCrashWaitForWriterMs (invariant 3).
  [[nodiscard]] bool lock_for_crash() noexcept {
    constexpr int kStepUs = 100;
    for (int waited_us = 0; waited_us < kCrashWaitForWriterMs * 1000; waited_us += kStepUs) {
      int expected = kFree;
      if (holder_.compare_exchange_strong(expected, kCrash)) return true;
      timespec pause{0, kStepUs * 1000};
      nanosleep(&pause, nullptr);
    }
    return false;
  }

 private:
  static constexpr int kFree = 0;
  static constexpr int kWriter = 1;
  static constexpr int kCrash = 2;
  std::atomic<int> holder_{kFree};
};

}  // namespace skein::capture
