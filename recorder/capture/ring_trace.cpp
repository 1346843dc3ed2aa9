// ring_trace.cpp — the ring's chunks oldest first: each pass picks the
// chunk with the lowest sequence above the last one written (a scan of the
// chunk array, so nothing is allocated, on the crash path either).
#include "recorder/capture/ring_trace.hpp"

#include <atomic>
#include <cstring>

#include "recorder/capture/tsc_clock.hpp"

namespace skein::capture {
namespace {

// Calls f(chunk, sequence) for every filled chunk, oldest first.
template <class F>
void for_each_ring_chunk(CaptureBuffer& buffer, F&& f) {
  std::uint64_t last = 0;
  for (;;) {
    std::uint64_t best = ~std::uint64_t{0};
    std::int64_t best_index = -1;
    for (std::uint32_t i = 0; i < buffer.chunk_count(); ++i) {
      const std::uint64_t seq = buffer.chunk(i).sequence.load(std::memory_order_acquire);
      if (seq > last && seq < best) {
        best = seq;
        best_index = i;
      }
    }
    if (best_index < 0) return;
    last = best;
    f(buffer.chunk(static_cast<std::uint32_t>(best_index)), best);
  }
}

}  // namespace

void write_ring_trace(CaptureBuffer& buffer, std::string_view header_line, CapturedRecordWriter& converter,
                      TraceWriter& out, Chunk* scratch, RingTraceEnd end) {
  converter.reset_sites();
  out.write_line(header_line);
  std::uint64_t lost = buffer.overwritten();
  bool first = true;
  for_each_ring_chunk(buffer, [&](Chunk& chunk, std::uint64_t seq) {
    const std::uint32_t n = buffer.published(chunk);
    const CapturedRecord* records = chunk.records;
    if (scratch != nullptr) {
      std::memcpy(scratch->records, chunk.records, n * sizeof(CapturedRecord));
      std::atomic_thread_fence(std::memory_order_acquire);
      if (chunk.sequence.load(std::memory_order_relaxed) != seq) {
        lost += n;
        return;
      }
      records = scratch->records;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (first && lost > 0) out.write(LostRecord{converter.time_of(records[i]), static_cast<std::int64_t>(lost)});
      first = false;
      converter.write(out, records[i]);
    }
  });
  if (end.final) out.write(EndRecord{converter.calibration().to_ns(end.end_ticks != 0 ? end.end_ticks : read_ticks())});
}

}  // namespace skein::capture
