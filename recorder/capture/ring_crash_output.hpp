// ring_crash_output.hpp — where ring mode's crash path writes the ring: a
// descriptor sink opened in the handler (fd_trace_writer.hpp), a record
// converter of its own, and the names it opens and renames
// (capture_output.hpp: PATH.tmp-PID, renamed over PATH once complete).
//
// Invariants:
//   1. Everything is made at start (prepare()), so write() allocates
//      nothing and makes only async-signal-safe calls.
//   2. The converter is not the writer thread's: a crash during a snapshot
//      does not share the state of the one being written.
//   3. write() leaves PATH as it was unless a whole trace replaces it, or
//      writes through what PATH names (a device, a FIFO with a reader, a
//      link, standard output).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/capture/capture_output.hpp"
#include "recorder/capture/captured_record_writer.hpp"
#include "recorder/capture/fd_trace_writer.hpp"
#include "recorder/capture/site_table.hpp"
#include "recorder/capture/string_arena.hpp"
#include "recorder/capture/tsc_clock.hpp"

namespace skein::capture {

class RingCrashOutput {
 public:
  // At start, in ring mode, for the trace `path`: `buffer_bytes` is the
  // writer's reserved buffer, the rest the converter's.
  void prepare(const std::string& path, std::size_t buffer_bytes, const StringArena& strings, const SiteTable& sites,
               std::size_t site_capacity);
  // The crash path: the ring, converted with `calibration`, as one trace
  // without (end).
  void write(CaptureBuffer& buffer, const std::string& header_line, const TickCalibration& calibration) noexcept;

 private:
  CrashRingPaths paths_;
  FdTraceWriter file_;
  std::unique_ptr<CapturedRecordWriter> converter_;
};

}  // namespace skein::capture
