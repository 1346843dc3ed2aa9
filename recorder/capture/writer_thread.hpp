// writer_thread.hpp — the capture's background thread: started with every
// asynchronous signal blocked, told to stop, joined; and how it sleeps and
// is woken.
//
// Waking the writer. The writer is not woken for every chunk: it polls,
// every kPollMin while it finds chunks to convert, backing off to kPollMax
// while it finds none, and the scheduler thread wakes it only once the
// filled chunks reach a high-water mark (kWakeAtFilled, 512 KiB of records)
// or the producer could take no chunk, so a burst faster than the polls
// neither waits long for a sleeping writer nor loses records to it. A wake
// is a futex call that, on a virtual machine, sends an inter-processor
// interrupt and tends to bring the writer onto the waker's own CPU (the
// kernel's wake-affine rule), where it competes with the program: side by
// side on a two-CPU virtual machine, traced `blockread` ran 12-21% longer
// than untraced with a wake per chunk, and 0-3% longer with none. The price
// is that a reader of the file lags the program by up to kPollMin (while it
// is busy), and an idle program's writer wakes twenty times a second.
//
// Invariants:
//   1. The thread runs with writer_thread_signal_mask() (capture_output.hpp):
//      it takes none of the program's signals, and its writes cannot raise
//      SIGPIPE in the process. The starting thread's mask is left as it was.
//   2. No wake is lost: the writer looks for work and goes to sleep under
//      the mutex, with `waiting` set first; a waker that sees `waiting`
//      (after a full fence that orders it with the work it published)
//      notifies under the same mutex.
//   3. A writer that sees stopping() also sees every plain write the
//      stopping thread made before request_stop() (a sequentially
//      consistent store and load of the flag order them).
#pragma once

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>

#include "recorder/capture/capture_buffer.hpp"

namespace skein::capture {

// The writer's polling periods and high-water mark (see "Waking the
// writer").
inline constexpr std::chrono::milliseconds kPollMin{2};
inline constexpr std::chrono::milliseconds kPollMax{50};
inline constexpr std::size_t kWakeAtFilled = CaptureBuffer::kMinBacklogChunks / 2;

class WriterThread {
 public:
  // Runs `body` on the new thread (invariant 1).
  void start(std::function<void()> body);
  // Tells the thread to finish (invariant 3) and wakes it.
  void request_stop();
  void join() { thread_.join(); }

  // The calling thread is the writer (the crash path asks). Async-signal-safe.
  [[nodiscard]] bool is_current() const noexcept { return pthread_equal(id_.load(), pthread_self()) != 0; }
  [[nodiscard]] bool stopping() const noexcept { return stopping_.load(); }
  // The flag itself, for the writer's calls that stop early on it.
  [[nodiscard]] const std::atomic<bool>& stop_flag() const noexcept { return stopping_; }

  // The writer: sleeps up to `period`, unless `has_work()` or a stop.
  template <class HasWork>
  void wait_for_work(std::chrono::milliseconds period, HasWork&& has_work) {
    std::unique_lock<std::mutex> lock(mutex_);
    waiting_.store(true);
    if (!has_work() && !stopping_.load()) wake_.wait_for(lock, period);
    waiting_.store(false);
  }
  // The writer: sleeps up to `period`, unless a stop comes.
  void wait_for_stop(std::chrono::milliseconds period);

  // The producer, after publishing work: wakes the writer if it sleeps
  // (invariant 2).
  void wake_if_waiting() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    if (waiting_.load()) wake();
  }
  // Wakes the writer whether it sleeps or not.
  void wake() {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_one();
  }

 private:
  std::thread thread_;
  std::atomic<pthread_t> id_{};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> waiting_{false};
  std::atomic<bool> stopping_{false};
};

}  // namespace skein::capture
