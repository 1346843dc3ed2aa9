// trace_capture.cpp — the capture's lifecycle: start, the writer thread's two
// loops (stream mode's and ring mode's), stop, and the crash flush; what
// users see is in trace_capture.hpp.
//
// A Capture is the record path (the string arena, the site table, the
// buffer and the sink the runtime calls) and, beside it, one part per
// slow-path concern:
//   WriterThread        the background thread and its wakes (writer_thread.hpp)
//   WriterStats         what the writer did, SKEIN_TRACE_STATS (writer_stats.hpp)
//   StreamOutput        stream mode's live trace and its lock (stream_output.hpp)
//   RingSnapshots       ring mode's snapshot requests and answers (ring_snapshots.hpp)
//   RingCrashOutput     ring mode's crash file (ring_crash_output.hpp)
//   CrashState          the crash path's claim (crash_state.hpp)
//   ConversionProgress  where the writer is in its chunk (conversion_progress.hpp)
//   TraceFileLock       ring mode's lock on its trace file (trace_path_claim.hpp;
//                       stream mode's is its file's own descriptor)
// ring_trace.hpp writes the ring as one trace, for a snapshot and for the
// crash path; crash_handlers.hpp installs the signal and terminate handlers
// that call crash_flush().
//
// Threads. The scheduler thread is the producer: the runtime's hooks append
// to the CaptureBuffer through the record window it opens, and CaptureSink
// takes what the window cannot (capture_sink.hpp). The writer thread
// consumes: in stream mode it converts each full chunk to text
// (CapturedRecordWriter, TraceWriter) and gives the chunk back; in ring mode
// it sleeps until asked for a snapshot.
//
// The output (capture_output.hpp). Every write to the trace's output is
// made by the writer thread, which blocks every asynchronous signal, or by
// the crash path: never by the program's own threads, so that a reader that
// goes away (EPIPE) cannot kill the program, and a FIFO without a reader
// cannot hold it up. snapshot() therefore asks the writer thread and waits
// for it.
//
// Processes. One trace file, one writer (trace_path_claim.hpp): the capture
// locks the regular file it writes, and writes beside one another capture
// holds (a traced child that inherited SKEIN_TRACE, a traced program
// started meanwhile), saying so once on stderr. A fork()ed child records
// nothing and closes its copies of the trace's descriptors
// (forget_capture_in_fork_child); a program it execs traces itself afresh.
//
// Crash safety. Everything the crash path touches is allocated at start:
// the buffer, the string arena, the site table, the converter (in ring mode
// a second one, so that a crash during a snapshot does not share the
// writer's), the writer's buffer (kWriterBufferBytes, larger than any
// record) and, in ring mode, a file sink whose descriptor is opened in the
// handler. The handler uses only async-signal-safe system calls (open,
// write, poll, close, rename, clock_gettime, nanosleep, sigaction) plus
// formatting into preallocated memory; it closes its sinks itself rather
// than through TraceWriter::finish, which frees them.
//
// Invariants:
//   1. One capture at a time: g_capture is set once the capture's output
//      is open, before its writer starts and its sink is installed, and
//      cleared by stop() only after the writer thread is joined.
//   2. stop() writes end_ticks and final_dropped before it asks the writer
//      to stop, and the writer reads them only once it has seen the stop
//      (writer_thread.hpp, invariant 3); stop() reads what the writer
//      wrote (the stats, the output's status) only after joining it.
//   3. Nothing here is on the record path: CaptureSink and CaptureBuffer
//      reach this file only through on_chunk_filled (once per chunk).
#include "recorder/capture/trace_capture.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "recorder/capture/capture_output.hpp"
#include "recorder/capture/capture_sink.hpp"
#include "recorder/capture/captured_record_writer.hpp"
#include "recorder/capture/conversion_progress.hpp"
#include "recorder/capture/crash_handlers.hpp"
#include "recorder/capture/crash_state.hpp"
#include "recorder/capture/ring_crash_output.hpp"
#include "recorder/capture/ring_snapshots.hpp"
#include "recorder/capture/ring_trace.hpp"
#include "recorder/capture/site_table.hpp"
#include "recorder/capture/stream_output.hpp"
#include "recorder/capture/string_arena.hpp"
#include "recorder/capture/trace_path_claim.hpp"
#include "recorder/capture/writer_stats.hpp"
#include "recorder/capture/writer_thread.hpp"
#include "recorder/format/trace_writer.hpp"
#include "runtime/trace_sink.hpp"

