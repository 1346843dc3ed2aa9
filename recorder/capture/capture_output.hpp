// capture_output.hpp — where the capture's bytes go (SKEIN_TRACE=PATH), and
// how writing there fails without harming the traced program: the rules of
// output_file.hpp, for a writer that must neither block the program, nor
// kill it, nor replace what it should write to.
//
// What PATH names decides how each mode writes it (lstat, output_node.hpp):
//
//   PATH names          stream mode (one live trace)   ring mode (whole traces, at
//                                                      exit, on SIGUSR1, on a crash)
//   -----------------   ----------------------------   -----------------------------
//   nothing, or a       locked, then written in place  locked at start (created
//   regular file        (created, or truncated once    empty if absent, never
//                       the lock is held), so a        truncated), then replaced:
//                       reader may follow it and a     PATH.tmp-PID beside it,
//                       crash keeps what was written;  renamed over it once
//                       held by another capture: the   complete (output_file.hpp;
//                       name beside it, likewise       on a crash, the same by
//                       (trace_path_claim.hpp)         hand); held: beside it
//   a FIFO              opened without blocking; with  opened without blocking for
//                       no reader yet, the writer      each trace; with no reader,
//                       thread opens it once one       that trace is not written
//                       comes (see below)              (one line on stderr)
//   a device            written through                written through
//   a symbolic link     written through to what it     written through to what it
//                       points to (a FIFO there: as    points to (as on the left;
//                       a FIFO; a regular file there:  a regular file there is
//                       locked first, as above); a     locked first)
//                       link to nothing is refused
//   "-"                 standard output                standard output, each trace
//                                                      after the one before
//   a folder, a socket  refused at start               refused at start
//
// A FIFO with no reader. The program is not held up at start: the capture
// opens the FIFO with O_NONBLOCK, and when that finds no reader (ENXIO)
// the writer thread tries again at each of its polls (kPollMax, 50 ms,
// when idle), while the program runs and its records wait in the bounded
// buffer (counted as lost when it is full, as with a slow writer). A reader
// that comes gets the trace from its header on. If none has come when the
// program stops, the capture says so on stderr and writes nothing; the
// program's exit is not held up either.
//
// A reader that goes away. Every write is made where SIGPIPE cannot kill
// the program: the writer thread blocks every asynchronous signal (so it
// never takes the program's signals either, nor SIGPIPE, which stays pending
// on that thread and dies with it), and the crash path blocks SIGPIPE
// around its writes and discards one it raised itself
// (CrashSigpipeGuard). The process's SIGPIPE disposition is never changed
// for longer than the crash path's discard. A write that meets EPIPE marks
// the sink (reader_gone()) and the capture stops writing: one line on
// stderr, the records after it dropped and counted.
//
// Invariants:
//   1. No capture output replaces a node that is not a regular file (a
//      device, a FIFO, a link is written through), nor truncates a trace
//      file in ring mode before a complete trace replaces it, nor writes a
//      regular file whose lock another capture holds (one trace file, one
//      writer: trace_path_claim.hpp).
//   2. No open or write on behalf of the capture blocks the program's own
//      threads: opens of FIFOs use O_NONBLOCK; writes happen on the writer
//      thread, or on the crash path, where a pipe, FIFO or terminal that
//      takes nothing for kCrashPatienceMs ends the write.
//   3. The crash path's calls (CaptureFdSink in crash mode,
//      open_crash_ring_target, finish_crash_ring_target, CrashSigpipeGuard)
//      are async-signal-safe and do not allocate.
#pragma once

#include <signal.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "recorder/capture/trace_path_claim.hpp"
#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/output/output_file.hpp"

namespace skein::capture {

// The longest the crash path waits for a pipe, FIFO or terminal to take
// more bytes before it gives the rest up.
inline constexpr int kCrashPatienceMs = 1000;

// The sink of the capture's descriptor: the stream mode's file for the
// writer thread and the crash path, the ring mode's crash path file, and
// the ring mode's standard output or FIFO (so that a reader gone reads as
// "trace output closed (EPIPE)" in both modes).
class CaptureFdSink final : public ByteSink {
 public:
  explicit CaptureFdSink(std::string name) : name_(std::move(name)) {}
  ~CaptureFdSink() override;
  CaptureFdSink(const CaptureFdSink&) = delete;
  CaptureFdSink& operator=(const CaptureFdSink&) = delete;

