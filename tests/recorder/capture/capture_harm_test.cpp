// capture_harm_test.cpp — the capture never harms the program it traces:
// a reader of its output that goes away (no death by SIGPIPE), a FIFO with
// no reader (no wait at start or at exit), a fatal signal (the trace
// flushed, the death by that signal kept), a crash in ring mode (a whole
// trace file), strings longer than the format allows (cut, marked, read
// back), and the environment that configures it (gzip, ring, budget).
//
// Each case runs crash_program (tests/recorder/capture/crash_program.cpp) as
// a child (traced_child.hpp), which waits on its own lines, never on time,
// and judges the trace with the reader and with `skein check`.
// SKEIN_HARM_CRASH_PROGRAM, when set, names another build of crash_program to
// judge instead (an older capture, say); the cases that trace this process
// itself ignore it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/record.hpp"
#include "recorder/capture/string_arena.hpp"
#include "recorder/capture/trace_capture.hpp"
#include "recorder/format/trace_reader.hpp"
#include "runtime/runtime.hpp"
#include "tests/recorder/capture/traced_child.hpp"
#include "tests/support/record_text.hpp"
#include "tests/support/subprocess.hpp"

using namespace skein;
using namespace skein::test;

namespace {

std::string program() {
  const char* other = std::getenv("SKEIN_HARM_CRASH_PROGRAM");
  return other != nullptr && *other != '\0' ? other : SKEIN_CRASH_PROGRAM;
}

std::string temp_path(const std::string& name) {
  return "/tmp/skein-harm-" + std::to_string(getpid()) + "-" + name;
}

// A trace of crash_program's first `steps` steps, each one there.
void check_steps(const TraceFile& t, int steps) {
  CHECK(t.errors.empty());
  CHECK(t.has_header);
  CHECK_FALSE(t.truncated);
  CHECK(t.count_prefix("(label ") == static_cast<std::size_t>(steps));
  CHECK(t.has("\"step 1\""));
  CHECK(t.has("\"step " + std::to_string(steps) + "\""));
  CHECK(t.count_prefix("(resolve ") == 2 * static_cast<std::size_t>(steps));
}

}  // namespace

// --- 1. a reader that goes away ------------------------------------------------

TEST_CASE("capture never harms the program: reader gone: SKEIN_TRACE=- prog piped to head -1") {
  for (const std::string mode : {"stream", "ring"}) {
    CAPTURE(mode);
    // The program's status reaches its standard error; the pipeline's is head's.
    const std::string script = "echo go | { \"$0\" phased 20000; echo \"status $?\" >&2; } | head -1";
    Child c = spawn({"/bin/sh", "-c", script, program()}, {"SKEIN_TRACE=-", "SKEIN_TRACE_MODE=" + mode});
    const Exit e = finish(c);
    REQUIRE_FALSE(e.timed_out);
    CHECK(e.exit_code == 0);
    CHECK(contains(c.err.text, "steps done\n"));  // ran to its end
    CHECK(contains(c.err.text, "status 5\n"));    // its own status, not 141 (SIGPIPE)
    const auto said = capture_lines(c.err.text);
    CHECK(said.size() == 1);
    if (!said.empty()) CHECK(contains(said[0], "closed"));
    // head's one line: the trace's header, whole.
    CHECK(c.out.text.rfind("(skein-trace 1 ", 0) == 0);
    CHECK(std::count(c.out.text.begin(), c.out.text.end(), '\n') == 1);
  }
}

TEST_CASE("capture never harms the program: reader gone: standard output closed in the middle of the trace") {
  Child c = spawn({program(), "phased-own-output", "2000"}, {"SKEIN_TRACE=-"});
  // Read until the program's own line, the trace's header and its first report.
  const bool ready = pump({&c.out, &c.err}, [&] {
    return contains(c.out.text, "own output\n") && contains(c.out.text, "(skein-trace 1 ") &&
           contains(c.err.text, "phase 1 done\n");
  }, c.deadline);
  CHECK(ready);
  const std::string read_before = c.out.text;
  c.out.close();  // the reader goes away
  send_line(c);
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.signal == 0);
  CHECK(e.exit_code == 5);
  CHECK(contains(c.err.text, "steps done\n"));
  const auto said = capture_lines(c.err.text);
  CHECK(said.size() == 1);
  if (!said.empty()) CHECK(contains(said[0], "closed"));
  // What was read before: the program's line whole, on a line of its own.
  CHECK((read_before.rfind("own output\n", 0) == 0 || contains(read_before, "\nown output\n")));
}