namespace skein::trace {
namespace {

using namespace skein::capture;

constexpr std::size_t kStringArenaBytes = std::size_t{4} << 20;
constexpr std::size_t kSiteCapacity = std::size_t{1} << 16;
// Larger than the longest record (two 64 KiB strings, escaped) so writing a
// record never grows the buffer: the crash path must not allocate.
constexpr std::size_t kWriterBufferBytes = std::size_t{1} << 20;
// The writer hands its buffer to the file once this much is formatted.
constexpr std::size_t kFlushBytes = kWriterBufferBytes / 2;
// Chunks the writer keeps faulted in past the producer's highest, at least
// (CaptureBuffer::prefault_ahead doubles it as the producer takes more).
// Each fault-in is cut short by a stop, so a short program does not wait
// at exit for memory it will never use.
constexpr std::uint32_t kPrefaultAheadChunks = 16;

std::string process_name() {
  char name[64] = {};
  if (FILE* f = std::fopen("/proc/self/comm", "r")) {
    if (std::fgets(name, sizeof name, f) != nullptr) name[std::strcspn(name, "\n")] = '\0';
    std::fclose(f);
  }
  return name[0] != '\0' ? name : "unknown";
}

std::int64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The trace's header line: the process, the wall-clock time of `origin`,
// and for a trace written beside another's, that trace's process.
std::string trace_header_line(const std::string& process, const TickCalibration& origin, CaptureMode mode,
                              const std::optional<BesideTrace>& beside) {
  TraceHeader header;
  header.set("process", process);
  header.set("pid", std::to_string(getpid()));
  header.set("origin-unix-ns", std::to_string(realtime_ns() - (monotonic_ns() - origin.ns0)));
  if (mode == CaptureMode::ring) header.set("mode", "ring");
  if (beside && beside->holder_pid > 0) header.set("beside-pid", std::to_string(beside->holder_pid));
  return format_header(header);
}

struct Capture {
  Capture(const CaptureOptions& o, ChunkMemory memory)
      : options(o),
        strings(kStringArenaBytes),
        sites(kSiteCapacity, strings),
        buffer(std::move(memory), o.mode),
        sink(buffer, strings, sites),
        converter(strings, sites, kSiteCapacity) {}

