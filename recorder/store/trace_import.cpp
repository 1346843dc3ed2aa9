// trace_import.cpp — the import pipeline; see trace_import.hpp.
#include "recorder/store/trace_import.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/database_path.hpp"
#include "recorder/store/edge_bins.hpp"
#include "recorder/store/event_block_codec.hpp"
#include "recorder/store/events_table.hpp"
#include "recorder/store/model_derivation.hpp"
#include "recorder/store/row_extents.hpp"
#include "recorder/store/row_spans.hpp"
#include "recorder/output/output_file.hpp"
#include "recorder/store/store_writer.hpp"

namespace skein {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kBatchRows = 16384;
constexpr std::size_t kBatches = 4;  // in flight between the threads, at most

// A point the parsing thread reaches once, which the writer can wait for:
// reach() may be called again (the parser's way out calls it whatever
// happened, so that no wait lasts forever).
class Milestone {
 public:
  void reach() {
    std::lock_guard lock(mutex_);
    reached_ = true;
    ready_.notify_all();
  }
  void wait() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return reached_; });
  }
  [[nodiscard]] bool reached() {
    std::lock_guard lock(mutex_);
    return reached_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  bool reached_ = false;
};

// One batch of the queue: the event blocks completed while kBatchRows
// records were parsed, each with its records packed, the activations that
// closed meanwhile, and the runs of counter rows that filled (written
// after them).
struct ImportBatch {
  std::size_t records = 0;
  std::vector<ActivationRow> activations;
  std::vector<EventBlockRow> blocks;
  std::vector<std::unique_ptr<CounterRun>> counters;
  void clear() {
    records = 0;
    activations.clear();
    blocks.clear();
    counters.clear();
  }
};

// Batches go parser -> writer through `full` and come back through `free`.
// close() ends the stream (the parser is done); abort() makes both sides
// give up (the writer failed).
class BatchQueue {
 public:
  BatchQueue() {
    for (std::size_t i = 0; i < kBatches; ++i) {
      free_.push_back(std::make_unique<ImportBatch>());
    }
  }

  // Parser: an empty batch to fill; null when aborted.
  std::unique_ptr<ImportBatch> take_free() {
    std::unique_lock lock(mutex_);
    free_ready_.wait(lock, [&] { return aborted_ || !free_.empty(); });
    if (aborted_) return nullptr;
    auto b = std::move(free_.front());
    free_.pop_front();
    return b;
  }
  void push_full(std::unique_ptr<ImportBatch> b) {
    std::lock_guard lock(mutex_);
    full_.push_back(std::move(b));
    full_ready_.notify_one();
  }
  void close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    full_ready_.notify_one();
  }

  // Writer: the next full batch; null at the end of the stream.
  std::unique_ptr<ImportBatch> take_full() {
    std::unique_lock lock(mutex_);
    full_ready_.wait(lock, [&] { return closed_ || !full_.empty(); });
    if (full_.empty()) return nullptr;
    auto b = std::move(full_.front());
    full_.pop_front();
    return b;
  }
  void give_back(std::unique_ptr<ImportBatch> b) {
    b->clear();
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(b));
    free_ready_.notify_one();
  }
  void abort() {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    free_ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable free_ready_;
  std::condition_variable full_ready_;
  std::deque<std::unique_ptr<ImportBatch>> free_;
  std::deque<std::unique_ptr<ImportBatch>> full_;
  bool closed_ = false;
  bool aborted_ = false;
};