TEST_CASE("capture never harms the program: reader gone: a FIFO whose reader reads a little and closes") {
  const std::string fifo = temp_path("gone.fifo");
  std::remove(fifo.c_str());
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  Pipe reader;
  reader.fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(reader.fd >= 0);
  Child c = spawn({program(), "phased-own-output", "2000"}, {"SKEIN_TRACE=" + fifo});
  const bool ready = pump({&reader, &c.out, &c.err}, [&] {
    return contains(reader.text, "\n") && contains(c.err.text, "phase 1 done\n");
  }, c.deadline);
  CHECK(ready);
  CHECK(reader.text.rfind("(skein-trace 1 ", 0) == 0);
  reader.close();
  send_line(c);
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.signal == 0);
  CHECK(e.exit_code == 5);
  CHECK(c.out.text == "own output\n");
  CHECK(contains(c.err.text, "steps done\n"));
  const auto said = capture_lines(c.err.text);
  CHECK(said.size() == 1);
  if (!said.empty()) CHECK(contains(said[0], "closed"));
  CHECK(is_fifo(fifo));
  std::remove(fifo.c_str());
}

TEST_CASE("capture never harms the program: reader gone: a fatal signal still kills by that signal") {
  for (const std::string mode : {"stream", "ring"}) {
    CAPTURE(mode);
    Child c = spawn({program(), "wait", "2000"}, {"SKEIN_TRACE=-", "SKEIN_TRACE_MODE=" + mode});
    CHECK(pump({&c.out, &c.err}, [&] { return contains(c.out.text, "steps done\n"); }, c.deadline));
    c.out.close();  // the crash path then writes to a pipe no one reads
    REQUIRE(kill(c.pid, SIGTERM) == 0);
    const Exit e = finish(c);
    REQUIRE_FALSE(e.timed_out);
    CHECK(e.signal == SIGTERM);  // not SIGPIPE
  }
}

// --- 2. a FIFO with no reader --------------------------------------------------

TEST_CASE("capture never harms the program: FIFO without reader: the program runs and a later reader gets all") {
  const std::string fifo = temp_path("later.fifo");
  std::remove(fifo.c_str());
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  constexpr int kSteps = 500;
  Child c = spawn({program(), "phased-own-output", std::to_string(kSteps)}, {"SKEIN_TRACE=" + fifo});
  // Not held up before main, nor by its first steps.
  const bool ran = pump({&c.out, &c.err}, [&] { return contains(c.err.text, "phase 1 done\n"); }, c.deadline);
  CHECK(ran);
  Pipe reader;
  reader.fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  REQUIRE(reader.fd >= 0);
  send_line(c);
  const Exit e = finish(c, {&reader});
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.exit_code == 5);
  CHECK(c.out.text == "own output\n");
  CHECK(capture_lines(c.err.text).empty());
  // From the header on, every step of both phases, and a clean end.
  CHECK(reader.text.rfind("(skein-trace 1 ", 0) == 0);
  const TraceFile t = read_trace_text(reader.text);
  check_steps(t, 2 * kSteps);
  CHECK(t.count_prefix("(end ") == 1);
  CHECK(is_fifo(fifo));
  std::remove(fifo.c_str());
}

TEST_CASE("capture never harms the program: FIFO without reader: no reader ever comes and the exit is not held up") {
  for (const std::string mode : {"stream", "ring"}) {
    CAPTURE(mode);
    const std::string fifo = temp_path("never-" + mode + ".fifo");
    std::remove(fifo.c_str());
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    const auto started = Clock::now();
    Child c = spawn({program(), "exit", "200"}, {"SKEIN_TRACE=" + fifo, "SKEIN_TRACE_MODE=" + mode});
    const Exit e = finish(c);
    const auto took = Clock::now() - started;
    REQUIRE_FALSE(e.timed_out);
    CHECK(e.exit_code == 0);
    CHECK(c.out.text == "steps done\n");
    CHECK(took < std::chrono::seconds(10));
    const auto said = capture_lines(c.err.text);
    CHECK(said.size() == 1);
    if (!said.empty()) CHECK(contains(said[0], "no reader"));
    CHECK(is_fifo(fifo));
    std::remove(fifo.c_str());
  }
}

