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
// Crash safety. Everything the crash path touches is allocated at start:
// the buffer, the string arena, the site table, the converter, the writer's
// buffer (kWriterBufferBytes, larger than any record) and, in ring mode, a
// file sink whose descriptor is opened in the handler. The handler uses only
// async-signal-safe system calls (open, write, close, clock_gettime,
// nanosleep) plus formatting into preallocated memory.
#include "recorder/trace_capture.hpp"

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

#include "recorder/byte_sink.hpp"
#include "recorder/capture_sink.hpp"
#include "recorder/capture_writer.hpp"
#include "recorder/site_table.hpp"
#include "recorder/string_arena.hpp"
#include "recorder/trace_writer.hpp"
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

// A sink over a descriptor opened later (the ring mode's crash path).
class LateFdSink final : public ByteSink {
 public:
  void set_fd(int fd) noexcept { fd_ = fd; }
  Status write(std::string_view bytes) override {
    while (!bytes.empty() && fd_ >= 0) {
      const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return {};  // best effort: nothing to report to from a crash
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return {};
  }
  Status close() override {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    return {};
  }

 private:
  int fd_ = -1;
};

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
  int prealloc_fd = -1;                         // stream mode: the file again, for fallocate
  off_t prealloc_end = 0;                       // blocks are allocated up to here
  LateFdSink* crash_sink = nullptr;             // ring mode: owned by crash_out
  std::unique_ptr<TraceWriter> crash_out;       // ring mode's crash path
  Sink* previous_sink = nullptr;

  std::thread writer;
  std::atomic<pthread_t> writer_thread{};
  std::mutex mutex;
  std::condition_variable wake;
  std::atomic<bool> writer_waiting{false};
  std::atomic<bool> stopping{false};
  std::atomic<bool> snapshot_requested{false};
  std::atomic<bool> crashed{false};
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
  std::uint64_t bytes_written = 0;
  std::int64_t writer_cpu_ns = 0;
  Status status;
  std::mutex snapshot_mutex;  // snapshot() callers against the writer thread
};

std::atomic<Capture*> g_capture{nullptr};
std::terminate_handler g_previous_terminate = nullptr;
bool g_handlers_installed = false;
struct sigaction g_previous_actions[NSIG];
constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTERM, SIGINT};
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
      ensure_calibrated(c, c.stopping.load());
      convert_chunk(c, index, 0);
      // Whole-buffer writes while chunks keep coming (a system call per
      // chunk costs a few ns a record); everything as soon as the writer
      // has caught up, so a reader of the file lags by at most one chunk.
      if (c.out->buffered() >= kFlushBytes || !c.buffer.has_filled()) {
        preallocate_ahead(c);
        Status flushed = c.out->flush();
        if (!flushed.ok() && c.status.ok()) c.status = flushed;
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
  ensure_calibrated(c, true);
  const TimeNs end = c.converter.calibration().to_ns(c.end_ticks);
  if (c.final_dropped > 0) c.out->write(LostRecord{end, static_cast<std::int64_t>(c.final_dropped)});
  c.out->write(EndRecord{end});
  c.bytes_written = c.out->bytes_written();
  Status finished = c.out->finish();
  if (!finished.ok() && c.status.ok()) c.status = finished;
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
void write_ring(Capture& c, TraceWriter& out, bool final, bool in_crash) {
  c.converter.reset_sites();
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
      if (first && lost > 0) out.write(LostRecord{c.converter.time_of(records[i]), static_cast<std::int64_t>(lost)});
      first = false;
      c.converter.write(out, records[i]);
    }
  });
  if (final) out.write(EndRecord{c.converter.calibration().to_ns(c.end_ticks != 0 ? c.end_ticks : read_ticks())});
}

Status write_ring_file(Capture& c, bool final) {
  ensure_calibrated(c, true);
  const std::string temp = c.options.path + ".tmp";
  auto out = TraceWriter::create(temp);
  if (!out) return out.error();
  write_ring(c, out.value(), final, false);
  Status finished = out.value().finish();
  if (!finished.ok()) return finished;
  if (std::rename(temp.c_str(), c.options.path.c_str()) != 0)
    return file_error(c.options.path, std::string("cannot replace: ") + std::strerror(errno));
  return {};
}

void ring_writer(Capture& c) {
  c.buffer.prefault(c.stopping);
  for (;;) {
    wait_for_work(c, kPollMax);
    if (c.snapshot_requested.exchange(false)) {
      std::lock_guard<std::mutex> guard(c.snapshot_mutex);
      Status s = write_ring_file(c, false);
      if (!s.ok() && c.status.ok()) c.status = s;
    }
    if (c.stopping.load()) break;
  }
  std::lock_guard<std::mutex> guard(c.snapshot_mutex);
  Status s = write_ring_file(c, true);
  if (!s.ok() && c.status.ok()) c.status = s;
}

