// conversion_progress.hpp — where stream mode's writer thread is in the chunk
// it converts: the chunk's index and how many of its records are written.
//
// A fatal signal on the writer thread itself (a fault while it formats)
// runs the crash path on that thread, with the writer's chunk half
// converted and out of the buffer's queues: the crash path goes on from the
// last record converted, so the records already written are not repeated
// and the rest are not lost.
//
// Invariants:
//   1. Written by the writer thread only, read by the crash path on that
//      same thread: relaxed stores suffice (a signal handler sees its own
//      thread's stores in program order).
//   2. half_done() is true from begin() to end(), with the count stored
//      last by converted(); begin() sets the count to where the conversion
//      starts before it names the chunk, so a crash before the next record
//      is written goes on from there, never from the previous chunk's count.
#pragma once

#include <atomic>
#include <cstdint>

namespace skein::capture {

class ConversionProgress {
 public:
  void begin(std::uint32_t index, std::uint32_t from) noexcept {
    converted_.store(from, std::memory_order_relaxed);
    chunk_.store(index, std::memory_order_relaxed);
  }
  void converted(std::uint32_t records) noexcept { converted_.store(records, std::memory_order_relaxed); }
  void end() noexcept { chunk_.store(-1, std::memory_order_relaxed); }

  // The crash path: the chunk being converted, and the records of it
  // already written; false when the writer is between chunks.
  [[nodiscard]] bool half_done(std::uint32_t& index, std::uint32_t& written) const noexcept {
    const std::int64_t chunk = chunk_.load();
    if (chunk < 0) return false;
    index = static_cast<std::uint32_t>(chunk);
    written = converted_.load();
    return true;
  }

 private:
  std::atomic<std::int64_t> chunk_{-1};
  std::atomic<std::uint32_t> converted_{0};
};

}  // namespace skein::capture