  CaptureOptions options;
  // Where the trace goes: options.path, or the name beside it when another
  // capture holds that (trace_path_claim.hpp).
  std::string output_path;
  std::optional<BesideTrace> beside;
  std::string header_line;
  TickCalibration origin;
  bool calibrated = false;  // the converter has its rate (ensure_calibrated)
  // The record path, and the converter the writer reads it with.
  StringArena strings;
  SiteTable sites;
  CaptureBuffer buffer;
  CaptureSink sink;
  CapturedRecordWriter converter;
  Sink* previous_sink = nullptr;
  // The slow path, one part per concern.
  WriterThread writer;
  WriterStats stats;
  StreamOutput stream;          // stream mode
  RingSnapshots snapshots;      // ring mode
  RingCrashOutput ring_crash;   // ring mode's crash path
  TraceFileLock ring_lock;      // ring mode: the lock on output_path's file, if a regular one
  CrashState crash;
  ConversionProgress progress;  // stream mode, for a crash on the writer thread
  // What stop() saw (invariant 2): the end's time, and the drops no chunk
  // carries.
  std::uint64_t end_ticks = 0;
  std::uint64_t final_dropped = 0;
};

std::atomic<Capture*> g_capture{nullptr};

// The first conversion waits until kMinCalibrationNs have passed since the
// origin (for an accurate rate), but not past a stop: a short program must
// not wait for the calibration at exit.
void ensure_calibrated(Capture& c, bool quick) {
  if (c.calibrated) return;
  while (!quick && !c.writer.stopping() && monotonic_ns() - c.origin.ns0 < kMinCalibrationNs)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  c.converter.set_calibration(calibrate(c.origin, 0));
  c.calibrated = true;
}

// What the writer wakes for, besides a stop.
bool writer_has_work(const Capture& c) { return c.buffer.has_filled() || c.snapshots.requested(); }

// --- stream mode ------------------------------------------------------------

// Records [from, published) of chunk `index` to the stream's writer.
void convert_chunk(Capture& c, std::uint32_t index, std::uint32_t from) {
  const Chunk& chunk = c.buffer.chunk(index);
  const std::uint32_t n = c.buffer.published(chunk);
  c.stats.records_written += n - from;
  c.progress.begin(index, from);
  TraceWriter& out = c.stream.writer();
  for (std::uint32_t i = from; i < n; ++i) {
    // The producer wrote these lines on another core: ask for them early.
    __builtin_prefetch(&chunk.records[i + 16]);
    c.stats.count_if_lost(chunk.records[i]);
    c.converter.write(out, chunk.records[i]);
    c.progress.converted(i + 1);
  }
  c.progress.end();
}

// After EPIPE, or with no reader yet: a chunk's records counted, unwritten.
void discard_chunk(Capture& c, std::uint32_t index) {
  const Chunk& chunk = c.buffer.chunk(index);
  const std::uint32_t n = c.buffer.published(chunk);
  for (std::uint32_t i = 0; i < n; ++i) c.stats.count_if_lost(chunk.records[i]);
  c.stats.records_unwritten.fetch_add(n, std::memory_order_relaxed);
}

// A chunk converted, and the buffer handed to the file when it is time.
void write_chunk(Capture& c, std::uint32_t index) {
  ensure_calibrated(c, c.writer.stopping());
  convert_chunk(c, index, 0);
  // Whole-buffer writes while chunks keep coming (a system call per chunk
  // costs a few ns a record); everything as soon as the writer has caught
  // up, so a reader of the file lags by at most one chunk.
  if (c.stream.writer().buffered() >= kFlushBytes || !c.buffer.has_filled()) {
    c.stream.preallocate_ahead();
    c.stream.flush();
  }
}

// The oldest filled chunk, written (or discarded) and given back, with the
// output held; false when no chunk is filled.
bool take_filled_chunk(Capture& c) {
  c.stream.lock().lock_for_writer();
  std::uint32_t index = 0;
  const bool taken = c.buffer.pop_filled(index);
  if (taken) {
    if (c.stream.takes_records()) write_chunk(c, index);
    else discard_chunk(c, index);
    c.buffer.give_back(index);
  }
  c.stream.lock().unlock();
  return taken;
}

// At stop, with every chunk taken: the trace's end (or the line saying no
// reader came), then the output closed.
void finish_stream(Capture& c) {
  c.stream.lock().lock_for_writer();
  if (c.stream.reader_never_came()) {
    c.stream.say_no_reader();
  } else if (!c.stream.closed()) {
    ensure_calibrated(c, true);
    c.stats.bytes_written = c.stream.write_end(c.converter.calibration().to_ns(c.end_ticks), c.final_dropped);
  }
  c.stream.finish();
  c.stream.lock().unlock();
}

void stream_writer(Capture& c) {
  c.stream.wait_for_reader(c.writer);
  c.stream.flush_header();
  std::chrono::milliseconds poll = kPollMin;
  for (;;) {
    // Fresh memory only while the writer keeps up: a writer that is behind
    // converts, and the producer reuses the chunks it gives back
    // (capture_buffer.hpp, invariant 5).
    if (c.buffer.filled_count() < c.buffer.backlog_limit())
      c.buffer.prefault_ahead(kPrefaultAheadChunks, c.writer.stop_flag());
    if (take_filled_chunk(c)) {
      poll = kPollMin;
      if (c.options.writer_delay_us > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(c.options.writer_delay_us));
      continue;
    }
    if (c.writer.stopping()) break;
    c.writer.wait_for_work(poll, [&] { return writer_has_work(c); });
    if (!c.buffer.has_filled()) poll = std::min(poll * 2, kPollMax);
  }
  finish_stream(c);
}

// --- ring mode ---------------------------------------------------------------

// One whole trace to the ring's target, by output_file.hpp's rules
// (capture_output.hpp): a regular file is replaced once the trace is
// complete, a device, FIFO or link written through. Writer thread only.
Status write_ring_file(Capture& c, bool final) {
  ensure_calibrated(c, true);
  auto target = open_ring_target(c.output_path);
  if (!target) return target.error();
  if (target.value().no_reader) {
    std::fprintf(stderr, "skein: trace output %s is a FIFO with no reader: the ring's trace was not written\n",
                 c.output_path.c_str());
    return {};
  }
  TraceWriter out(std::move(target.value().sink));
  out.reserve_buffer(kWriterBufferBytes);
  write_ring_trace(c.buffer, c.header_line, c.converter, out, c.snapshots.scratch(), RingTraceEnd{final, c.end_ticks});
  Status finished = out.finish();
  if (!finished.ok()) return finished;  // a replacement not committed is removed; PATH stays
  return target.value().commit(c.ring_lock);
}

void ring_writer(Capture& c) {
  c.buffer.prefault(c.writer.stop_flag());
  for (;;) {
    c.writer.wait_for_work(kPollMax, [&] { return writer_has_work(c); });
    if (c.snapshots.take_request()) c.snapshots.answer(write_ring_file(c, false));
    if (c.writer.stopping()) break;
  }
  c.snapshots.answer(write_ring_file(c, true));  // the trace at stop
}

// The writer thread's body.
void run_writer(Capture& c) {
  if (c.options.mode == CaptureMode::stream) stream_writer(c);
  else ring_writer(c);
  c.stats.take_writer_cpu_time();
}

// --- crash paths ------------------------------------------------------------

// Stream mode: what the buffer still holds, from where the writer was (a
// crash on its own thread) through the filled chunks to the producer's
// current one, then (lost ...) for the drops since the last chunk.
void write_buffered(Capture& c, bool on_writer) noexcept {
  std::uint32_t index = 0;
  std::uint32_t from = 0;
  if (on_writer && c.progress.half_done(index, from)) convert_chunk(c, index, from);
  while (c.buffer.pop_filled(index)) convert_chunk(c, index, 0);
  const std::int64_t current = c.buffer.current_index();
  if (current >= 0) convert_chunk(c, static_cast<std::uint32_t>(current), 0);
  if (c.buffer.dropped() > 0)
    c.stream.writer().write(LostRecord{c.converter.calibration().to_ns(read_ticks()),
                                       static_cast<std::int64_t>(c.buffer.dropped())});
  (void)c.stream.writer().flush();
}

void crash_flush_stream(Capture& c, bool on_writer) noexcept {
  // Off the writer thread, the writer gets a bounded time to finish its
  // chunk (output_lock.hpp).
  const bool holds_output = on_writer || c.stream.lock().lock_for_crash();
  if (c.stream.finished()) return;  // stopped already: the file is complete
  c.stream.attach_late_reader();
  c.stream.enter_crash_mode();
  if (c.stream.takes_records()) write_buffered(c, on_writer);
  c.stream.close_for_crash();
  // Only with the output held: a writer still writing could append between
  // the size read and the truncation.
  if (holds_output) c.stream.release_preallocation();
}

void crash_flush() noexcept {
  Capture* c = g_capture.load(std::memory_order_acquire);
  if (c == nullptr) return;
  if (!c->crash.claim()) {
    // Another thread's fatal signal is flushing: let it finish first.
    c->crash.wait_for_flush();
    return;
  }
  set_sink(c->previous_sink);  // no more records (plain stores: signal-safe)
  const CrashSigpipeGuard no_sigpipe;  // a reader gone must not change how the process dies
  const bool on_writer = c->writer.is_current();
  ensure_calibrated(*c, true);
  if (c->options.mode == CaptureMode::stream) crash_flush_stream(*c, on_writer);
  else c->ring_crash.write(c->buffer, c->header_line, c->converter.calibration());
  c->crash.mark_flushed();
}

// SIGUSR1 in ring mode.
void request_snapshot() noexcept {
  Capture* c = g_capture.load(std::memory_order_acquire);
  if (c != nullptr) c->snapshots.request();
}

// --- start and stop ----------------------------------------------------------

// Stream mode's output, or ring mode's claim and check of PATH and its crash
// file; the header once it is known where the trace goes.
Status open_output(Capture& c, const std::string& process) {
  if (c.options.mode == CaptureMode::stream) {
    auto target = open_stream_target(c.options.path);
    if (!target) return target.error();
    c.output_path = target.value().path;
    c.beside = target.value().beside;
    c.header_line = trace_header_line(process, c.origin, c.options.mode, c.beside);
    c.stream.open(std::move(target).value(), c.header_line, kWriterBufferBytes);
    return {};
  }
  // Check now that a trace can be written there; the file itself is left
  // as it is until a whole trace replaces it.
  auto claimed = claim_ring_target(c.options.path);
  if (!claimed) return claimed.error();
  c.output_path = claimed.value().path;
  c.beside = claimed.value().beside;
  c.ring_lock = std::move(claimed.value().lock);
  c.header_line = trace_header_line(process, c.origin, c.options.mode, c.beside);
  c.ring_crash.prepare(c.output_path, kWriterBufferBytes, c.strings, c.sites, kSiteCapacity);
  return {};
}

// In the child of a fork(): the capture is the parent's. Its writer thread
// is not in this process, so the capture can neither write nor stop; the
// child records nothing (a program it execs traces itself afresh), and
// closes its copies of the trace's descriptors, so that the file's lock
// lasts as long as the parent's own (trace_path_claim.hpp, invariant 4).
// The Capture is left as it is, never freed. Async-signal-safe, as the
// child of a multithreaded program must be until it execs.
void forget_capture_in_fork_child() noexcept {
  Capture* c = g_capture.load(std::memory_order_acquire);
  if (c == nullptr) return;
  g_capture.store(nullptr, std::memory_order_release);
  set_sink(c->previous_sink);
  uninstall_crash_handlers();
  c->stream.close_in_fork_child();
  c->ring_lock.close_in_fork_child();
}

// The buffer's on_chunk_filled (see "Waking the writer" in writer_thread.hpp).
void wake_writer(void* context, bool starved) {
  auto* c = static_cast<Capture*>(context);
  if (!starved && c->buffer.filled_count() < kWakeAtFilled) return;  // the writer's poll will find it
  c->writer.wake_if_waiting();
}

void stop_at_exit() { (void)stop(); }

}  // namespace

Status start(const CaptureOptions& options) {
  if (g_capture.load() != nullptr) return file_error(options.path, "a trace capture is already running");
  if (options.path.empty()) return file_error("SKEIN_TRACE", "no trace path given");
  // The budget may be more than this process can map (its address space
  // limit, the machine's memory): an error then, and the program runs on
  // untraced. The rest is small, but made with new.
  auto memory = ChunkMemory::map(options.budget_bytes);
  if (!memory) return memory.error();
  std::unique_ptr<Capture> capture;
  try {
    capture = std::make_unique<Capture>(options, std::move(memory).value());
  } catch (const std::bad_alloc&) {
    return file_error(options.path, "no memory left for the capture's tables");
  }
  Capture& c = *capture;
  c.origin = tick_origin();
  if (Status s = open_output(c, process_name()); !s.ok()) return s;
  if (c.beside) std::fputs(c.beside->line(c.output_path).c_str(), stderr);
  c.buffer.on_chunk_filled = wake_writer;
  c.buffer.on_chunk_filled_context = &c;

  Capture* raw = capture.release();
  g_capture.store(raw, std::memory_order_release);
  raw->writer.start([raw] { run_writer(*raw); });
  if (options.crash_handlers)
    install_crash_handlers(crash_flush, options.mode == CaptureMode::ring ? request_snapshot : nullptr);
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit(stop_at_exit);
    pthread_atfork(nullptr, nullptr, forget_capture_in_fork_child);
  }
  raw->previous_sink = set_sink(&raw->sink);
  return {};
}

