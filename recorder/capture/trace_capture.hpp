// trace_capture.hpp — turning tracing on for a program built on the runtime:
// the capture installs its sink in the runtime, keeps records in bounded
// memory, and a background thread writes them as a Skein trace file.
//
// Off by default. On with SKEIN_TRACE=PATH in the environment (any program
// that links skein::recorder: no code change) or skein::trace::start(PATH).
// Environment:
//   SKEIN_TRACE=PATH            where to write (".gz": compressed); a file
//                               another traced process is writing is left
//                               alone, and the trace goes beside it
//                               (trace_path_claim.hpp)
//   SKEIN_TRACE_MODE=ring       flight recorder: keep only the newest records
//                               and write them at exit, on a crash, or on
//                               SIGUSR1 (default: stream, write everything)
//   SKEIN_TRACE_BUFFER_MB=N     the memory budget (default 64; in ring mode,
//                               how much of the newest history is kept),
//                               mapped at start: a budget the process
//                               cannot map leaves it untraced
//   SKEIN_TRACE_STATS=1         print records, drops, bytes and the writer
//                               thread's CPU time to stderr at stop
//
// The file is written on a normal exit (atexit), on std::terminate, and best
// effort on every signal whose default action ends the process (SIGSEGV,
// SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGPIPE, ... and the real-time signals;
// SIGUSR1 asks ring mode for a snapshot instead), where that default is
// still in force at start: what is buffered is written with
// async-signal-safe calls, and the signal is then re-raised with its
// default action, so the process dies by it. A clean stop ends the
// file with (end); a crash leaves it without, which readers report as cut
// short.
//
// The costs (`make bench` measures them): with tracing off, one predictable
// branch per runtime hook; with tracing on, the scheduler thread stores a
// 32-byte record stamped with the time-stamp counter and never formats text
// or touches the file.
#pragma once

#include <cstddef>
#include <string>

#include "recorder/capture/capture_buffer.hpp"
#include "recorder/format/diagnostic.hpp"

namespace skein::trace {

struct CaptureOptions {
  std::string path;
  capture::CaptureMode mode = capture::CaptureMode::stream;
  std::size_t budget_bytes = std::size_t{64} << 20;
  // Fatal-signal and std::terminate handlers; off for tests that install
  // their own.
  bool crash_handlers = true;
  // Test hook: the writer sleeps this long per chunk (an artificially slow
  // writer, to exercise dropping).
  unsigned writer_delay_us = 0;
};

// Starts capturing into options.path. Fails, and leaves the program as it
// was, if a capture is running, the budget cannot be mapped or the file
// cannot be created.
[[nodiscard]] Status start(const CaptureOptions& options);
[[nodiscard]] Status start(const std::string& path);
// Reads SKEIN_TRACE, SKEIN_TRACE_MODE and SKEIN_TRACE_BUFFER_MB; does nothing
// (and succeeds) when SKEIN_TRACE is unset or empty.
[[nodiscard]] Status start_from_environment();
// Stops: writes what is buffered and (end), closes the file, uninstalls the
// sink. Safe to call when no capture runs.
[[nodiscard]] Status stop();
[[nodiscard]] bool capturing();
// Ring mode: write the newest records to the file now, while the program
// goes on (what SIGUSR1 does).
[[nodiscard]] Status snapshot();

struct CaptureStats {
  std::uint64_t records_dropped = 0;      // stream mode, written as (lost ...)
  std::uint64_t records_overwritten = 0;  // ring mode
  std::uint64_t strings_overflowed = 0;
  std::uint64_t records_unwritten = 0;    // stream mode, after the output closed (EPIPE)
};
[[nodiscard]] CaptureStats capture_stats();

}  // namespace skein::trace
