// capture_test.cpp — the capture as users meet it: traces that say the same
// as the program did, crash safety, drops that are counted exactly, the
// flight recorder, the refusal of foreign OS threads, and the name a trace
// takes beside another's.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "recorder/capture/trace_capture.hpp"
#include "recorder/capture/trace_path_claim.hpp"
#include "recorder/format/trace_check.hpp"
#include "runtime/runtime.hpp"
#include "tests/support/record_text.hpp"
#include "tests/support/subprocess.hpp"

using namespace skein;

namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/skein-capture-" + std::to_string(getpid()) + "-" + name;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct TraceFile {
  std::vector<std::string> records;
  std::vector<std::string> errors;
  bool truncated = false;
  std::size_t count_prefix(const std::string& prefix) const {
    return static_cast<std::size_t>(std::count_if(records.begin(), records.end(), [&](const std::string& r) {
      return r.rfind(prefix, 0) == 0;
    }));
  }
  bool has(const std::string& text) const {
    return std::any_of(records.begin(), records.end(), [&](const std::string& r) { return r.find(text) != std::string::npos; });
  }
};

TraceFile read_trace(const std::string& path) {
  const auto r = test::read_all(slurp(path), path);
  return TraceFile{r.records, r.errors, r.truncated};
}

// The sum of COUNT over (lost TIME COUNT) records.
std::int64_t lost_total(const TraceFile& t) {
  std::int64_t total = 0;
  for (const auto& r : t.records) {
    if (r.rfind("(lost ", 0) != 0) continue;
    std::istringstream in(r.substr(6));
    std::int64_t time = 0, count = 0;
    in >> time >> count;
    total += count;
  }
  return total;
}

test::ProcessResult run_traced(const std::vector<std::string>& argv, const std::string& trace,
                               const std::vector<std::string>& extra_env = {}) {
  // Under AddressSanitizer (the asan preset), its own SIGSEGV handler would
  // report and exit before the capture's handler could flush; let ours run.
  std::vector<std::string> env = {"SKEIN_TRACE=" + trace, "ASAN_OPTIONS=handle_segv=0"};
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return test::run_process(argv, {}, env);
}

}  // namespace

TEST_CASE("tracing on and off give the same program results") {
  const std::string trace = temp_path("same.sexp");
  const std::vector<std::string> argv = {SKEIN_BLOCKREAD, "--requests", "48", "--latency-us", "10"};
  const auto plain = test::run_process(argv);
  const auto traced = run_traced(argv, trace);
  CHECK(plain.exit_code == 0);
  CHECK(traced.exit_code == 0);
  CHECK(plain.out == traced.out);
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  CHECK_FALSE(file.truncated);
  CHECK(file.count_prefix("(end ") == 1);
  CHECK(file.count_prefix("(label ") > 48);  // every B.read is labelled
  CHECK(file.has("\"blkfront.poll\""));
  std::remove(trace.c_str());
}

TEST_CASE("blockread --trace writes a trace that skein check accepts") {
  const std::string trace = temp_path("flag.sexp");
  const auto r = test::run_process({SKEIN_BLOCKREAD, "--requests", "8", "--trace", trace});
  REQUIRE(r.exit_code == 0);
  const std::string text = slurp(trace);  // memory_input does not copy
  TraceReader reader(memory_input(text, trace), trace);
  const TraceCheckReport report = check_trace(reader);
  CHECK(report.valid());
  CHECK(report.ended_cleanly);
  CHECK(report.warning_count == 0);
  REQUIRE(report.header.has_value());
  CHECK(*report.header->option("process") == "blockread");
  std::remove(trace.c_str());
}

TEST_CASE("times are stamped after a block, never carried over it") {
  // hello sleeps 10 ms: the loop records idle, blocks, then the timer's
  // notify. Records may share the time of the record before them, but not
  // across the block.
  const std::string trace = temp_path("hello.sexp");
  const auto r = run_traced({SKEIN_HELLO}, trace);
  REQUIRE(r.exit_code == 0);
  const auto file = read_trace(trace);
  std::int64_t idle = -1, notify = -1, sleep_spawn = -1, previous = -1;
  for (const auto& line : file.records) {
    std::istringstream in(line.substr(1));
    std::string head;
    std::int64_t time = 0;
    in >> head >> time;
    if (head == "site") continue;
    CHECK(time >= previous);  // never decreasing
    previous = time;
    if (head == "idle" && idle < 0) idle = time;
    if (head == "spawn" && line.find(" sleep ") != std::string::npos) sleep_spawn = time;
    if (head == "notify" && notify < 0) notify = time;
  }
  REQUIRE(idle >= 0);
  REQUIRE(notify >= 0);
  REQUIRE(sleep_spawn >= 0);
  CHECK(notify > idle);                           // not the idle's stamp carried over
  CHECK(notify - sleep_spawn >= 9'900'000);       // the timer fired 10 ms after it was set
  std::remove(trace.c_str());
}