// What the parsing thread hands over when it is done.
struct ParseOutcome {
  ImportResult::Failure failure = ImportResult::Failure::none;
  Diagnostic error;
  std::optional<DerivedModel> model;
  std::vector<std::unique_ptr<CounterRun>> last_counters;  // the last runs, sorted while the writer drains
  std::vector<CounterRange> counter_ranges;
  std::vector<DerivationWarningRow> derivation_warnings;
  std::uint64_t derivation_warning_count = 0;
  // Set by the parsing thread before it closes the queue: the fields above
  // are the writer's from then on.
  bool threads_final = false;
  // Reached once the threads are placed (or the parser gave up): the
  // writer stores the placement from then on, while the parser builds the
  // rows' spans. Out of memory while placing them, after the hand-over, is
  // placement_failed, read once `placed` is reached; while building the
  // rows' spans, row_spans_failed, read after the parsing thread is joined.
  Milestone placed;
  bool placement_failed = false;
  bool row_spans_failed = false;
  // Every activation's thread and times, kept by the parsing thread for
  // the rows' spans; and those spans (row_spans.hpp), built with the
  // placement, for the writer after it.
  ActivationLog activation_spans;
  // The idle records' times and the gc records' bands, for the bands' rows.
  std::vector<TimeNs> idle_starts;
  std::vector<RowSpanBand> gc_bands;
  std::vector<RowSpanChunk> row_spans;
  TimeNs row_spans_span = 0;
  // The rows' extents (row_extents.hpp), from the same threads.
  std::vector<RowExtent> row_extents;
  // The edges per bin (edge_bins.hpp): counted as they are parsed, their
  // levels chosen at the end.
  EdgeBinCounter edge_counter;
  EdgeBins edge_bins;
  // The run time per bin of the whole trace (run_time_bins.hpp), from the
  // same placed activations.
  ActivityBinning activity_binning;
  std::vector<std::int64_t> activity;
  // And per cell of the subsecond heat map.
  ActivityBinning subsecond_binning;
  std::vector<std::int64_t> subsecond;
};

void keep_activation_spans(const std::vector<ActivationRow>& activations, ActivationLog& into) {
  for (const ActivationRow& a : activations) into.add(a.thread, a.start, a.end);
}

// The rows' spans of a placed model: each thread as the timeline draws it
// (created to resolved, or to the trace's end while pending, as the
// layout reads it), on its row.
void build_row_spans(ParseOutcome& out) {
  const DerivedModel& m = *out.model;
  if (m.layout_rows.size() != m.threads.size()) return;
  const TimeNs trace_end = m.end_time != kNoTime ? m.end_time : m.first_time != kNoTime ? m.first_time : 0;
  const TimeNs first = m.first_time != kNoTime ? m.first_time : 0;
  std::vector<RowSpanThread> threads;
  threads.reserve(m.threads.size());
  for (std::size_t i = 0; i < m.threads.size(); ++i) {
    const ThreadRow& t = m.threads[i];
    RowSpanThread r;
    r.id = t.id;
    r.start = t.created;
    r.end = std::max(t.created, t.resolved != kNoTime ? t.resolved : trace_end);
    r.row = m.layout_rows[i];
    r.outcome = t.resolved == kNoTime        ? RowSpanOutcome::pending
                : t.outcome == Outcome::fail ? RowSpanOutcome::fail
                : t.outcome == Outcome::cancel ? RowSpanOutcome::cancel
                                               : RowSpanOutcome::ok;
    threads.push_back(r);
  }
  keep_activation_spans(m.activations, out.activation_spans);
  out.row_spans_span = std::max<TimeNs>(1, trace_end - first);
  // The times the viewer reads from meta: first_time, else 0; end_time,
  // else first_time.
  const TimeNs meta_first = m.first_time != kNoTime ? m.first_time : 0;
  out.activity_binning = activity_binning(meta_first, m.end_time != kNoTime ? m.end_time : meta_first);
  out.subsecond_binning = subsecond_binning(meta_first, m.end_time != kNoTime ? m.end_time : meta_first);
  std::array<RunTimeHistogram, 2> histograms{
      RunTimeHistogram(out.activity_binning.first, out.activity_binning.bin_ns, out.activity_binning.bins),
      RunTimeHistogram(out.subsecond_binning.first, out.subsecond_binning.bin_ns, out.subsecond_binning.bins)};
  out.row_spans = skein::build_row_spans(threads, out.activation_spans, out.row_spans_span, histograms);
  out.row_extents = build_row_extents(threads);
  out.activity = histograms[0].finish();
  out.subsecond = histograms[1].finish();
  // The bands, as the timeline derives them from the records (every
  // activation's start as stored, the trace's end as meta gives it).
  std::vector<TimeNs> starts;
  if (!out.idle_starts.empty()) {
    starts.reserve(out.activation_spans.size());
    out.activation_spans.for_each([&](ThreadId, TimeNs start, TimeNs) { starts.push_back(start); });
  }
  out.activation_spans = {};
  const std::vector<RowSpanBand> idle =
      idle_bands(starts, out.idle_starts, m.end_time != kNoTime ? m.end_time : meta_first);
  std::sort(out.gc_bands.begin(), out.gc_bands.end(),
            [](const RowSpanBand& a, const RowSpanBand& b) { return a.start < b.start; });
  build_band_spans(idle, out.gc_bands, out.row_spans_span, out.row_spans);
}

