// trace_capture.cpp — the capture's lifecycle: start, the writer thread, stop,
// and the crash paths. See trace_capture.hpp for what users see.
//
// Threads. The scheduler thread is the producer: the runtime's hooks append
// to the CaptureBuffer through the record window it opens, and CaptureSink
// takes what the window cannot (capture_sink.hpp). The writer thread consumes: in stream mode it
// converts each full chunk to text (CapturedRecordWriter, TraceWriter) and
// gives the chunk back; in ring mode it sleeps until asked for a snapshot.
//
// Waking the writer. The writer is not woken for every chunk: it polls,
// every kPollMin while it finds chunks to convert, backing off to kPollMax
// while it finds none, and the scheduler thread wakes it only once the
// filled chunks reach a high-water mark (kWakeAtFilled, 512 KiB of records)
// or the producer could take no chunk, so a burst faster than the polls
// neither waits long for a sleeping writer nor loses records to it. A wake
// is a futex call that, on a virtual machine, sends an inter-processor
// interrupt and tends to bring the writer onto the waker's own CPU (the
// kernel's wake-affine rule), where it competes with the program: side by
// side on a two-CPU virtual machine, traced `blockread` ran 12-21% longer
// than untraced with a wake per chunk, and 0-3% longer with none. The price
// is that a reader of the file lags the program by up to kPollMin (while it
// is busy), and an idle program's writer wakes twenty times a second.
//
// The file lock. The writer's TraceWriter is used by the writer thread and,
// on a crash, by the crash handler, never both: `file_owner` is taken by a
// compare-and-swap around every use (0 free, 1 writer, 2 crash handler). A
// handler on another thread waits a bounded time for the writer to finish
// its chunk; a handler on the writer thread itself goes on from the last
// record the writer converted.
//
// Preallocation (stream mode). A buffered write to ext4 spends much of its
// kernel time reserving and allocating the file's blocks page by page (a
// third of the writer thread's time on a busy capture). The writer therefore
// allocates the file's blocks ahead in large extents with
// fallocate(FALLOC_FL_KEEP_SIZE), which leaves the file's size alone, so a
// reader (or a crash) still sees exactly what was written; at the end (a stop
// or the crash path) ftruncate to the written size gives the rest back.
// Where fallocate is not supported, nothing changes.
//
// The output (capture_output.hpp). Every write to the trace's output is
// made by the writer thread, which blocks every asynchronous signal, or by
// the crash path: never by the program's own threads, so that a reader that
// goes away (EPIPE) cannot kill the program, and a FIFO without a reader
// cannot hold it up. snapshot() therefore asks the writer thread and waits
// for it. Once a write meets EPIPE, the writer says so once on stderr and
// from then on gives chunks back unwritten, counting their records
// (records_unwritten); the program goes on, and the writer keeps its usual
// polls (no busy loop).
//
// Signals. The handlers cover every signal whose default action ends the
// process (kFlushedSignals), but only where that default is still in force
// at start: a signal the program ignores or handles itself is left to it.
// Each handler writes what is buffered, then restores the default action and
// re-raises, so the exit status is the signal's. A second fatal signal on
// another thread waits (bounded) for the first one's flush to end before it
// re-raises. At stop a handler is taken out only if it is still the one the
// capture installed. In ring mode SIGUSR1 asks for a snapshot instead.
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
#include "recorder/capture/trace_capture.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "recorder/format/byte_sink.hpp"
#include "recorder/capture/capture_output.hpp"
#include "recorder/capture/capture_sink.hpp"
#include "recorder/capture/capture_writer.hpp"
#include "recorder/capture/site_table.hpp"
#include "recorder/capture/string_arena.hpp"
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
constexpr int kFileFree = 0;
constexpr int kFileWriter = 1;
constexpr int kFileCrash = 2;

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

struct Capture {
  explicit Capture(const CaptureOptions& o)
      : options(o),
        strings(kStringArenaBytes),
        sites(kSiteCapacity, strings),
        buffer(o.budget_bytes, o.mode),
        sink(buffer, strings, sites),
        converter(strings, sites, kSiteCapacity),
        scratch(std::make_unique<Chunk>()) {}