// --- 3. every default-fatal signal flushes ------------------------------------

namespace {

// Every signal whose default action ends the process (signal(7)), sent from
// outside while the program waits after its steps. SIGUSR1 is ring mode's
// snapshot request, so it is fatal in stream mode only.
std::vector<int> fatal_signals(bool ring) {
  std::vector<int> s = {SIGTERM, SIGINT,    SIGHUP,  SIGQUIT,   SIGPIPE, SIGUSR2, SIGALRM, SIGXCPU,
                        SIGXFSZ, SIGVTALRM, SIGPROF, SIGSTKFLT, SIGPWR,  SIGSYS,  SIGTRAP, SIGBUS,
                        SIGILL,  SIGFPE,    SIGSEGV, SIGABRT,   SIGRTMIN, SIGRTMIN + 1, SIGRTMAX};
  if (!ring) s.push_back(SIGUSR1);
  return s;
}

// One run: the program's steps, the signal, its death by that signal, and a
// trace `skein check` accepts with every step in it.
void signal_trial(const std::string& mode, int sig, const std::string& trace) {
  constexpr int kSteps = 300;
  std::remove(trace.c_str());
  Child c = spawn({program(), "wait", std::to_string(kSteps)}, {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=" + mode});
  const bool ready = pump({&c.out, &c.err}, [&] { return contains(c.out.text, "steps done\n"); }, c.deadline);
  CHECK(ready);
  REQUIRE(kill(c.pid, sig) == 0);
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.signal == sig);
  CHECK(exists(trace));
  if (!exists(trace)) return;
  CHECK(skein_check(trace) == 0);
  const TraceFile t = read_trace(trace);
  check_steps(t, kSteps);
  CHECK(t.count_prefix("(end ") == 0);  // not a clean stop
  CHECK_FALSE(exists(trace + ".tmp-" + std::to_string(c.pid)));
  std::remove(trace.c_str());
}

}  // namespace

TEST_CASE("capture never harms the program: fatal signal: stream mode flushes and dies by the signal") {
  for (const int sig : fatal_signals(false)) {
    CAPTURE(sig, strsignal(sig));
    signal_trial("stream", sig, temp_path("sig-stream.sexp"));
  }
}

TEST_CASE("capture never harms the program: fatal signal: ring mode flushes and dies by the signal") {
  for (const int sig : fatal_signals(true))
    for (int trial = 0; trial < 3; ++trial) {
      CAPTURE(sig, strsignal(sig), trial);
      signal_trial("ring", sig, temp_path("sig-ring.sexp"));
    }
}

TEST_CASE("capture never harms the program: fatal signal: a busy program's trace is whole up to the signal") {
  // The signal comes while the program records and the writer writes: the
  // trace holds every step from the first to the last one recorded (or
  // says how many it lost), and the process dies by the signal.
  constexpr int kSteps = 2000;
  for (const std::string mode : {"stream", "ring"})
    for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR2})
      for (int trial = 0; trial < 3; ++trial) {
        CAPTURE(mode, sig, strsignal(sig), trial);
        const std::string trace = temp_path("busy.sexp");
        std::remove(trace.c_str());
        Child c = spawn({program(), "spin", std::to_string(kSteps)}, {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=" + mode});
        CHECK(pump({&c.out, &c.err}, [&] { return contains(c.out.text, "steps done\n"); }, c.deadline));
        REQUIRE(kill(c.pid, sig) == 0);
        const Exit e = finish(c);
        REQUIRE_FALSE(e.timed_out);
        CHECK(e.signal == sig);
        CHECK(exists(trace));
        if (!exists(trace)) continue;
        CHECK(skein_check(trace) == 0);
        const TraceFile t = read_trace(trace);
        CHECK(t.errors.empty());
        CHECK_FALSE(t.truncated);
        std::vector<long> steps;
        for (const auto& r : t.records) {
          const std::size_t at = r.find("\"step ");
          if (r.rfind("(label ", 0) == 0 && at != std::string::npos) steps.push_back(std::stol(r.substr(at + 6)));
        }
        CHECK_FALSE(steps.empty());
        if (steps.empty()) continue;
        CHECK(steps.back() >= kSteps);
        if (t.count_prefix("(lost ") == 0) {
          CHECK(steps.front() == 1);
          bool contiguous = true;
          for (std::size_t i = 1; i < steps.size(); ++i) contiguous = contiguous && steps[i] == steps[i - 1] + 1;
          CHECK(contiguous);
        }
        std::remove(trace.c_str());
      }
}

// --- 4. ring mode on a crash ---------------------------------------------------

TEST_CASE("capture never harms the program: ring crash: a segv or abort leaves a complete trace file") {
  for (const std::string crash : {"segv", "abort", "throw"})
    for (int trial = 0; trial < 3; ++trial) {
      CAPTURE(crash, trial);
      constexpr int kSteps = 400;
      const std::string trace = temp_path("ring-crash.sexp");
      {
        std::ofstream old(trace);
        old << "an older file, to be replaced by a whole trace\n";
      }
      Child c = spawn({program(), crash, std::to_string(kSteps)}, {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=ring"});
      const Exit e = finish(c);
      REQUIRE_FALSE(e.timed_out);
      CHECK(c.out.text == "steps done\n");
      CHECK(e.signal == (crash == "segv" ? SIGSEGV : SIGABRT));
      CHECK(skein_check(trace) == 0);
      const TraceFile t = read_trace(trace);
      check_steps(t, kSteps);
      CHECK(t.count_prefix("(end ") == 0);
      CHECK_FALSE(exists(trace + ".tmp-" + std::to_string(c.pid)));
      std::remove(trace.c_str());
    }
}

// --- 5. strings longer than the format allows ---------------------------------

namespace {

// A well-formed UTF-8 string (no check of overlong forms beyond the lead).
bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += n;
  }
  return true;
}

std::string with_thousands(std::size_t n) {
  std::string digits = std::to_string(n);
  for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, 1, ',');
  return digits;
}

// `cut` is `original` cut to kMaxStringBytes: a prefix that ends on a
// character, then "… [cut N bytes]" with N the bytes left out.
void check_cut(std::string_view cut, std::string_view original, std::size_t limit = kMaxStringBytes) {
  REQUIRE(original.size() > limit);
  CHECK(cut.size() <= limit);
  CHECK(valid_utf8(cut));
  const std::string_view open = "\u2026 [cut ";
  const std::size_t at = cut.rfind(open);
  REQUIRE(at != std::string_view::npos);
  const std::string_view kept = cut.substr(0, at);
  CHECK(original.substr(0, kept.size()) == kept);
  CHECK(cut.substr(at) == std::string(open) + with_thousands(original.size() - kept.size()) + " bytes]");
  // The longest prefix that fits: one more character would not.
  std::size_t next = kept.size() + 1;
  while (next < original.size() && (static_cast<unsigned char>(original[next]) & 0xC0) == 0x80) ++next;
  CHECK(next + open.size() + with_thousands(original.size() - next).size() + std::string_view(" bytes]").size() > limit);
}

// `prefix` ASCII bytes, then `character` repeated past `total` bytes.
std::string long_text(std::size_t prefix, const std::string& character, std::size_t total) {
  std::string s(prefix, 'a');
  while (s.size() < total) s += character;
  return s;
}

}  // namespace