void parse_records(TraceSource& source, BatchQueue& queue, const ImportOptions& options,
                   std::atomic<std::uint64_t>& bytes_done, std::atomic<std::uint64_t>& records_done,
                   std::atomic<bool>& stop, ParseOutcome& out) {
  ModelDerivation derivation([&source] { return source.record_location(); });
  CounterRuns counters;
  // Each record is packed into its block's blob as it is read; a blob
  // waits here until the derivation closes its block (it does so at the
  // first record of the next one, or at finish()).
  EventBlockEncoder encoder;
  std::deque<std::string> packed;
  const auto take_blocks = [&](std::vector<EventBlockRow>& into) {
    const std::size_t from = into.size();
    derivation.take_blocks(into);
    for (std::size_t i = from; i < into.size() && !packed.empty(); ++i) {
      into[i].records = std::move(packed.front());
      packed.pop_front();
    }
  };
  std::unique_ptr<ImportBatch> batch = queue.take_free();
  const auto fail = [&](ImportResult::Failure f, Diagnostic d) {
    out.failure = f;
    out.error = std::move(d);
  };
  while (batch != nullptr) {
    const TraceSource::Step step = source.next();
    if (step == TraceSource::Step::end) break;
    if (step == TraceSource::Step::error) {
      fail(ImportResult::Failure::invalid, source.error());
      break;
    }
    const Record& record = source.record();
    const TraceEvent event = trace_event_of(record);
    encoder.add(event);
    if (event.has_time && is_edge_head(event.head)) out.edge_counter.add(event.time);
    if (encoder.records() == kEventBlockSize) packed.push_back(encoder.take());
    ++batch->records;
    derivation.add(record);
    if (const auto* c = std::get_if<CounterRecord>(&record))
      counters.add(c->name, c->time, c->value, static_cast<EventId>(derivation.records()));
    else if (const auto* idle = std::get_if<IdleRecord>(&record))
      out.idle_starts.push_back(idle->time);
    else if (const auto* gc = std::get_if<GcRecord>(&record))
      out.gc_bands.push_back(RowSpanBand{gc->time, saturating_add(gc->time, std::max<std::int64_t>(0, gc->duration))});
    if (options.strict && (derivation.warning_count() > 0 || source.warning_count() > 0)) {
      Diagnostic d = source.warning_count() > 0 ? source.warnings().front()
                                                : derivation.warnings().front().diagnostic;
      d.severity = Severity::error;
      d.message += " (--strict)";
      fail(ImportResult::Failure::invalid, std::move(d));
      break;
    }
    if (batch->records == kBatchRows) {
      derivation.take_activations(batch->activations);
      keep_activation_spans(batch->activations, out.activation_spans);
      take_blocks(batch->blocks);
      batch->counters = counters.take_full();
      bytes_done.store(source.bytes_consumed(), std::memory_order_relaxed);
      records_done.store(derivation.records(), std::memory_order_relaxed);
      queue.push_full(std::move(batch));
      if (stop.load(std::memory_order_relaxed) ||
          (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed))) {
        fail(ImportResult::Failure::cancelled, file_error(source.name(), "import cancelled"));
        break;
      }
      batch = queue.take_free();
    }
  }
  // The source's warnings arrive at the end too (truncation).
  if (out.failure == ImportResult::Failure::none && options.strict && source.warning_count() > 0) {
    Diagnostic d = source.warnings().front();
    d.severity = Severity::error;
    d.message += " (--strict)";
    fail(ImportResult::Failure::invalid, std::move(d));
  }
  if (batch != nullptr && batch->records > 0) {
    derivation.take_activations(batch->activations);
    keep_activation_spans(batch->activations, out.activation_spans);
    take_blocks(batch->blocks);
    batch->counters = counters.take_full();
    queue.push_full(std::move(batch));
  }
  bytes_done.store(source.bytes_consumed(), std::memory_order_relaxed);
  records_done.store(derivation.records(), std::memory_order_relaxed);
  if (out.failure == ImportResult::Failure::none && batch == nullptr && stop.load())
    fail(ImportResult::Failure::cancelled, file_error(source.name(), "import cancelled"));
  if (out.failure == ImportResult::Failure::none) {
    out.derivation_warnings = derivation.warnings();
    out.derivation_warning_count = derivation.warning_count();
    out.model = derivation.finish_threads();
    if (encoder.records() > 0) packed.push_back(encoder.take());
    for (EventBlockRow& b : out.model->blocks) {
      if (packed.empty()) break;
      b.records = std::move(packed.front());
      packed.pop_front();
    }
    if (!packed.empty())
      fail(ImportResult::Failure::invalid,
           file_error(source.name(), "internal error: " + std::to_string(packed.size()) +
                                         " blocks of records packed but not derived"));
    out.last_counters = counters.finish();
    out.counter_ranges = counters.ranges();
  }
  // The threads are final: the writer may write them (closing the queue
  // hands `out` over) while this thread places them.
  out.threads_final = true;
  queue.close();
  if (out.failure == ImportResult::Failure::none) {
    place_threads(*out.model, rtree_node_bytes(static_cast<std::size_t>(options.page_size)));
    out.placed.reach();
    build_row_spans(out);
    out.edge_bins = out.edge_counter.finish();
  }
}