  // Writes go to `fd` from now on (closed by close() when `owned`).
  void attach(int fd, bool owned) noexcept;
  // In a forked child: an owned descriptor closed, and nothing written
  // (trace_path_claim.hpp, invariant 4). Async-signal-safe.
  void close_in_fork_child() noexcept;
  [[nodiscard]] bool attached() const noexcept { return fd_ >= 0; }
  [[nodiscard]] int fd() const noexcept { return fd_; }
  // The reader of the pipe or FIFO went away (a write met EPIPE); nothing
  // more is written. Any thread.
  [[nodiscard]] bool reader_gone() const noexcept { return reader_gone_.load(std::memory_order_acquire); }
  // The crash path from here on (invariant 3): a failed write is dropped
  // rather than reported (a report allocates), and a descriptor that is not
  // a regular file gets at most kCrashPatienceMs to take each piece.
  void enter_crash_mode() noexcept { crash_ = true; }

  Status write(std::string_view bytes) override;
  Status close() override;

 private:
  std::string name_;
  int fd_ = -1;
  bool owned_ = false;
  bool regular_ = false;  // a regular file: writes never wait for a reader
  bool crash_ = false;
  bool failed_ = false;
  std::atomic<bool> reader_gone_{false};
};

// Stream mode's target, opened at start (the table above).
struct StreamTarget {
  std::string path;        // where the trace goes: PATH, or the name beside it
  std::optional<BesideTrace> beside;  // when beside
  int fd = -1;             // -1 with awaiting_reader
  bool owned = true;       // false for standard output
  bool regular = false;    // a regular file (preallocation applies)
  bool awaiting_reader = false;  // a FIFO with no reader yet: open_fifo_for_writing later
  bool follow = false;     // the FIFO is reached through a symbolic link
};
[[nodiscard]] Result<StreamTarget> open_stream_target(const std::string& path);

// A FIFO opened for writing without waiting for a reader: its descriptor
// (blocking from here on), or -1 when it has no reader (errno ENXIO) or
// cannot be opened. The final component is followed only when `follow`.
// Async-signal-safe.
[[nodiscard]] int open_fifo_for_writing(const char* path, bool follow) noexcept;

// Ring mode, at start: PATH can take a trace (the table above), without
// touching what is there now. Nothing, a regular file or a link to one is
// claimed (trace_path_claim.hpp): the claim's path is where the ring's
// traces go, and its lock is held for the capture's life.
[[nodiscard]] Result<ClaimedTracePath> claim_ring_target(const std::string& path);

// Ring mode, outside the crash path: where one whole trace goes. `sink` is
// null with `no_reader` (a FIFO no one reads: that trace is not written).
struct RingTarget {
  std::optional<OutputFile> file;  // the replacement or written-through file
  std::unique_ptr<ByteSink> sink;
  bool no_reader = false;
  // Once the sink is closed: the replacement renamed over PATH, locked
  // first when `lock` holds PATH's lock, which then holds the new file's
  // (trace_path_claim.hpp, invariant 3).
  [[nodiscard]] Status commit(TraceFileLock& lock);
};
[[nodiscard]] Result<RingTarget> open_ring_target(const std::string& path);

// Ring mode's crash path: the names it uses, made at start.
struct CrashRingPaths {
  std::string target;  // PATH
  std::string temp;    // replacement_path(PATH)
};
// PATH.tmp-PID (shortened to fit NAME_MAX, pending_file.hpp), the name
// output_file.hpp's replacement of PATH uses.
[[nodiscard]] std::string replacement_path(const std::string& path);
[[nodiscard]] CrashRingPaths crash_ring_paths(const std::string& path);
// Opens where the crash path writes the ring: the temporary file (then
// `rename_after`), or the node itself for a device, a FIFO with a reader, a
// link or standard output. -1: nowhere (a FIFO with no reader, an error).
[[nodiscard]] int open_crash_ring_target(const CrashRingPaths& paths, bool& rename_after) noexcept;
// After the descriptor is closed: the temporary file renamed over PATH,
// if PATH is still nothing or a regular file (otherwise removed).
void finish_crash_ring_target(const CrashRingPaths& paths, bool rename_after) noexcept;

// Blocks SIGPIPE on this thread for the crash path's writes; on the way
// out, discards a SIGPIPE those writes raised (one that was pending before
// is left alone), then restores the thread's mask. Async-signal-safe.
class CrashSigpipeGuard {
 public:
  CrashSigpipeGuard() noexcept;
  ~CrashSigpipeGuard();
  CrashSigpipeGuard(const CrashSigpipeGuard&) = delete;
  CrashSigpipeGuard& operator=(const CrashSigpipeGuard&) = delete;

 private:
  sigset_t saved_mask_;
  bool was_pending_ = false;
};

// The signals the writer thread blocks: every signal but the synchronous
// ones (a fault of the writer's own). A thread created with this mask
// never takes the program's signals nor dies of SIGPIPE.
[[nodiscard]] sigset_t writer_thread_signal_mask() noexcept;

}  // namespace skein::capture
