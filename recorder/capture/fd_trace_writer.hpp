// fd_trace_writer.hpp — a TraceWriter over the capture's descriptor sink
// (CaptureFdSink), gzip-compressed or not, with its two sinks in reach:
// stream mode's file, and ring mode's crash path file.
//
// The crash path may not go through TraceWriter::finish, which frees the
// sinks; it attaches the descriptor, switches the descriptor sink to crash
// mode and closes the outermost sink itself, through the pointers kept here.
//
// Invariants:
//   1. `fd_sink` and `top` point into `out`'s sinks and live as long as it;
//      `top` is the gzip sink over `fd_sink`, or `fd_sink` itself.
//   2. `out`'s buffer is reserved at make(), so writing a record that fits
//      it never allocates (the crash path).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "recorder/capture/capture_output.hpp"
#include "recorder/format/byte_sink.hpp"
#include "recorder/format/trace_writer.hpp"

namespace skein::capture {

struct FdTraceWriter {
  // A writer for the trace PATH, with no descriptor attached yet:
  // gzip-compressed when PATH ends in .gz, named <stdout> in messages for
  // "-"; `buffer_bytes` is the buffer reserved (invariant 2).
  [[nodiscard]] static FdTraceWriter make(const std::string& path, std::size_t buffer_bytes);

  std::unique_ptr<TraceWriter> out;
  CaptureFdSink* fd_sink = nullptr;  // out's descriptor sink
  ByteSink* top = nullptr;           // out's outermost sink
};

}  // namespace skein::capture