// The parsing thread's body. Running out of memory here is a failure like
// any other (the thread must not die of it: that would end the process
// and leave the temporary database behind); the queue is closed whatever
// happens, so the writer's loop ends.
void parse_all(TraceSource& source, BatchQueue& queue, const ImportOptions& options,
               std::atomic<std::uint64_t>& bytes_done, std::atomic<std::uint64_t>& records_done,
               std::atomic<bool>& stop, ParseOutcome& out) {
  try {
    parse_records(source, queue, options, bytes_done, records_done, stop, out);
  } catch (const std::bad_alloc&) {
    // What the parser held is freed by now; the message is made by the
    // calling thread. Once the threads were handed over, the writer reads
    // the model: only placement_failed (before `placed`) or
    // row_spans_failed (after) are this thread's to say then.
    if (out.threads_final) {
      (out.placed.reached() ? out.row_spans_failed : out.placement_failed) = true;
    } else {
      out.model.reset();
      out.last_counters.clear();
      out.failure = ImportResult::Failure::out_of_memory;
    }
  }
  out.placed.reach();
  queue.close();
}

// Running out of memory: the trace is named, and how far the import got.
ImportResult out_of_memory_failure(const std::string& trace, std::uint64_t records, const std::string& detail) {
  ImportResult r;
  r.failure = ImportResult::Failure::out_of_memory;
  r.error = file_error(trace, "out of memory while importing, after " + std::to_string(records) +
                                  " records" + (detail.empty() ? "" : " (" + detail + ")") +
                                  "; nothing was written");
  return r;
}

// Stops the parsing thread, when it still runs, before the pipeline's
// state goes away: the writer's side left early (an exception).
class ParserThread {
 public:
  ParserThread(BatchQueue& queue, std::atomic<bool>& stop) : queue_(queue), stop_(stop) {}
  ParserThread(const ParserThread&) = delete;
  ParserThread& operator=(const ParserThread&) = delete;
  ~ParserThread() {
    if (!thread_.joinable()) return;
    stop_ = true;
    queue_.abort();
    thread_.join();
  }
  template <class Body>
  void start(Body&& body) {
    thread_ = std::thread(std::forward<Body>(body));
  }
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  BatchQueue& queue_;
  std::atomic<bool>& stop_;
  std::thread thread_;
};

ImportResult database_failure(Diagnostic d) {
  ImportResult r;
  r.failure = ImportResult::Failure::database;
  r.error = std::move(d);
  return r;
}

}  // namespace

