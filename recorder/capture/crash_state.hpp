// crash_state.hpp — whether the capture is crashing: the first fatal signal
// (or std::terminate) claims the crash path and flushes; a fatal signal on
// another thread meanwhile waits for that flush to end before it re-raises.
//
// Invariants:
//   1. Exactly one caller of claim() gets true, and only it flushes.
//   2. Once crashed(), stop() does nothing: the crash path owns the output.
//   3. wait_for_flush() is bounded (kWaitSteps of 100 µs, 10 s), so a flush
//      that never ends cannot keep another thread's fatal signal from
//      killing the process.
//   4. Atomics and nanosleep only: async-signal-safe.
#pragma once

#include <time.h>

#include <atomic>

namespace skein::capture {

class CrashState {
 public:
  // True for the first caller (invariant 1).
  [[nodiscard]] bool claim() noexcept { return !crashed_.exchange(true); }
  [[nodiscard]] bool crashed() const noexcept { return crashed_.load(); }
  // The claimer: its flush is over.
  void mark_flushed() noexcept { flushed_.store(true); }
  // Any later caller: waits for the claimer's flush (invariant 3).
  void wait_for_flush() const noexcept {
    for (int i = 0; i < kWaitSteps && !flushed_.load(); ++i) {
      timespec pause{0, 100'000};
      nanosleep(&pause, nullptr);
    }
  }

 private:
  static constexpr int kWaitSteps = 100'000;  // of 100 µs: 10 s
  std::atomic<bool> crashed_{false};
  std::atomic<bool> flushed_{false};
};

}  // namespace skein::capture