  CaptureOptions options;
  std::string header_line;
  TickCalibration origin;
  StringArena strings;
  SiteTable sites;
  CaptureBuffer buffer;
  CaptureSink sink;
  CapturedRecordWriter converter;
  std::unique_ptr<Chunk> scratch;  // ring snapshots copy a chunk here first
  std::unique_ptr<TraceWriter> out;             // stream mode: the file
  CaptureFdSink* out_fd = nullptr;              // stream mode: out's descriptor sink
  ByteSink* out_top = nullptr;                  // stream mode: out's outermost sink (gzip or out_fd)
  StreamTarget target;                          // stream mode: what SKEIN_TRACE named
  std::string no_reader_message;                // stream mode: a FIFO no reader opened
  int prealloc_fd = -1;                         // stream mode: the file again, for fallocate
  off_t prealloc_end = 0;                       // blocks are allocated up to here
  CaptureFdSink* crash_sink = nullptr;          // ring mode: crash_out's descriptor sink
  ByteSink* crash_top = nullptr;                // ring mode: crash_out's outermost sink
  std::unique_ptr<TraceWriter> crash_out;       // ring mode's crash path
  std::unique_ptr<CapturedRecordWriter> crash_converter;  // ring mode's crash path
  CrashRingPaths crash_paths;                   // ring mode's crash path
  Sink* previous_sink = nullptr;

  std::thread writer;
  std::atomic<pthread_t> writer_thread{};
  std::mutex mutex;
  std::condition_variable wake;
  std::atomic<bool> writer_waiting{false};
  std::atomic<bool> stopping{false};
  std::atomic<bool> snapshot_requested{false};
  std::atomic<bool> crashed{false};
  std::atomic<bool> crash_flushed{false};  // the crash path is done writing
  std::atomic<bool> output_closed{false};  // stream mode: a write met EPIPE (said once on stderr)
  bool output_failed = false;              // stream mode: another write error (said once on stderr)
  bool out_finished = false;               // stream mode: out's sinks are closed and gone (file lock)
  std::atomic<int> file_owner{kFileFree};
  bool calibrated = false;
  // Where the writer is in the chunk it converts, for a crash on its thread.
  std::atomic<std::int64_t> converting{-1};
  std::atomic<std::uint32_t> converted{0};
  std::uint64_t end_ticks = 0;
  std::uint64_t final_dropped = 0;
  std::uint64_t dropped_total = 0;
  // Statistics (SKEIN_TRACE_STATS=1 prints them at stop).
  std::uint64_t records_written = 0;
  std::atomic<std::uint64_t> records_unwritten{0};  // given back unwritten after EPIPE
  std::uint64_t bytes_written = 0;
  std::int64_t writer_cpu_ns = 0;
  Status status;
  // snapshot() callers wait for the writer thread's snapshot (under mutex).
  std::condition_variable snapshot_done;
  std::uint64_t snapshots_written = 0;
  Status snapshot_status;
};

std::atomic<Capture*> g_capture{nullptr};
std::terminate_handler g_previous_terminate = nullptr;
bool g_handlers_installed = false;
struct sigaction g_previous_actions[NSIG];
bool g_handler_installed[NSIG] = {};
// Every signal whose default action ends the process (signal(7)): the
// faults first, then the others, then (for_each_flushed_signal) the real-time
// signals the C library leaves to programs, SIGRTMIN to SIGRTMAX, whose
// default is to end the process too. SIGUSR1 is ring mode's snapshot
// request.
constexpr int kFlushedSignals[] = {SIGSEGV, SIGBUS,  SIGILL,  SIGFPE,  SIGABRT, SIGTRAP,   SIGSYS,
                                   SIGTERM, SIGINT,  SIGHUP,  SIGQUIT, SIGPIPE, SIGUSR1,   SIGUSR2,
                                   SIGALRM, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGPWR};
template <class F>
void for_each_flushed_signal(F&& f) {
  for (int sig : kFlushedSignals) f(sig);
  for (int sig = SIGRTMIN; sig <= SIGRTMAX && sig < NSIG; ++sig) f(sig);
}
// How long a second fatal signal waits for the first one's flush.
constexpr int kCrashWaitSteps = 100'000;  // of 100 µs: 10 s
alignas(16) char g_alt_stack[64 * 1024];

// --- the file lock -----------------------------------------------------------

void lock_file(Capture& c, int who) {
  int expected = kFileFree;
  while (!c.file_owner.compare_exchange_weak(expected, who, std::memory_order_acquire)) {
    expected = kFileFree;
    std::this_thread::yield();
  }
}
void unlock_file(Capture& c) { c.file_owner.store(kFileFree, std::memory_order_release); }