TEST_CASE("a traced program that crashes leaves a readable trace up to the crash") {
  for (const std::string mode : {"segv", "abort", "throw"}) {
    CAPTURE(mode);
    const std::string trace = temp_path("crash-" + mode + ".sexp");
    const auto r = run_traced({SKEIN_CRASH_PROGRAM, mode, "50"}, trace);
    CHECK(r.out == "steps done\n");
    CHECK(r.signal == (mode == "segv" ? SIGSEGV : SIGABRT));  // died by the signal, re-raised
    const auto file = read_trace(trace);
    CHECK(file.errors.empty());
    CHECK(file.count_prefix("(end ") == 0);  // not a clean stop
    // Every step before the crash is there.
    CHECK(file.has("\"step 1\""));
    CHECK(file.has("\"step 50\""));
    CHECK(file.count_prefix("(label ") == 50);
    CHECK(file.count_prefix("(resolve ") == 100);  // each task and its map
    std::remove(trace.c_str());
  }
}

TEST_CASE("a crash after many chunks keeps every record written so far") {
  const std::string trace = temp_path("crash-big.sexp");
  const auto r = run_traced({SKEIN_CRASH_PROGRAM, "segv", "20000"}, trace);
  CHECK(r.signal == SIGSEGV);
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  CHECK(file.count_prefix("(label ") == 20000);
  CHECK(file.has("\"step 20000\""));
  std::remove(trace.c_str());
}

