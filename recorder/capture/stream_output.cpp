// stream_output.cpp — opening stream mode's target and writer, the wait for a
// FIFO's reader, the flushes and what their failures say, the end of the
// trace at stop, and the crash path's late reader.
#include "recorder/capture/stream_output.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace skein::capture {

void StreamOutput::open(StreamTarget target, const std::string& header_line, std::size_t buffer_bytes) {
  target_ = std::move(target);
  path_ = target_.path;
  const std::string& path = path_;
  file_ = FdTraceWriter::make(path, buffer_bytes);
  if (target_.fd >= 0) file_.fd_sink->attach(target_.fd, target_.owned);
  file_.out->write_line(header_line);  // written by the writer thread (capture_output.hpp)
  no_reader_message_ =
      "skein: trace output " + path + " is a FIFO no reader opened while the program ran: the trace was not written\n";
  if (target_.regular && target_.owned) preallocation_.adopt_duplicate_of(target_.fd);
}

void StreamOutput::close_in_fork_child() noexcept {
  if (file_.fd_sink != nullptr) file_.fd_sink->close_in_fork_child();  // none in ring mode
  preallocation_.close_in_fork_child();
}

void StreamOutput::wait_for_reader(WriterThread& writer) {
  while (!attached()) {
    const int fd = open_fifo_for_writing(path_.c_str(), target_.follow);
    if (fd >= 0) {
      lock_.lock_for_writer();
      file_.fd_sink->attach(fd, true);
      lock_.unlock();
      return;
    }
    if (errno != ENXIO) {
      note_flush(file_error(path_, std::string("cannot open the FIFO to write: ") + std::strerror(errno)));
      return;
    }
    if (writer.stopping()) return;
    writer.wait_for_stop(kPollMax);
  }
}

void StreamOutput::flush_header() {
  if (!attached()) return;
  lock_.lock_for_writer();
  flush();
  lock_.unlock();
}

void StreamOutput::flush() { note_flush(file_.out->flush()); }

// EPIPE stops the writing for good, another error is kept for stop().
void StreamOutput::note_flush(const Status& flushed) {
  if (flushed.ok()) return;
  if (file_.fd_sink->reader_gone()) {
    if (!closed_.exchange(true))
      std::fprintf(stderr, "skein: trace output closed (EPIPE): tracing stopped; the program goes on\n");
    return;
  }
  if (error_.ok()) error_ = flushed;
  if (!failed_) {
    failed_ = true;
    std::fprintf(stderr, "skein: trace output failed: %s\n", flushed.error().to_string().c_str());
  }
}

std::uint64_t StreamOutput::write_end(TimeNs end, std::uint64_t final_dropped) {
  if (final_dropped > 0) file_.out->write(LostRecord{end, static_cast<std::int64_t>(final_dropped)});
  file_.out->write(EndRecord{end});
  const std::uint64_t bytes = file_.out->bytes_written();
  flush();
  return bytes;
}

void StreamOutput::say_no_reader() const { std::fprintf(stderr, "%s", no_reader_message_.c_str()); }

void StreamOutput::finish() {
  Status finished = file_.out->finish();
  finished_ = true;
  if (!finished.ok() && !closed() && error_.ok()) error_ = finished;
  if (closed() && error_.ok()) error_ = file_error(path_, "trace output closed (EPIPE)");
  preallocation_.release();
}

void StreamOutput::attach_late_reader() noexcept {
  if (attached() || !target_.awaiting_reader) return;
  const int fd = open_fifo_for_writing(path_.c_str(), target_.follow);
  if (fd >= 0) file_.fd_sink->attach(fd, true);
}

}  // namespace skein::capture