// --- stream mode ------------------------------------------------------------

// The first conversion waits until kMinCalibrationNs have passed since the
// origin (for an accurate rate), but not past a stop: a short program must
// not wait for the calibration at exit.
void ensure_calibrated(Capture& c, bool quick) {
  if (c.calibrated) return;
  while (!quick && !c.stopping.load() && monotonic_ns() - c.origin.ns0 < kMinCalibrationNs)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  c.converter.set_calibration(calibrate(c.origin, 0));
  c.calibrated = true;
}

void convert_chunk(Capture& c, std::uint32_t index, std::uint32_t from) {
  const Chunk& chunk = c.buffer.chunk(index);
  const std::uint32_t n = c.buffer.published(chunk);
  c.records_written += n - from;
  c.converting.store(index, std::memory_order_relaxed);
  for (std::uint32_t i = from; i < n; ++i) {
    // The producer wrote these lines on another core: ask for them early.
    __builtin_prefetch(&chunk.records[i + 16]);
    if (chunk.records[i].head == static_cast<std::uint8_t>(RecordHead::lost))
      c.dropped_total += static_cast<std::uint64_t>(chunk.records[i].a);
    c.converter.write(*c.out, chunk.records[i]);
    c.converted.store(i + 1, std::memory_order_relaxed);
  }
  c.converting.store(-1, std::memory_order_relaxed);
}

// After EPIPE: a chunk given back unwritten, its records counted.
void discard_chunk(Capture& c, std::uint32_t index) {
  const Chunk& chunk = c.buffer.chunk(index);
  const std::uint32_t n = c.buffer.published(chunk);
  for (std::uint32_t i = 0; i < n; ++i)
    if (chunk.records[i].head == static_cast<std::uint8_t>(RecordHead::lost))
      c.dropped_total += static_cast<std::uint64_t>(chunk.records[i].a);
  c.records_unwritten.fetch_add(n, std::memory_order_relaxed);
}

// A flush's outcome, said once on stderr: EPIPE stops the writing for good
// (see "The output"), another error is kept for stop() as before.
void note_flush(Capture& c, const Status& flushed) {
  if (flushed.ok()) return;
  if (c.out_fd != nullptr && c.out_fd->reader_gone()) {
    if (!c.output_closed.exchange(true))
      std::fprintf(stderr, "skein: trace output closed (EPIPE): tracing stopped; the program goes on\n");
    return;
  }
  if (c.status.ok()) c.status = flushed;
  if (!c.output_failed) {
    c.output_failed = true;
    std::fprintf(stderr, "skein: trace output failed: %s\n", flushed.error().to_string().c_str());
  }
}

// The writer's polling periods and high-water mark (see "Waking the
// writer").
constexpr std::chrono::milliseconds kPollMin{2};
constexpr std::chrono::milliseconds kPollMax{50};
constexpr std::size_t kWakeAtFilled = CaptureBuffer::kMinBacklogChunks / 2;

void wait_for_work(Capture& c, std::chrono::milliseconds period) {
  std::unique_lock<std::mutex> lock(c.mutex);
  c.writer_waiting.store(true);
  if (!c.buffer.has_filled() && !c.stopping.load() && !c.snapshot_requested.load())
    c.wake.wait_for(lock, period);
  c.writer_waiting.store(false);
}

// Stream mode, a FIFO with no reader at start: tries again every kPollMax
// until one opens it or the capture stops (capture_output.hpp). Filled
// chunks wait meanwhile, so only the stop ends a wait early.
void wait_for_reader(Capture& c) {
  while (!c.out_fd->attached()) {
    const int fd = open_fifo_for_writing(c.options.path.c_str(), c.target.follow);
    if (fd >= 0) {
      lock_file(c, kFileWriter);
      c.out_fd->attach(fd, true);
      unlock_file(c);
      return;
    }
    if (errno != ENXIO) {
      note_flush(c, file_error(c.options.path, std::string("cannot open the FIFO to write: ") + std::strerror(errno)));
      return;
    }
    if (c.stopping.load()) return;
    std::unique_lock<std::mutex> lock(c.mutex);
    (void)c.wake.wait_for(lock, kPollMax, [&] { return c.stopping.load(); });
  }
}