TEST_CASE("a slow writer drops records and says exactly how many") {
  const std::string trace = temp_path("slow.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.budget_bytes = 4 * capture::kChunkBytes;  // a few chunks only
  options.writer_delay_us = 20'000;                 // 20 ms per chunk
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  constexpr int kRecords = 100'000;
  for (int i = 0; i < kRecords; ++i) trace::sink()->counter("n", i);
  REQUIRE(trace::stop().ok());
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  const auto counters = static_cast<std::int64_t>(file.count_prefix("(counter "));
  const std::int64_t lost = lost_total(file);
  CHECK(lost > 0);                       // the writer did fall behind
  CHECK(counters + lost == kRecords);    // and every record is either written or counted
  CHECK(file.count_prefix("(end ") == 1);
  std::remove(trace.c_str());
}

TEST_CASE("ring mode keeps exactly the newest records within its budget") {
  const std::string trace = temp_path("ring.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.mode = capture::CaptureMode::ring;
  options.budget_bytes = 3 * sizeof(capture::Chunk);
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  constexpr int kRecords = 50'000;
  for (int i = 0; i < kRecords; ++i) trace::sink()->counter("n", i);
  REQUIRE(trace::stop().ok());
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  std::vector<std::int64_t> values;
  for (const auto& r : file.records) {
    if (r.rfind("(counter ", 0) != 0) continue;
    values.push_back(std::stoll(r.substr(r.rfind(' ') + 1, r.size() - r.rfind(' ') - 2)));
  }
  // A contiguous run ending with the last record, as long as the budget holds
  // (two full chunks and the part of the third being filled).
  REQUIRE_FALSE(values.empty());
  CHECK(values.back() == kRecords - 1);
  for (std::size_t i = 1; i < values.size(); ++i) REQUIRE(values[i] == values[i - 1] + 1);
  CHECK(values.size() > 2 * capture::kRecordsPerChunk);
  CHECK(values.size() <= 3 * capture::kRecordsPerChunk);
  CHECK(lost_total(file) == kRecords - static_cast<std::int64_t>(values.size()));
  CHECK(file.count_prefix("(end ") == 1);
  std::remove(trace.c_str());
}

TEST_CASE("SIGUSR1 writes a ring snapshot while the program goes on") {
  const std::string trace = temp_path("usr1.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.mode = capture::CaptureMode::ring;
  options.budget_bytes = 8 * sizeof(capture::Chunk);
  options.crash_handlers = true;  // installs the SIGUSR1 handler
  REQUIRE(trace::start(options).ok());
  skein::label("before the signal");
  for (int i = 0; i < 1000; ++i) trace::sink()->counter("n", i);
  REQUIRE(raise(SIGUSR1) == 0);
  // The writer thread writes the snapshot; the program is not stopped.
  TraceFile snapshot;
  for (int tries = 0; tries < 200 && !snapshot.has("\"before the signal\""); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    snapshot = read_trace(trace);
  }
  CHECK(snapshot.errors.empty());
  CHECK(snapshot.has("\"before the signal\""));
  CHECK(snapshot.count_prefix("(counter ") == 1000);
  CHECK(snapshot.count_prefix("(end ") == 0);
  skein::label("after the signal");
  REQUIRE(trace::stop().ok());
  const auto final_file = read_trace(trace);
  CHECK(final_file.has("\"after the signal\""));
  CHECK(final_file.count_prefix("(end ") == 1);
  std::remove(trace.c_str());
}

TEST_CASE("other OS threads that never touch the runtime do not disturb the trace") {
  const std::string trace = temp_path("threads.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  std::atomic<bool> done{false};
  std::vector<std::thread> busy;
  std::atomic<long> work{0};
  for (int t = 0; t < 2; ++t)
    busy.emplace_back([&] {
      while (!done.load()) work.fetch_add(1);
    });
  for (int i = 0; i < 2000; ++i) {
    auto [p, r] = skein::task<int>();
    auto q = p.map([](int v) { return v * 2; });
    r.resolve(i);
  }
  done.store(true);
  for (auto& t : busy) t.join();
  REQUIRE(trace::stop().ok());
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  CHECK(file.count_prefix("(spawn ") == 4000);
  CHECK(file.count_prefix("(resolve ") == 4000);
}

TEST_CASE("the capture belongs to the loop's thread: a thread that enters run() takes it from the one that started it") {
  const std::string trace = temp_path("loop-thread.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());  // this thread starts it, and owns it
  skein::label("before the loop, on the starting thread");
  std::thread loop([] {
    skein::label("before the loop, on the loop's thread");  // not the owner yet: refused
    auto [p, r] = skein::task<int>();
    r.resolve(1);
    (void)skein::run(p);  // takes the capture
    skein::Promise<int> step = skein::pause().then([] {
      skein::label("in the loop");
      return skein::resolved(2);
    });
    (void)skein::run(step);
  });
  loop.join();
  skein::label("after the loop, on the starting thread");  // no longer the owner: refused
  REQUIRE(trace::stop().ok());
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  CHECK(file.has("\"before the loop, on the starting thread\""));
  CHECK_FALSE(file.has("before the loop, on the loop's thread"));
  CHECK(file.has("\"in the loop\""));
  CHECK_FALSE(file.has("after the loop"));
  CHECK(file.count_prefix("(spawn ") == 2);  // the pause and the bind on it
  std::remove(trace.c_str());
}

TEST_CASE("a call into the runtime from a foreign OS thread is refused with a clear error") {
  const std::string trace = temp_path("foreign.sexp");
  const auto r = run_traced({SKEIN_CRASH_PROGRAM, "foreign", "3"}, trace);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("skein: 1 record from OS thread "));
  CHECK_THAT(r.err, Catch::Contains(" was left out of the trace: the capture takes the records of the thread that runs the loop"));
  const auto file = read_trace(trace);
  CHECK(file.errors.empty());
  CHECK_FALSE(file.has("from a foreign thread"));
  CHECK(file.has("back on the main thread"));
  CHECK(file.count_prefix("(end ") == 1);
  std::remove(trace.c_str());
}

TEST_CASE("one trace file, one writer: the name beside a trace keeps the trace's suffix") {
  using capture::beside_path;
  CHECK(beside_path("trace.sexp", 42) == "trace.42.sexp");
  CHECK(beside_path("t.sexp.gz", 42) == "t.42.sexp.gz");
  CHECK(beside_path("out.gz", 42) == "out.42.gz");
  CHECK(beside_path("trace", 42) == "trace.42");
  CHECK(beside_path("my.run.sexp", 42) == "my.run.42.sexp");
  CHECK(beside_path("/tmp/runs.d/trace", 42) == "/tmp/runs.d/trace.42");
  CHECK(beside_path("/tmp/runs.d/trace.sexp", 42) == "/tmp/runs.d/trace.42.sexp");
  CHECK(beside_path(".sexp", 42) == ".sexp.42");
  CHECK(beside_path(".gz", 42) == ".gz.42");
}