// --- crash paths ------------------------------------------------------------

void crash_flush() noexcept {
  Capture* c = g_capture.load(std::memory_order_acquire);
  if (c == nullptr || c->crashed.exchange(true)) return;
  set_sink(c->previous_sink);  // no more records (plain stores: signal-safe)
  const bool on_writer = pthread_equal(c->writer_thread.load(), pthread_self()) != 0;
  if (!on_writer) {
    // Wait up to ~0.5 s for the writer to finish its chunk.
    int expected = kFileFree;
    for (int i = 0; i < 5000 && !c->file_owner.compare_exchange_strong(expected, kFileCrash); ++i) {
      expected = kFileFree;
      timespec pause{0, 100'000};
      nanosleep(&pause, nullptr);
    }
  }
  if (!c->calibrated) {
    c->converter.set_calibration(calibrate(c->origin, 0));
    c->calibrated = true;
  }
  if (c->options.mode == CaptureMode::stream) {
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
    (void)c->out->finish();
    // Only with the file held: a writer still writing could append between
    // the size read and the truncation.
    if (on_writer || c->file_owner.load() == kFileCrash) release_preallocation(*c);
  } else {
    const int fd = ::open(c->options.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    c->crash_sink->set_fd(fd);
    write_ring(*c, *c->crash_out, false, true);
    (void)c->crash_out->finish();
  }
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

void install_handlers(const CaptureOptions& options) {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  stack_t alt{};
  alt.ss_sp = g_alt_stack;
  alt.ss_size = sizeof g_alt_stack;
  sigaltstack(&alt, nullptr);
  for (int sig : kFatalSignals) {
    struct sigaction action {};
    action.sa_handler = on_fatal_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_ONSTACK;
    sigaction(sig, &action, &g_previous_actions[sig]);
  }
  if (options.mode == CaptureMode::ring) {
    struct sigaction action {};
    action.sa_handler = on_usr1;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(SIGUSR1, &action, &g_previous_actions[SIGUSR1]);
  }
  g_previous_terminate = std::set_terminate(on_terminate);
}

void uninstall_handlers() {
  if (!g_handlers_installed) return;
  g_handlers_installed = false;
  for (int sig : kFatalSignals) sigaction(sig, &g_previous_actions[sig], nullptr);
  sigaction(SIGUSR1, &g_previous_actions[SIGUSR1], nullptr);
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

  if (options.mode == CaptureMode::stream) {
    auto out = TraceWriter::create(options.path);
    if (!out) return out.error();
    c.out = std::make_unique<TraceWriter>(std::move(out).value());
    c.out->reserve_buffer(kWriterBufferBytes);
    c.out->write_line(c.header_line);
    Status flushed = c.out->flush();
    if (!flushed.ok()) return flushed;
    c.prealloc_fd = ::open(options.path.c_str(), O_WRONLY | O_CLOEXEC);  // -1: no preallocation
  } else {
    // Check now that the file can be written; it is filled at the end.
    const int fd = ::open(options.path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return file_error(options.path, std::string("cannot create: ") + std::strerror(errno));
    ::close(fd);
    auto late = std::make_unique<LateFdSink>();
    c.crash_sink = late.get();
    c.crash_out = std::make_unique<TraceWriter>(std::move(late));
    c.crash_out->reserve_buffer(kWriterBufferBytes);
  }
  c.buffer.on_chunk_filled = wake_writer;
  c.buffer.on_chunk_filled_context = &c;
  c.buffer.now_ticks = now_ticks;

  Capture* raw = capture.release();
  g_capture.store(raw, std::memory_order_release);
  raw->writer = std::thread([raw] {
    raw->writer_thread.store(pthread_self());
    if (raw->options.mode == CaptureMode::stream) stream_writer(*raw);
    else ring_writer(*raw);
    timespec cpu{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
    raw->writer_cpu_ns = static_cast<std::int64_t>(cpu.tv_sec) * 1'000'000'000 + cpu.tv_nsec;
  });
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
    std::fprintf(stderr, "skein: trace stats: records=%llu lost=%llu bytes=%llu writer_cpu_ns=%lld refused=%llu\n",
                 static_cast<unsigned long long>(c->records_written),
                 static_cast<unsigned long long>(c->dropped_total),
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
  std::lock_guard<std::mutex> guard(c->snapshot_mutex);
  return write_ring_file(*c, false);
}

CaptureStats capture_stats() {
  CaptureStats stats;
  if (Capture* c = g_capture.load()) {
    stats.records_dropped = c->buffer.dropped();
    stats.records_overwritten = c->buffer.overwritten();
    stats.strings_overflowed = c->strings.overflowed();
  }
  return stats;
}

}  // namespace skein::trace
