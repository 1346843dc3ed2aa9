// writer_stats.hpp — what the writer thread did: records written, records
// lost, records given back unwritten, bytes, and its CPU time. Printed to
// stderr at stop with SKEIN_TRACE_STATS=1; records_unwritten is also in
// capture_stats().
//
// Invariants (who touches what, and when):
//   1. records_written, records_lost, bytes_written and writer_cpu_ns are
//      plain: the writer thread adds to them while it runs (or the crash
//      handler, with the writer locked out, and stop() never runs after a
//      crash), and stop() reads them, and adds the drops the producer
//      counted after the last chunk (add_final_drops), only once the writer
//      thread is joined. Never two threads at once, so no lock and no atomic.
//   2. records_unwritten is atomic: capture_stats() reads it from the
//      program's thread while the writer adds to it.
#pragma once

#include <atomic>
#include <cstdint>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/format/record.hpp"

namespace skein::capture {

struct WriterStats {
  std::uint64_t records_written = 0;
  // The counts of the (lost ...) records the producer put in the chunks,
  // written or given back unwritten, plus the final drops.
  std::uint64_t records_lost = 0;
  std::atomic<std::uint64_t> records_unwritten{0};  // given back unwritten after EPIPE
  std::uint64_t bytes_written = 0;
  std::int64_t writer_cpu_ns = 0;

  // A record the writer takes from a chunk: a (lost ...) one adds its count.
  void count_if_lost(const CapturedRecord& record) noexcept {
    if (record.head == static_cast<std::uint8_t>(RecordHead::lost))
      records_lost += static_cast<std::uint64_t>(record.a);
  }
  // stop(), after the join (invariant 1): the drops no chunk carries.
  void add_final_drops(std::uint64_t dropped) noexcept { records_lost += dropped; }
  // The writer thread, as it ends: its CPU time.
  void take_writer_cpu_time() noexcept;
  // The SKEIN_TRACE_STATS line on stderr; `refused`: the sink's refused
  // calls from foreign threads.
  void print(std::uint64_t refused) const;
};

// SKEIN_TRACE_STATS=1 is set.
[[nodiscard]] bool stats_requested();

}  // namespace skein::capture