TEST_CASE("capture never harms the program: long strings: the cut keeps characters whole and says how much") {
  // Every character width, the cut at every byte of a character.
  for (const std::string character : {"a", "\u00e9", "\u20ac", "\U0001F600"})
    for (std::size_t prefix = 0; prefix < 4; ++prefix)
      for (const std::size_t total : {kMaxStringBytes + 1, kMaxStringBytes + 7, std::size_t{70'000}, std::size_t{1} << 20}) {
        CAPTURE(character.size(), prefix, total);
        const std::string text = long_text(prefix, character, total);
        for (const std::size_t limit : {std::size_t{40}, std::size_t{1000}, kMaxStringBytes}) {
          CAPTURE(limit);
          check_cut(capture::fit_string_limit(text, limit), text, limit);
        }
      }
}

TEST_CASE("capture never harms the program: long strings: labels and counter names and failures the runtime writes") {
  const std::string trace = temp_path("long.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  std::vector<std::string> labels, counters, failures;
  for (const std::string character : {"\u00e9", "\u20ac", "\U0001F600"})
    for (std::size_t prefix = 0; prefix < character.size(); ++prefix) {
      labels.push_back(long_text(prefix, character, 70'000));
      counters.push_back(long_text(prefix, character, 66'000) + "c");
      failures.push_back(long_text(prefix, character, 100'000) + "f");
    }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    skein::label(labels[i]);
    skein::counter(counters[i], static_cast<std::int64_t>(i));
    auto [p, r] = skein::task<int>();
    r.fail(std::runtime_error(failures[i]));
    CHECK(p.state() == State::rejected);
  }
  REQUIRE(trace::stop().ok());
  CHECK(skein_check(trace) == 0);

  const std::string text = slurp(trace);
  TraceReader reader(memory_input(text, trace), trace);
  std::vector<std::string> got_labels, got_counters, got_failures;
  std::size_t errors = 0;
  for (;;) {
    const auto step = reader.next();
    if (step == TraceReader::Step::end) break;
    if (step == TraceReader::Step::error) {
      ++errors;
      continue;
    }
    const Record& r = reader.record();
    if (const auto* l = std::get_if<LabelRecord>(&r)) got_labels.emplace_back(l->text);
    if (const auto* n = std::get_if<CounterRecord>(&r)) got_counters.emplace_back(n->name);
    if (const auto* f = std::get_if<ResolveRecord>(&r); f != nullptr && f->outcome == Outcome::fail && f->message)
      got_failures.emplace_back(*f->message);
  }
  CHECK(errors == 0);
  REQUIRE(got_labels.size() == labels.size());
  REQUIRE(got_counters.size() == counters.size());
  REQUIRE(got_failures.size() == failures.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    CAPTURE(i);
    check_cut(got_labels[i], labels[i]);
    check_cut(got_counters[i], counters[i]);
    check_cut(got_failures[i], failures[i]);
  }
  std::remove(trace.c_str());
}

TEST_CASE("capture never harms the program: long strings: a traced program's trace that skein check accepts") {
  const std::string trace = temp_path("long-program.sexp");
  Child c = spawn({program(), "long", "3"}, {"SKEIN_TRACE=" + trace});
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.exit_code == 0);
  CHECK(skein_check(trace) == 0);
  std::string original = "a";
  for (int i = 0; i < 23'333; ++i) original += "\u20ac";
  const std::string text = slurp(trace);
  TraceReader reader(memory_input(text, trace), trace);
  std::size_t cut = 0, errors = 0;
  for (;;) {
    const auto step = reader.next();
    if (step == TraceReader::Step::end) break;
    if (step == TraceReader::Step::error) {
      ++errors;
      continue;
    }
    const Record& r = reader.record();
    std::string_view s;
    if (const auto* l = std::get_if<LabelRecord>(&r)) s = l->text;
    else if (const auto* n = std::get_if<CounterRecord>(&r)) s = n->name;
    else if (const auto* f = std::get_if<ResolveRecord>(&r); f != nullptr && f->message) s = *f->message;
    if (s.size() < 1000) continue;
    check_cut(s, original);
    ++cut;
  }
  CHECK(errors == 0);
  CHECK(cut == 3);  // the label, the counter's name, the failure
  std::remove(trace.c_str());
}

// --- 6. the environment --------------------------------------------------------

TEST_CASE("capture never harms the program: environment: SKEIN_TRACE=FILE.gz writes a gzip trace") {
  for (const std::string mode : {"stream", "ring"}) {
    CAPTURE(mode);
    const std::string trace = temp_path("env-" + mode + ".sexp.gz");
    Child c = spawn({program(), "exit", "300"}, {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=" + mode});
    const Exit e = finish(c);
    REQUIRE_FALSE(e.timed_out);
    CHECK(e.exit_code == 0);
    const std::string bytes = slurp(trace);
    REQUIRE(bytes.size() > 2);
    CHECK(static_cast<unsigned char>(bytes[0]) == 0x1f);  // the gzip magic
    CHECK(static_cast<unsigned char>(bytes[1]) == 0x8b);
    CHECK(skein_check(trace) == 0);
    const TraceFile t = read_trace_text(bytes);
    check_steps(t, 300);
    CHECK(t.count_prefix("(end ") == 1);
    std::remove(trace.c_str());
    // And on a fatal signal: the compressed stream closed by the crash path.
    signal_trial(mode, SIGTERM, temp_path("env-signal-" + mode + ".sexp.gz"));
  }
}

namespace {

struct RingRun {
  TraceFile trace;
  std::size_t kept = 0;  // records from the buffer: neither sites nor (lost) nor (end)
  std::int64_t lost = 0;
};

RingRun run_ring(int steps, const std::string& buffer_mb) {
  const std::string trace = temp_path("ring-" + buffer_mb + ".sexp");
  std::vector<std::string> env = {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=ring"};
  if (!buffer_mb.empty()) env.push_back("SKEIN_TRACE_BUFFER_MB=" + buffer_mb);
  Child c = spawn({program(), "exit", std::to_string(steps)}, env);
  const Exit e = finish(c);
  CHECK_FALSE(e.timed_out);
  CHECK(e.exit_code == 0);
  RingRun run;
  run.trace = read_trace(trace);
  for (const auto& r : run.trace.records) {
    if (r.rfind("(lost ", 0) == 0) {
      std::istringstream in(r.substr(6));
      std::int64_t time = 0, count = 0;
      in >> time >> count;
      run.lost += count;
    } else if (r.rfind("(site ", 0) != 0 && r.rfind("(end ", 0) != 0) {
      ++run.kept;
    }
  }
  const std::string text = slurp(trace);
  CHECK(contains(text.substr(0, text.find('\n')), "(mode \"ring\")"));
  std::remove(trace.c_str());
  return run;
}

}  // namespace

TEST_CASE("capture never harms the program: environment: SKEIN_TRACE_MODE=ring and SKEIN_TRACE_BUFFER_MB") {
  constexpr int kSteps = 40'000;
  const RingRun small = run_ring(kSteps, "1");
  const RingRun large = run_ring(kSteps, "4");
  // N MiB holds 32 N chunks of kRecordsPerChunk records: the ring keeps the
  // full chunks but one and part of the one being filled.
  const auto chunks = [](std::size_t mb) { return mb * (std::size_t{1} << 20) / sizeof(capture::Chunk); };
  for (const auto& [run, mb] : {std::pair{&small, std::size_t{1}}, std::pair{&large, std::size_t{4}}}) {
    CAPTURE(mb, run->kept, run->lost);
    CHECK(run->trace.errors.empty());
    CHECK(run->kept <= chunks(mb) * capture::kRecordsPerChunk);
    CHECK(run->kept > (chunks(mb) - 2) * capture::kRecordsPerChunk);
    CHECK(run->lost > 0);
    CHECK(run->trace.has("\"step " + std::to_string(kSteps) + "\""));  // the newest are kept
    CHECK_FALSE(run->trace.has("\"step 1\""));                         // the oldest are not
    CHECK(run->trace.count_prefix("(end ") == 1);
  }
  // The same run: what one keeps and the other lost adds up the same.
  CHECK(small.kept + static_cast<std::size_t>(small.lost) == large.kept + static_cast<std::size_t>(large.lost));
}

TEST_CASE("capture never harms the program: environment: a bad setting leaves the program untraced and running") {
  for (const std::string setting : {"SKEIN_TRACE_MODE=sideways", "SKEIN_TRACE_BUFFER_MB=0", "SKEIN_TRACE_BUFFER_MB=12x"}) {
    CAPTURE(setting);
    const std::string trace = temp_path("bad.sexp");
    std::remove(trace.c_str());
    Child c = spawn({program(), "exit", "20"}, {"SKEIN_TRACE=" + trace, setting});
    const Exit e = finish(c);
    REQUIRE_FALSE(e.timed_out);
    CHECK(e.exit_code == 0);
    CHECK(c.out.text == "steps done\n");
    const auto said = capture_lines(c.err.text);
    CHECK(said.size() == 1);
    if (!said.empty()) CHECK(contains(said[0], "tracing not started"));
    CHECK_FALSE(exists(trace));
  }
}
