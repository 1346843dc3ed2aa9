// fd_trace_writer.cpp — builds the chain TraceWriter -> [gzip] -> descriptor
// sink, keeping pointers to the sinks before they are moved into it.
#include "recorder/capture/fd_trace_writer.hpp"

#include <utility>

namespace skein::capture {

FdTraceWriter FdTraceWriter::make(const std::string& path, std::size_t buffer_bytes) {
  const std::string name = path == "-" ? "<stdout>" : path;
  const bool gzip = path.size() > 3 && path.ends_with(".gz");
  FdTraceWriter writer;
  auto fd_sink = std::make_unique<CaptureFdSink>(name);
  writer.fd_sink = fd_sink.get();
  std::unique_ptr<ByteSink> sink = std::move(fd_sink);
  if (gzip) sink = gzip_output(std::move(sink), name);
  writer.top = sink.get();
  writer.out = std::make_unique<TraceWriter>(std::move(sink));
  writer.out->reserve_buffer(buffer_bytes);
  return writer;
}

}  // namespace skein::capture
