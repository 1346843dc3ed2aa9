// stream_output.hpp — stream mode's one live trace: the target PATH names
// (capture_output.hpp), the TraceWriter over it, the lock that shares it
// between the writer thread and the crash handler, its preallocation, and
// how writing there went.
//
// How writing fails. A write that meets EPIPE (the reader went away) closes
// the output for good: one line on stderr, and from then on the writer
// gives chunks back unwritten (counted as records_unwritten) and keeps its
// usual polls (no busy loop); the program goes on. Any other failure is
// said once on stderr and kept as error(), which stop() returns. A FIFO no
// reader ever opened is said on stderr at the end, and nothing is written.
//
// Invariants:
//   1. Every use of writer() and the sinks is made by the holder of lock()
//      (output_lock.hpp), or by the crash handler on the writer thread.
//   2. The header is in the writer's buffer from open() on, so whatever
//      reader comes gets the trace from its start.
//   3. closed() is atomic (the crash path and the writer read it); failed_,
//      finished_ and error_ are the lock holder's.
//   4. Once finished(), the sinks are closed and gone; the crash path then
//      writes nothing.
//   5. The crash-path calls (attach_late_reader, enter_crash_mode,
//      close_for_crash, release_preallocation) and close_in_fork_child are
//      async-signal-safe and do not allocate.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "recorder/capture/capture_output.hpp"
#include "recorder/capture/fd_trace_writer.hpp"
#include "recorder/capture/file_preallocation.hpp"
#include "recorder/capture/output_lock.hpp"
#include "recorder/capture/writer_thread.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/format/trace_writer.hpp"

namespace skein::capture {

class StreamOutput {
 public:
  // At start: takes the target open_stream_target() opened (the table in
  // capture_output.hpp) and puts `header_line` in the writer's buffer
  // (invariant 2), which reserves `buffer_bytes`.
  void open(StreamTarget target, const std::string& header_line, std::size_t buffer_bytes);

  [[nodiscard]] OutputLock& lock() noexcept { return lock_; }
  [[nodiscard]] TraceWriter& writer() noexcept { return *file_.out; }
  // A descriptor to write to (a FIFO's reader may not have come yet).
  [[nodiscard]] bool attached() const noexcept { return file_.fd_sink->attached(); }
  // A write met EPIPE.
  [[nodiscard]] bool closed() const noexcept { return closed_.load(); }
  // Records are written, rather than given back unwritten.
  [[nodiscard]] bool takes_records() const noexcept { return !closed() && attached(); }
  [[nodiscard]] bool finished() const noexcept { return finished_; }
  // Unattached with no failure: a FIFO no reader opened.
  [[nodiscard]] bool reader_never_came() const noexcept { return !attached() && !failed_; }
  // What stop() returns: the first failure, or EPIPE.
  [[nodiscard]] const Status& error() const noexcept { return error_; }

  // --- the writer thread ---

  // A FIFO with no reader at start: tries again every kPollMax until one
  // opens it, the open fails otherwise, or `writer` is told to stop. Filled
  // chunks wait meanwhile.
  void wait_for_reader(WriterThread& writer);
  // The header at once, if there is a reader: a reader of the file sees a
  // trace from the start.
  void flush_header();
  // Hands the buffer to the file; a failure is said (see "How writing fails").
  void flush();
  // Keeps the file's blocks allocated ahead (file_preallocation.hpp).
  void preallocate_ahead() noexcept { preallocation_.allocate_ahead(); }
  // At stop, with the lock held: (lost ...) for the final drops, (end), the
  // last flush. Returns the bytes written.
  std::uint64_t write_end(TimeNs end, std::uint64_t final_dropped);
  // At stop, with the lock held, when reader_never_came(): says so on stderr.
  void say_no_reader() const;
  // At stop, with the lock held: closes the sinks, settles error(), gives
  // back the preallocated blocks.
  void finish();

  // --- the crash path (invariant 5) ---

  // A FIFO's reader may have come since the writer's last try.
  void attach_late_reader() noexcept;
  void enter_crash_mode() noexcept { file_.fd_sink->enter_crash_mode(); }
  void close_for_crash() noexcept { (void)file_.top->close(); }
  void release_preallocation() noexcept { preallocation_.release(); }

  // In a forked child: this process's descriptors closed, so that the
  // parent's lock on the file lasts as long as the parent's own
  // (trace_path_claim.hpp, invariant 4). Async-signal-safe.
  void close_in_fork_child() noexcept;

 private:
  void note_flush(const Status& flushed);

  std::string path_;
  StreamTarget target_;
  FdTraceWriter file_;
  std::string no_reader_message_;
  FilePreallocation preallocation_;
  OutputLock lock_;
  std::atomic<bool> closed_{false};  // a write met EPIPE (said once on stderr)
  bool failed_ = false;              // another write error (said once on stderr)
  bool finished_ = false;
  Status error_;
};

}  // namespace skein::capture
