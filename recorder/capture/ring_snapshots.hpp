// ring_snapshots.hpp — ring mode's snapshots: the requests (SIGUSR1, or
// snapshot() from the program), the writer thread's answers, and the chunk
// each ring chunk is copied into before it is written.
//
// Every ring trace is written by the writer thread (capture_output.hpp: no
// write from the program's threads): snapshot() asks, wakes the writer and
// waits for its answer; SIGUSR1 only asks. The trace written at stop is
// answered the same way, so a snapshot() that meets a stop returns too.
//
// Invariants:
//   1. request() is one atomic store: async-signal-safe.
//   2. Each answer counts one more trace written and wakes every waiter; a
//      waiter returns once a trace was answered after its request, with
//      the status of the latest answer. A failed answer is also said on
//      stderr, once.
//   3. first_error() is the first failed answer; stop() reads it after the
//      writer thread is joined.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/capture/writer_thread.hpp"
#include "recorder/format/diagnostic.hpp"

namespace skein::capture {

class RingSnapshots {
 public:
  RingSnapshots() : scratch_(std::make_unique<Chunk>()) {}

  // A snapshot is wanted (SIGUSR1's handler).
  void request() noexcept { requested_.store(true); }
  [[nodiscard]] bool requested() const noexcept { return requested_.load(); }
  // The writer thread: true once per request (or per several that came
  // before it looked).
  [[nodiscard]] bool take_request() noexcept { return requested_.exchange(false); }
  // The program's thread: asks, wakes `writer` and waits for the answer.
  [[nodiscard]] Status request_and_wait(WriterThread& writer);
  // The writer thread: one ring trace written, or why not (invariant 2).
  void answer(Status written);
  [[nodiscard]] const Status& first_error() const noexcept { return first_error_; }
  // Where a chunk is copied before it is written (ring_trace.hpp).
  [[nodiscard]] Chunk* scratch() noexcept { return scratch_.get(); }

 private:
  std::unique_ptr<Chunk> scratch_;
  std::atomic<bool> requested_{false};
  std::mutex mutex_;  // guards answered_ and last_status_
  std::condition_variable answered_cv_;
  std::uint64_t answered_ = 0;
  Status last_status_;
  Status first_error_;  // the writer thread's own
};

}  // namespace skein::capture