// Preallocation: once the file passes kPreallocFrom, its blocks are kept
// allocated at least kPreallocSlack past its end, in steps as large as the
// file (from kPreallocMin to kPreallocMax).
constexpr off_t kPreallocSlack = off_t{4} << 20;
constexpr off_t kPreallocMin = off_t{8} << 20;
constexpr off_t kPreallocMax = off_t{256} << 20;
// Only files that grow past this: a short capture's file is written in a few
// calls anyway, and giving blocks back at its end (ftruncate, a synchronous
// discard on a file system mounted with it) would cost its program's exit.
constexpr off_t kPreallocFrom = off_t{16} << 20;

void preallocate_ahead(Capture& c) {
  if (c.prealloc_fd < 0) return;
  struct stat st {};
  if (fstat(c.prealloc_fd, &st) != 0) return;
  if (st.st_size < kPreallocFrom) return;
  if (st.st_size + kPreallocSlack <= c.prealloc_end) return;
  const off_t step = std::clamp<off_t>(st.st_size, kPreallocMin, kPreallocMax);
  const off_t from = std::max(c.prealloc_end, st.st_size);
  if (fallocate(c.prealloc_fd, FALLOC_FL_KEEP_SIZE, from, st.st_size + step - from) != 0) {
    ::close(c.prealloc_fd);  // not supported here (or no space): write without
    c.prealloc_fd = -1;
    return;
  }
  c.prealloc_end = st.st_size + step;
}

// Gives back the blocks past the written end. Async-signal-safe (fstat,
// ftruncate, close), for the crash path too.
void release_preallocation(Capture& c) noexcept {
  if (c.prealloc_fd < 0) return;
  struct stat st {};
  if (c.prealloc_end > 0 && fstat(c.prealloc_fd, &st) == 0) (void)ftruncate(c.prealloc_fd, st.st_size);
  ::close(c.prealloc_fd);
  c.prealloc_fd = -1;
}

// The writer hands its buffer to the file once this much is formatted.
constexpr std::size_t kFlushBytes = kWriterBufferBytes / 2;
// Chunks the writer keeps faulted in past the producer's highest, at least
// (CaptureBuffer::prefault_ahead doubles it as the producer takes more).
// Each fault-in is cut short by a stop, so a short program does not wait
// at exit for memory it will never use.
constexpr std::uint32_t kPrefaultAheadChunks = 16;

void stream_writer(Capture& c) {
  wait_for_reader(c);
  if (c.out_fd->attached()) {
    // The header, at once: a reader of the file sees a trace from the start.
    lock_file(c, kFileWriter);
    note_flush(c, c.out->flush());
    unlock_file(c);
  }
  std::chrono::milliseconds poll = kPollMin;
  for (;;) {
    // Fresh memory only while the writer keeps up: a writer that is behind
    // converts, and the producer reuses the chunks it gives back
    // (capture_buffer.hpp, invariant 5).
    if (c.buffer.filled_count() < c.buffer.backlog_limit())
      c.buffer.prefault_ahead(kPrefaultAheadChunks, c.stopping);
    lock_file(c, kFileWriter);
    std::uint32_t index = 0;
    if (c.buffer.pop_filled(index)) {
      if (c.output_closed.load() || !c.out_fd->attached()) {
        discard_chunk(c, index);
      } else {
        ensure_calibrated(c, c.stopping.load());
        convert_chunk(c, index, 0);
        // Whole-buffer writes while chunks keep coming (a system call per
        // chunk costs a few ns a record); everything as soon as the writer
        // has caught up, so a reader of the file lags by at most one chunk.
        if (c.out->buffered() >= kFlushBytes || !c.buffer.has_filled()) {
          preallocate_ahead(c);
          note_flush(c, c.out->flush());
        }
      }
      c.buffer.give_back(index);
      unlock_file(c);
      poll = kPollMin;
      if (c.options.writer_delay_us > 0)
        std::this_thread::sleep_for(std::chrono::microseconds(c.options.writer_delay_us));
      continue;
    }
    unlock_file(c);
    if (c.stopping.load()) break;
    wait_for_work(c, poll);
    if (!c.buffer.has_filled()) poll = std::min(poll * 2, kPollMax);
  }
  lock_file(c, kFileWriter);
  if (!c.out_fd->attached() && !c.output_failed) {
    std::fprintf(stderr, "%s", c.no_reader_message.c_str());
  } else if (!c.output_closed.load()) {
    ensure_calibrated(c, true);
    const TimeNs end = c.converter.calibration().to_ns(c.end_ticks);
    if (c.final_dropped > 0) c.out->write(LostRecord{end, static_cast<std::int64_t>(c.final_dropped)});
    c.out->write(EndRecord{end});
    c.bytes_written = c.out->bytes_written();
    note_flush(c, c.out->flush());
  }
  Status finished = c.out->finish();
  c.out_finished = true;
  if (!finished.ok() && !c.output_closed.load() && c.status.ok()) c.status = finished;
  if (c.output_closed.load() && c.status.ok()) c.status = file_error(c.options.path, "trace output closed (EPIPE)");
  release_preallocation(c);
  unlock_file(c);
}

