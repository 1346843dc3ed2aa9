// ring_trace.hpp — ring mode's chunks written as one trace: the header, one
// (lost TIME COUNT) for the records overwritten before the oldest kept, the
// records oldest first, and (end) for the trace written at stop.
//
// Written by the writer thread (a snapshot, the trace at stop) while the
// program goes on, and by the crash path with the program stopped.
//
// Invariants:
//   1. Chunks are written in the order of their filling (their sequence
//      numbers), each once, without allocating.
//   2. While the program goes on, each chunk is copied to `scratch` before
//      it is written; a chunk overwritten during the copy (its sequence
//      changed) is skipped and its records counted as lost. The crash path
//      passes no scratch and reads the chunks in place.
//   3. The converter's sites are forgotten first: each trace names every
//      site it uses.
#pragma once

#include <cstdint>
#include <string_view>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/capture/captured_record_writer.hpp"
#include "recorder/format/trace_writer.hpp"

namespace skein::capture {

// How a ring trace ends: `final` adds (end) at `end_ticks` (0: the time it
// is written).
struct RingTraceEnd {
  bool final = false;
  std::uint64_t end_ticks = 0;
};

void write_ring_trace(CaptureBuffer& buffer, std::string_view header_line, CapturedRecordWriter& converter,
                      TraceWriter& out, Chunk* scratch, RingTraceEnd end);

}  // namespace skein::capture