Result<SourceStamp> stamp_source(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return file_error(path, std::string("cannot open: ") + std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return file_error(path, std::string("cannot stat: ") + std::strerror(err));
  }
  SourceStamp stamp;
  stamp.size = static_cast<std::uint64_t>(st.st_size);
  stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  std::vector<unsigned char> head(64 * 1024);
  std::size_t got = 0;
  while (got < head.size()) {
    const ssize_t n = read(fd, head.data() + got, head.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  close(fd);
  stamp.head_crc32 = static_cast<std::uint32_t>(crc32(0L, head.data(), static_cast<uInt>(got)));
  return stamp;
}

ImportResult import_trace(const std::string& trace_path, const std::string& database_path,
                          const ImportOptions& options) {
  std::optional<SourceStamp> stamp;
  std::uint64_t total = 0;
  if (trace_path != "-") {
    struct stat st {};
    if (stat(trace_path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      auto s = stamp_source(trace_path);
      if (s) {
        stamp = s.value();
        total = s.value().size;
      }
    }
  }
  auto source = open_trace(trace_path);
  if (!source) {
    ImportResult r;
    r.failure = ImportResult::Failure::unreadable;
    r.error = source.error();
    return r;
  }
  return import_source(std::move(source).value(), database_path, options, stamp, total);
}

namespace {

ImportResult import_batches(TraceSource& source_ref, const std::string& database_path,
                            const ImportOptions& options, const std::optional<SourceStamp>& stamp,
                            std::uint64_t bytes_total, std::atomic<std::uint64_t>& records_done) {
  TraceSource* const source = &source_ref;
  const auto started = Clock::now();
  // Where SQLite cannot keep the database, or build it under its temporary
  // name, nothing is created (database_path.hpp).
  if (Status s = check_database_path(database_path, /*with_journal=*/true); !s.ok())
    return database_failure(s.error());
  const std::string temp = PendingFile::temp_path_for(database_path);
  if (auto problem = database_path_problem(temp, /*with_journal=*/false))
    return database_failure(file_error(database_path, "is built under the temporary name " + temp + ", which " +
                                                          *problem));
  auto output = OutputFile::open_database(database_path);
  if (!output) return database_failure(output.error());
  // Errors name the database the user asked for, not its temporary file.
  const auto failure = [&](Diagnostic d) {
    if (d.file == output.value().database_path()) d.file = database_path;
    return database_failure(std::move(d));
  };
  auto writer = StoreWriter::create(output.value().database_path(), options.page_size);
  if (!writer) return failure(writer.error());

  BatchQueue queue;
  std::atomic<std::uint64_t> bytes_done{0};
  std::atomic<bool> stop{false};
  ParseOutcome parsed;
  ParserThread parser(queue, stop);
  try {
    parser.start([&] { parse_all(*source, queue, options, bytes_done, records_done, stop, parsed); });
  } catch (const std::system_error& e) {
    // No thread to be had: memory (its stack) or the process's limit.
    return out_of_memory_failure(source->name(), 0, std::string("cannot start the parsing thread: ") + e.what());
  }

  ImportResult result;
  auto last_report = Clock::now();
  const auto report_progress = [&](bool finishing) {
    if (!options.progress) return;
    const auto now = Clock::now();
    if (!finishing && now - last_report < std::chrono::milliseconds(100)) return;
    last_report = now;
    ImportProgress p;
    p.bytes_done = bytes_done.load(std::memory_order_relaxed);
    p.bytes_total = bytes_total;
    p.records = records_done.load(std::memory_order_relaxed);
    p.seconds = std::chrono::duration<double>(now - started).count();
    p.finishing = finishing;
    options.progress(p);
  };

  // The writer's side of the queue. On a database error, it stops the
  // parser and keeps draining so that the parser never waits forever.
  Status written;
  bool written_out_of_memory = false;
  double events_written_at = 0;
  while (auto batch = queue.take_full()) {
    if (written.ok()) {
      written = writer.value().add_blocks(batch->blocks);
      if (written.ok()) written = writer.value().add_activations(batch->activations);
      for (const auto& run : batch->counters)
        if (written.ok()) written = writer.value().add_counters(*run);
      events_written_at = std::chrono::duration<double>(Clock::now() - started).count();
      if (!written.ok()) {
        written_out_of_memory = writer.value().out_of_memory();
        stop = true;
        queue.abort();
      }
    }
    queue.give_back(std::move(batch));
    report_progress(false);
  }
  // The parser closed the queue once the threads were final, and goes on
  // placing them (place_threads) while they are written below; on any
  // failure it has nothing more to do.
  if (!written.ok() || parsed.failure != ImportResult::Failure::none) parser.join();
  if (!written.ok() && written_out_of_memory)
    return out_of_memory_failure(source->name(), records_done, "SQLite: " + written.error().to_string());
  if (!written.ok()) return failure(written.error());
  if (parsed.failure == ImportResult::Failure::out_of_memory)
    return out_of_memory_failure(source->name(), records_done, "");
  if (parsed.failure != ImportResult::Failure::none) {
    result.failure = parsed.failure;
    result.error = parsed.error;
    return result;  // `output` removes the temporary file
  }
  report_progress(true);

  const DerivedModel& model = *parsed.model;
  ImportReport& report = result.report;
  report.events_written_at = events_written_at;
  report.model_ready_at = std::chrono::duration<double>(Clock::now() - started).count();
  report.format = std::string(source->format_name());
  report.records = model.records;
  report.threads = model.threads.size();
  report.truncated = source->truncated();
  report.warning_count = source->warning_count() + parsed.derivation_warning_count;
  for (const Diagnostic& w : source->warnings()) report.warnings.push_back(w);
  for (const DerivationWarningRow& w : parsed.derivation_warnings) report.warnings.push_back(w.diagnostic);

  StoreWriter& w = writer.value();
  const auto check = [&](Status s) {
    if (!s.ok() && written.ok()) written = std::move(s);
  };
  check(w.add_threads(model));
  for (const auto& run : parsed.last_counters) check(w.add_counters(*run));
  check(w.add_counter_ranges(parsed.counter_ranges));
  // The placement, while the parser builds the rows' spans; then those.
  parsed.placed.wait();
  if (parsed.placement_failed) {
    parser.join();
    return out_of_memory_failure(source->name(), records_done, "");
  }
  check(w.add_placement(model));
  parser.join();
  if (parsed.row_spans_failed) return out_of_memory_failure(source->name(), records_done, "");
  // All three are built after the placement (row_spans_span > 0 then).
  if (parsed.row_spans_span > 0) {
    check(w.add_row_spans(parsed.row_spans, parsed.row_spans_span));
    check(w.add_row_extents(parsed.row_extents));
    check(w.add_activity_bins(parsed.activity_binning, parsed.activity));
    check(w.add_subsecond_bins(parsed.subsecond_binning, parsed.subsecond));
    check(w.add_edge_bins(parsed.edge_bins));
  }
  if (!written.ok() && w.out_of_memory())
    return out_of_memory_failure(source->name(), records_done, "SQLite: " + written.error().to_string());
  report.model_written_at = std::chrono::duration<double>(Clock::now() - started).count();
  for (const Diagnostic& d : source->warnings()) check(w.add_warning("source", std::nullopt, d.to_string()));
  for (const DerivationWarningRow& d : parsed.derivation_warnings)
    check(w.add_warning(derivation_warning_name(d.kind), d.event, d.diagnostic.to_string()));

  check(w.set_meta("format", report.format));
  check(w.set_meta("source", source->name()));
  if (stamp) {
    check(w.set_meta("source_size", static_cast<std::int64_t>(stamp->size)));
    check(w.set_meta("source_mtime_ns", stamp->mtime_ns));
    check(w.set_meta("source_head_crc32", static_cast<std::int64_t>(stamp->head_crc32)));
  }
  for (const auto& [key, value] : source->header().options) check(w.set_meta("header." + key, value));
  check(w.set_meta("header.version", static_cast<std::int64_t>(source->header().version)));
  check(w.set_meta("records", static_cast<std::int64_t>(model.records)));
  check(w.set_meta("threads", static_cast<std::int64_t>(model.threads.size())));
  if (model.first_time != kNoTime) check(w.set_meta("first_time", model.first_time));
  if (model.end_time != kNoTime) check(w.set_meta("end_time", model.end_time));
  check(w.set_meta("ended", static_cast<std::int64_t>(model.ended)));
  check(w.set_meta("longest_gc", model.longest_gc));
  check(w.set_meta("truncated", static_cast<std::int64_t>(report.truncated)));
  check(w.set_meta("lost_records", static_cast<std::int64_t>(model.lost_records)));
  check(w.set_meta("lost_records_saturated", static_cast<std::int64_t>(model.lost_records_saturated)));
  check(w.set_meta("warnings", static_cast<std::int64_t>(report.warning_count)));
  check(w.set_meta("warnings.source", static_cast<std::int64_t>(source->warning_count())));
  for (std::size_t k = 0; k < kDerivationWarningKinds; ++k)
    check(w.set_meta("warnings." + std::string(derivation_warning_name(static_cast<DerivationWarning>(k))),
                     static_cast<std::int64_t>(model.warning_counts[k])));
  if (!written.ok()) return failure(written.error());
  if (Status s = w.finish(); !s.ok()) return failure(s.error());
  if (Status s = output.value().commit(options.sync); !s.ok()) return failure(s.error());
  report.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace

ImportResult import_source(std::unique_ptr<TraceSource> source, const std::string& database_path,
                           const ImportOptions& options, const std::optional<SourceStamp>& stamp,
                           std::uint64_t bytes_total) {
  std::atomic<std::uint64_t> records_done{0};
  try {
    return import_batches(*source, database_path, options, stamp, bytes_total, records_done);
  } catch (const std::bad_alloc&) {
    // Unwinding stopped the parser, closed the database and removed the
    // temporary file (ParserThread, StoreWriter, OutputFile).
    return out_of_memory_failure(source->name(), records_done, "");
  }
}

}  // namespace skein