Status start(const std::string& path) {
  CaptureOptions options;
  options.path = path;
  return start(options);
}

Status start_from_environment() {
  const char* path = std::getenv("SKEIN_TRACE");
  if (path == nullptr || *path == '\0') return {};
  CaptureOptions options;
  options.path = path;
  if (const char* mode = std::getenv("SKEIN_TRACE_MODE"); mode != nullptr && *mode != '\0') {
    if (std::strcmp(mode, "ring") == 0) options.mode = CaptureMode::ring;
    else if (std::strcmp(mode, "stream") != 0)
      return file_error("SKEIN_TRACE_MODE", std::string("unknown mode '") + mode + "' (stream or ring)");
  }
  if (const char* mb = std::getenv("SKEIN_TRACE_BUFFER_MB"); mb != nullptr && *mb != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(mb, &end, 10);
    if (end == mb || *end != '\0' || value == 0 || value > 65536)
      return file_error("SKEIN_TRACE_BUFFER_MB", std::string("expected a number of MiB from 1 to 65536, got '") + mb + "'");
    options.budget_bytes = static_cast<std::size_t>(value) << 20;
  }
  return start(options);
}

Status stop() {
  Capture* c = g_capture.load();
  if (c == nullptr || c->crash.crashed()) return {};
  set_sink(c->previous_sink);
  c->end_ticks = read_ticks();
  c->final_dropped = c->buffer.dropped();
  c->buffer.hand_over_current();
  c->writer.request_stop();
  c->writer.join();
  // The writer thread adds the counts of the (lost ...) records it takes
  // to records_lost until it ends; the final drops are added here, once it
  // is joined, so the two never race (writer_stats.hpp, invariant 1).
  c->stats.add_final_drops(c->final_dropped);
  uninstall_crash_handlers();
  if (stats_requested()) c->stats.print(c->sink.refused());
  if (const std::string refusal = c->sink.refusal_line(); !refusal.empty()) std::fputs(refusal.c_str(), stderr);
  g_capture.store(nullptr);
  Status status = c->options.mode == CaptureMode::stream ? c->stream.error() : c->snapshots.first_error();
  delete c;
  return status;
}

bool capturing() { return g_capture.load() != nullptr; }

Status snapshot() {
  Capture* c = g_capture.load();
  if (c == nullptr) return file_error("snapshot", "no trace capture is running");
  if (c->options.mode != CaptureMode::ring) return file_error(c->options.path, "snapshots are for ring mode");
  // The writer thread writes it (see "The output"); this thread waits.
  return c->snapshots.request_and_wait(c->writer);
}

CaptureStats capture_stats() {
  CaptureStats stats;
  if (Capture* c = g_capture.load()) {
    stats.records_dropped = c->buffer.dropped();
    stats.records_overwritten = c->buffer.overwritten();
    stats.strings_overflowed = c->strings.overflowed();
    stats.records_unwritten = c->stats.records_unwritten.load(std::memory_order_relaxed);
  }
  return stats;
}

}  // namespace skein::trace