// --- ring mode ---------------------------------------------------------------

// Calls f(chunk) for every filled chunk, oldest first, without allocating.
template <class F>
void for_each_ring_chunk(Capture& c, F&& f) {
  std::uint64_t last = 0;
  for (;;) {
    std::uint64_t best = ~std::uint64_t{0};
    std::int64_t best_index = -1;
    for (std::uint32_t i = 0; i < c.buffer.chunk_count(); ++i) {
      const std::uint64_t seq = c.buffer.chunk(i).sequence.load(std::memory_order_acquire);
      if (seq > last && seq < best) {
        best = seq;
        best_index = i;
      }
    }
    if (best_index < 0) return;
    last = best;
    f(c.buffer.chunk(static_cast<std::uint32_t>(best_index)), best);
  }
}

// Writes the ring to `out`: header, (lost ...) for what was overwritten, the
// records oldest first, and (end) when `final`. A chunk overwritten while it
// is copied (the program goes on during a snapshot) is skipped and counted.
void write_ring(Capture& c, CapturedRecordWriter& converter, TraceWriter& out, bool final, bool in_crash) {
  converter.reset_sites();
  out.write_line(c.header_line);
  std::uint64_t lost = c.buffer.overwritten();
  bool first = true;
  for_each_ring_chunk(c, [&](Chunk& chunk, std::uint64_t seq) {
    const std::uint32_t n = c.buffer.published(chunk);
    const CapturedRecord* records = chunk.records;
    if (!in_crash) {
      std::memcpy(c.scratch->records, chunk.records, n * sizeof(CapturedRecord));
      std::atomic_thread_fence(std::memory_order_acquire);
      if (chunk.sequence.load(std::memory_order_relaxed) != seq) {
        lost += n;
        return;
      }
      records = c.scratch->records;
    }
    for (std::uint32_t i = 0; i < n; ++i) {
      if (first && lost > 0) out.write(LostRecord{converter.time_of(records[i]), static_cast<std::int64_t>(lost)});
      first = false;
      converter.write(out, records[i]);
    }
  });
  if (final) out.write(EndRecord{converter.calibration().to_ns(c.end_ticks != 0 ? c.end_ticks : read_ticks())});
}

// One whole trace to the ring's target, by output_file.hpp's rules
// (capture_output.hpp): a regular file is replaced once the trace is
// complete, a device, FIFO or link written through. Writer thread only.
Status write_ring_file(Capture& c, bool final) {
  ensure_calibrated(c, true);
  auto target = open_ring_target(c.options.path);
  if (!target) return target.error();
  if (target.value().no_reader) {
    std::fprintf(stderr, "skein: trace output %s is a FIFO with no reader: the ring's trace was not written\n",
                 c.options.path.c_str());
    return {};
  }
  TraceWriter out(std::move(target.value().sink));
  out.reserve_buffer(kWriterBufferBytes);
  write_ring(c, c.converter, out, final, false);
  Status finished = out.finish();
  if (!finished.ok()) return finished;  // a replacement not committed is removed; PATH stays
  return target.value().commit();
}

void write_ring_and_report(Capture& c, bool final) {
  Status s = write_ring_file(c, final);
  if (!s.ok()) std::fprintf(stderr, "skein: ring trace not written: %s\n", s.error().to_string().c_str());
  std::lock_guard<std::mutex> lock(c.mutex);
  if (!s.ok() && c.status.ok()) c.status = s;
  c.snapshot_status = std::move(s);
  ++c.snapshots_written;
  c.snapshot_done.notify_all();
}

