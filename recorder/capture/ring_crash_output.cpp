// ring_crash_output.cpp — the crash path's ring file: open the target (the
// temporary name or the node itself), attach it in crash mode, write the
// ring, flush, close the sinks by hand (TraceWriter::finish would free
// them), then rename the temporary file over PATH.
#include "recorder/capture/ring_crash_output.hpp"

#include "recorder/capture/ring_trace.hpp"

namespace skein::capture {

void RingCrashOutput::prepare(const std::string& path, std::size_t buffer_bytes, const StringArena& strings,
                              const SiteTable& sites, std::size_t site_capacity) {
  paths_ = crash_ring_paths(path);
  file_ = FdTraceWriter::make(path, buffer_bytes);
  converter_ = std::make_unique<CapturedRecordWriter>(strings, sites, site_capacity);
}

void RingCrashOutput::write(CaptureBuffer& buffer, const std::string& header_line,
                            const TickCalibration& calibration) noexcept {
  bool rename_after = false;
  const int fd = open_crash_ring_target(paths_, rename_after);
  if (fd < 0) return;
  file_.fd_sink->attach(fd, true);
  file_.fd_sink->enter_crash_mode();
  converter_->set_calibration(calibration);
  write_ring_trace(buffer, header_line, *converter_, *file_.out, nullptr, RingTraceEnd{});
  (void)file_.out->flush();
  (void)file_.top->close();
  finish_crash_ring_target(paths_, rename_after);
}

}  // namespace skein::capture