void ring_writer(Capture& c) {
  c.buffer.prefault(c.stopping);
  for (;;) {
    wait_for_work(c, kPollMax);
    if (c.snapshot_requested.exchange(false)) write_ring_and_report(c, false);
    if (c.stopping.load()) break;
  }
  write_ring_and_report(c, true);
}

// --- crash paths ------------------------------------------------------------

void crash_flush() noexcept {
  Capture* c = g_capture.load(std::memory_order_acquire);
  if (c == nullptr) return;
  if (c->crashed.exchange(true)) {
    // Another thread's fatal signal is flushing: let it finish first.
    for (int i = 0; i < kCrashWaitSteps && !c->crash_flushed.load(); ++i) {
      timespec pause{0, 100'000};
      nanosleep(&pause, nullptr);
    }
    return;
  }
  set_sink(c->previous_sink);  // no more records (plain stores: signal-safe)
  const CrashSigpipeGuard no_sigpipe;  // a reader gone must not change how the process dies
  const bool on_writer = pthread_equal(c->writer_thread.load(), pthread_self()) != 0;
  if (!c->calibrated) {
    c->converter.set_calibration(calibrate(c->origin, 0));
    c->calibrated = true;
  }
  if (c->options.mode == CaptureMode::stream) {
    if (!on_writer) {
      // Wait up to ~0.5 s for the writer to finish its chunk.
      int expected = kFileFree;
      for (int i = 0; i < 5000 && !c->file_owner.compare_exchange_strong(expected, kFileCrash); ++i) {
        expected = kFileFree;
        timespec pause{0, 100'000};
        nanosleep(&pause, nullptr);
      }
    }
    if (c->out_finished) {
      // Stopped already: the file is complete.
      c->crash_flushed.store(true);
      return;
    }
    if (!c->out_fd->attached() && c->target.awaiting_reader) {
      // A reader may have come since the writer's last try.
      const int fd = open_fifo_for_writing(c->options.path.c_str(), c->target.follow);
      if (fd >= 0) c->out_fd->attach(fd, true);
    }
    c->out_fd->enter_crash_mode();
    if (c->out_fd->attached() && !c->output_closed.load()) {
      const std::int64_t half_done = c->converting.load();
      if (on_writer && half_done >= 0)
        convert_chunk(*c, static_cast<std::uint32_t>(half_done), c->converted.load());
      std::uint32_t index = 0;
      while (c->buffer.pop_filled(index)) convert_chunk(*c, index, 0);
      const std::int64_t current = c->buffer.current_index();
      if (current >= 0) convert_chunk(*c, static_cast<std::uint32_t>(current), 0);
      if (c->buffer.dropped() > 0)
        c->out->write(LostRecord{c->converter.calibration().to_ns(read_ticks()),
                                 static_cast<std::int64_t>(c->buffer.dropped())});
      (void)c->out->flush();
    }
    (void)c->out_top->close();
    // Only with the file held: a writer still writing could append between
    // the size read and the truncation.
    if (on_writer || c->file_owner.load() == kFileCrash) release_preallocation(*c);
  } else {
    bool rename_after = false;
    const int fd = open_crash_ring_target(c->crash_paths, rename_after);
    if (fd >= 0) {
      c->crash_sink->attach(fd, true);
      c->crash_sink->enter_crash_mode();
      c->crash_converter->set_calibration(c->converter.calibration());
      write_ring(*c, *c->crash_converter, *c->crash_out, false, true);
      (void)c->crash_out->flush();
      (void)c->crash_top->close();
      finish_crash_ring_target(c->crash_paths, rename_after);
    }
  }
  c->crash_flushed.store(true);
}

void on_fatal_signal(int sig) {
  const int saved_errno = errno;
  crash_flush();
  // Re-raise with the default action: the signal is blocked while we run,
  // so it is delivered when this handler returns.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
  errno = saved_errno;
}

void on_usr1(int) {
  Capture* c = g_capture.load(std::memory_order_acquire);
  if (c != nullptr) c->snapshot_requested.store(true);
}

[[noreturn]] void on_terminate() {
  crash_flush();
  if (g_previous_terminate != nullptr) g_previous_terminate();
  std::abort();
}

// The default action is in force (not ignored, no handler of the program's).
bool default_action(int sig, struct sigaction& current) {
  if (sigaction(sig, nullptr, &current) != 0) return false;
  return (current.sa_flags & SA_SIGINFO) == 0 && current.sa_handler == SIG_DFL;
}

void install_handlers(const CaptureOptions& options) {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  stack_t alt{};
  alt.ss_sp = g_alt_stack;
  alt.ss_size = sizeof g_alt_stack;
  sigaltstack(&alt, nullptr);
  // While one handler flushes, the other fatal signals wait on its thread
  // (SIGPIPE among them, which its writes may raise).
  sigset_t flushing;
  sigemptyset(&flushing);
  for_each_flushed_signal([&](int sig) { sigaddset(&flushing, sig); });
  for_each_flushed_signal([&](int sig) {
    g_handler_installed[sig] = false;
    if (!default_action(sig, g_previous_actions[sig])) return;  // the program's, or ignored: left to it
    struct sigaction action {};
    if (sig == SIGUSR1 && options.mode == CaptureMode::ring) {
      action.sa_handler = on_usr1;
      sigemptyset(&action.sa_mask);
      action.sa_flags = SA_RESTART;
    } else {
      action.sa_handler = on_fatal_signal;
      action.sa_mask = flushing;
      action.sa_flags = SA_ONSTACK;
    }
    g_handler_installed[sig] = sigaction(sig, &action, nullptr) == 0;
  });
  g_previous_terminate = std::set_terminate(on_terminate);
}

void uninstall_handlers() {
  if (!g_handlers_installed) return;
  g_handlers_installed = false;
  for_each_flushed_signal([](int sig) {
    if (!g_handler_installed[sig]) return;
    g_handler_installed[sig] = false;
    // A handler the program installed since is the program's to keep.
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0 || (current.sa_flags & SA_SIGINFO) != 0) return;
    if (current.sa_handler == on_fatal_signal || current.sa_handler == on_usr1)
      sigaction(sig, &g_previous_actions[sig], nullptr);
  });
  std::set_terminate(g_previous_terminate);
}

void wake_writer(void* context, bool starved) {
  auto* c = static_cast<Capture*>(context);
  if (!starved && c->buffer.filled_count() < kWakeAtFilled) return;  // the writer's poll will find it
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (c->writer_waiting.load()) {
    std::lock_guard<std::mutex> lock(c->mutex);
    c->wake.notify_one();
  }
}

std::uint64_t now_ticks() noexcept { return read_ticks(); }

void stop_at_exit() { (void)stop(); }

}  // namespace

Status start(const CaptureOptions& options) {
  if (g_capture.load() != nullptr) return file_error(options.path, "a trace capture is already running");
  if (options.path.empty()) return file_error("SKEIN_TRACE", "no trace path given");
  auto capture = std::make_unique<Capture>(options);
  Capture& c = *capture;

  TraceHeader header;
  header.set("process", process_name());
  header.set("pid", std::to_string(getpid()));
  c.origin = tick_origin();
  header.set("origin-unix-ns", std::to_string(realtime_ns() - (monotonic_ns() - c.origin.ns0)));
  if (options.mode == CaptureMode::ring) header.set("mode", "ring");
  c.header_line = format_header(header);

  const std::string name = options.path == "-" ? "<stdout>" : options.path;
  const bool gzip = options.path.size() > 3 && options.path.ends_with(".gz");
  if (options.mode == CaptureMode::stream) {
    auto target = open_stream_target(options.path);
    if (!target) return target.error();
    c.target = target.value();
    auto fd_sink = std::make_unique<CaptureFdSink>(name);
    c.out_fd = fd_sink.get();
    if (c.target.fd >= 0) c.out_fd->attach(c.target.fd, c.target.owned);
    std::unique_ptr<ByteSink> sink = std::move(fd_sink);
    if (gzip) sink = gzip_output(std::move(sink), name);
    c.out_top = sink.get();
    c.out = std::make_unique<TraceWriter>(std::move(sink));
    c.out->reserve_buffer(kWriterBufferBytes);
    c.out->write_line(c.header_line);  // written by the writer thread (see "The output")
    c.no_reader_message = "skein: trace output " + options.path +
                          " is a FIFO no reader opened while the program ran: the trace was not written\n";
    if (c.target.regular && c.target.owned) c.prealloc_fd = fcntl(c.target.fd, F_DUPFD_CLOEXEC, 3);  // -1: none
  } else {
    // Check now that a trace can be written there; PATH itself is left as
    // it is until a whole trace replaces it.
    if (Status s = check_ring_target(options.path); !s.ok()) return s;
    c.crash_paths = crash_ring_paths(options.path);
    auto fd_sink = std::make_unique<CaptureFdSink>(name);
    c.crash_sink = fd_sink.get();
    std::unique_ptr<ByteSink> sink = std::move(fd_sink);
    if (gzip) sink = gzip_output(std::move(sink), name);
    c.crash_top = sink.get();
    c.crash_out = std::make_unique<TraceWriter>(std::move(sink));
    c.crash_out->reserve_buffer(kWriterBufferBytes);
    c.crash_converter = std::make_unique<CapturedRecordWriter>(c.strings, c.sites, kSiteCapacity);
  }
  c.buffer.on_chunk_filled = wake_writer;
  c.buffer.on_chunk_filled_context = &c;
  c.buffer.now_ticks = now_ticks;

  Capture* raw = capture.release();
  g_capture.store(raw, std::memory_order_release);
  // The writer thread starts with every asynchronous signal blocked
  // (capture_output.hpp): it takes none of the program's, and its writes
  // cannot raise SIGPIPE in the process.
  const sigset_t writer_mask = writer_thread_signal_mask();
  sigset_t saved_mask;
  pthread_sigmask(SIG_BLOCK, &writer_mask, &saved_mask);
  raw->writer = std::thread([raw] {
    raw->writer_thread.store(pthread_self());
    if (raw->options.mode == CaptureMode::stream) stream_writer(*raw);
    else ring_writer(*raw);
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    raw->writer_cpu_ns = static_cast<std::int64_t>(cpu.tv_sec) * 1'000'000'000 + cpu.tv_nsec;
  });
  pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
  if (options.crash_handlers) install_handlers(options);
  static bool registered = false;
  if (!registered) {
    registered = true;
    std::atexit(stop_at_exit);
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
  if (c == nullptr || c->crashed.load()) return {};
  set_sink(c->previous_sink);
  c->end_ticks = read_ticks();
  c->final_dropped = c->buffer.dropped();
  c->dropped_total += c->final_dropped;
  c->buffer.hand_over_current();
  c->stopping.store(true);
  {
    std::lock_guard<std::mutex> lock(c->mutex);
    c->wake.notify_one();
  }
  c->writer.join();
  uninstall_handlers();
  if (const char* stats = std::getenv("SKEIN_TRACE_STATS"); stats != nullptr && std::strcmp(stats, "1") == 0)
    std::fprintf(stderr,
                 "skein: trace stats: records=%llu lost=%llu unwritten=%llu bytes=%llu writer_cpu_ns=%lld "
                 "refused=%llu\n",
                 static_cast<unsigned long long>(c->records_written),
                 static_cast<unsigned long long>(c->dropped_total),
                 static_cast<unsigned long long>(c->records_unwritten.load()),
                 static_cast<unsigned long long>(c->bytes_written), static_cast<long long>(c->writer_cpu_ns),
                 static_cast<unsigned long long>(c->sink.refused()));
  g_capture.store(nullptr);
  Status status = c->status;
  delete c;
  return status;
}

bool capturing() { return g_capture.load() != nullptr; }

Status snapshot() {
  Capture* c = g_capture.load();
  if (c == nullptr) return file_error("snapshot", "no trace capture is running");
  if (c->options.mode != CaptureMode::ring) return file_error(c->options.path, "snapshots are for ring mode");
  // The writer thread writes it (see "The output"); this thread waits.
  std::unique_lock<std::mutex> lock(c->mutex);
  const std::uint64_t before = c->snapshots_written;
  c->snapshot_requested.store(true);
  c->wake.notify_one();
  c->snapshot_done.wait(lock, [&] { return c->snapshots_written > before; });
  return c->snapshot_status;
}

CaptureStats capture_stats() {
  CaptureStats stats;
  if (Capture* c = g_capture.load()) {
    stats.records_dropped = c->buffer.dropped();
    stats.records_overwritten = c->buffer.overwritten();
    stats.strings_overflowed = c->strings.overflowed();
    stats.records_unwritten = c->records_unwritten.load(std::memory_order_relaxed);
  }
  return stats;
}

}  // namespace skein::trace
