// record_window_test.cpp — the runtime's record window (runtime/trace_record.hpp)
// as the capture uses it: records the hooks store inline reach the file in
// order and say what a plain sink hears, across many chunks; drops of inline
// records are counted exactly, in stream and ring mode; the window belongs to
// the installed sink only; and a foreign OS thread is refused on the inline
// path too.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "recorder/capture/trace_capture.hpp"
#include "runtime/runtime.hpp"
#include "tests/runtime/memory_sink.hpp"
#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

std::string temp_path(const std::string& name) {
  return "/tmp/skein-window-" + std::to_string(getpid()) + "-" + name;
}

std::vector<std::string> trace_records(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto r = test::read_all(ss.str(), path);
  INFO(path);
  REQUIRE(r.errors.empty());
  return r.records;
}

// A record line of the trace turned into MemorySink's text: no time, no
// site, ids renumbered in order of first appearance (as MemorySink does).
class Renumbered {
 public:
  // Empty for records a MemorySink has no line for (site, lost, end).
  std::string line(const std::string& record) {
    std::vector<std::string> t = tokens(record);
    const std::string& head = t[0];
    if (head == "site") site_lines[std::stoul(t[1])] = std::stoul(t[3]);
    if (head == "spawn") spawn_lines.push_back(t.size() > 5 ? site_lines.at(std::stoul(t[5])) : 0);
    if (head == "spawn") return "spawn " + id(t[2]) + " " + id(t[3]) + " " + t[4];
    if (head == "wait" || head == "read" || head == "merge") return head + " " + id(t[2]) + " " + id(t[3]);
    if (head == "notify") return "notify " + id(t[2]) + " " + id(t[3]) + " " + t[4];
    if (head == "resolve") return "resolve " + id(t[2]) + " " + id(t[3]) + " " + t[4];
    if (head == "switch") return "switch " + id(t[2]);
    if (head == "label") return "label " + id(t[2]) + " " + t[3];
    if (head == "idle") return "idle";
    if (head == "should-resolve") return "should-resolve " + id(t[2]);
    if (head == "drop") return "drop " + id(t[2]) + " " + id(t[3]);
    if (head == "no-waiter") return "no-waiter " + id(t[2]) + " " + object(t[3]) + " " + t[4];
    if (head == "queued") return "queued " + id(t[2]) + " " + object(t[3]);
    return "";
  }

  std::map<unsigned long, unsigned long> site_lines;  // site id -> line, from (site ...)
  std::vector<unsigned long> spawn_lines;             // the line of each spawn's site, in order

 private:
  static std::vector<std::string> tokens(const std::string& record) {
    std::vector<std::string> out;
    std::size_t i = 1;  // past '('
    while (i < record.size() && record[i] != ')') {
      if (record[i] == ' ') {
        ++i;
        continue;
      }
      if (record[i] == '"') {  // the tests' labels have no escapes
        const std::size_t close = record.find('"', i + 1);
        out.push_back(record.substr(i + 1, close - i - 1));
        i = close + 1;
        continue;
      }
      const std::size_t end = record.find_first_of(" )", i);
      out.push_back(record.substr(i, end - i));
      i = end;
    }
    return out;
  }
  std::string id(const std::string& raw) {
    const long long v = std::stoll(raw);
    if (v < 1) return raw;
    auto [it, fresh] = renumber_.try_emplace(v, static_cast<long long>(renumber_.size() + 1));
    return std::to_string(it->second);
  }
  // A primitive's number, renumbered apart from threads, as MemorySink does.
  std::string object(const std::string& raw) {
    const long long next = static_cast<long long>(renumber_objects_.size() + 1);
    auto [it, fresh] = renumber_objects_.try_emplace(std::stoll(raw), next);
    return "#" + std::to_string(it->second);
  }
  std::map<long long, long long> renumber_;
  std::map<long long, long long> renumber_objects_;
};

// Every kind of record the hooks make inline (spawn, wait, read, resolve ok
// and cancel, merge, notify, switch, idle, should-resolve, drop, no-waiter,
// queued) and some they cannot (labels, failures), over many chunks.
void workload(int rounds) {
  skein::Condition<> condition;
  skein::Semaphore permits(0);
  for (int i = 0; i < rounds; ++i) {
    if (i % 30 == 0) condition.signal();  // nobody waits: no-waiter (the first numbers it)
    if (i % 30 == 15) {
      skein::Promise<void> woken = condition.wait();  // queued
      condition.broadcast();
    }
    if (i % 40 == 0) (void)skein::wait<int>();  // its resolver ends while it is pending: drop
    if (i % 60 == 0) permits.release();         // no-waiter
    if (i % 120 == 0) {
      skein::Mailbox<int> box;
      skein::Promise<int> never = box.take();  // the box dies with it queued: drop
    }
    auto [p, r] = skein::task<int>();
    auto q = p.then([](int v) { return skein::resolved(v + 1); });
    auto m = q.map([](int v) { return v * 2; });
    if (i % 100 == 0) p.label("round " + std::to_string(i));
    if (i % 50 == 0) skein::should_resolve(m);
    if (i % 250 == 0) {
      auto [f, fr] = skein::task<int>();
      auto g = f.map([](int v) { return v; });
      fr.fail(std::make_exception_ptr(std::runtime_error("failure " + std::to_string(i))));
    }
    r.resolve(i);
  }
  // The loop: pauses (notify yield, switches) and a sleep (idle, timer).
  auto loop = skein::pause().then([] { return skein::pause(); }).then([] {
    return skein::sleep(std::chrono::milliseconds(1));
  });
  skein::run(loop);
}

}  // namespace

TEST_CASE("records stored inline reach the file in order and say what a plain sink hears") {
  constexpr int kRounds = 3000;  // ~ 6 records a round: many chunks
  test::MemorySink memory;
  {
    test::ScopedSink scoped(memory);
    workload(kRounds);
  }
  const std::string trace = temp_path("order.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  workload(kRounds);
  REQUIRE(trace::stop().ok());

  Renumbered renumbered;
  std::vector<std::string> captured;
  for (const auto& record : trace_records(trace)) {
    std::string line = renumbered.line(record);
    if (!line.empty()) captured.push_back(std::move(line));
  }
  REQUIRE(memory.lines.size() > 4 * capture::kRecordsPerChunk);
  for (const std::string head : {"drop ", "no-waiter ", "queued "}) {  // the lost wake-ups are there
    INFO(head);
    CHECK(std::any_of(memory.lines.begin(), memory.lines.end(),
                      [&](const std::string& line) { return line.starts_with(head); }));
  }
  REQUIRE(captured.size() == memory.lines.size());
  for (std::size_t i = 0; i < captured.size(); ++i) {
    INFO("record " << i);
    REQUIRE(captured[i] == memory.lines[i]);
  }
  // Every spawn names its creation site, whether it took the inline path
  // (the runtime's site cache) or the sink's.
  REQUIRE(renumbered.spawn_lines.size() == memory.sites.size());
  for (std::size_t i = 0; i < memory.sites.size(); ++i) {
    INFO("spawn " << i);
    REQUIRE(renumbered.spawn_lines[i] == memory.sites[i].line());
  }
  std::remove(trace.c_str());
}

TEST_CASE("inline records dropped by a slow writer are counted exactly") {
  const std::string trace = temp_path("slow.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.budget_bytes = 4 * capture::kChunkBytes;
  options.writer_delay_us = 20'000;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  constexpr int kTasks = 100'000;  // a spawn and a resolve each, both inline
  for (int i = 0; i < kTasks; ++i) {
    auto [p, r] = skein::task<int>();
    r.resolve(i);
  }
  REQUIRE(trace::stop().ok());
  std::int64_t spawns = 0, resolves = 0, lost = 0;
  for (const auto& record : trace_records(trace)) {
    if (record.rfind("(spawn ", 0) == 0) ++spawns;
    if (record.rfind("(resolve ", 0) == 0) ++resolves;
    if (record.rfind("(lost ", 0) == 0) lost += std::stoll(record.substr(record.rfind(' ') + 1));
  }
  CHECK(lost > 0);
  CHECK(spawns + resolves + lost == 2 * kTasks);
  std::remove(trace.c_str());
}

TEST_CASE("ring mode keeps the newest inline records and counts the rest") {
  const std::string trace = temp_path("ring.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.mode = capture::CaptureMode::ring;
  options.budget_bytes = 3 * sizeof(capture::Chunk);
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  constexpr int kTasks = 20'000;
  for (int i = 0; i < kTasks; ++i) {
    auto [p, r] = skein::task<int>();
    r.resolve(i);
  }
  REQUIRE(trace::stop().ok());
  const auto records = trace_records(trace);
  std::int64_t kept = 0, lost = 0, previous_spawn = -1;
  for (const auto& record : records) {
    if (record.rfind("(lost ", 0) == 0) {
      lost += std::stoll(record.substr(record.rfind(' ') + 1));
      continue;
    }
    if (record.rfind("(spawn ", 0) == 0) {
      std::istringstream in(record.substr(7));
      std::int64_t time = 0, child = 0;
      in >> time >> child;
      if (previous_spawn >= 0) REQUIRE(child == previous_spawn + 1);  // contiguous
      previous_spawn = child;
    }
    if (record.rfind("(spawn ", 0) == 0 || record.rfind("(resolve ", 0) == 0) ++kept;
  }
  CHECK(kept > 2 * static_cast<std::int64_t>(capture::kRecordsPerChunk));
  CHECK(kept <= 3 * static_cast<std::int64_t>(capture::kRecordsPerChunk));
  CHECK(kept + lost == 2 * kTasks);
  std::remove(trace.c_str());
}

TEST_CASE("the record window belongs to the installed sink only") {
  const std::string trace = temp_path("switch.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  {
    auto [p, r] = skein::task<int>();  // claims the window
    r.resolve(1);
  }
  {
    // A plain sink installed over the capture hears everything; the
    // capture's window takes nothing meanwhile.
    test::MemorySink memory;
    test::ScopedSink scoped(memory);
    for (int i = 0; i < 10; ++i) {
      auto [p, r] = skein::task<int>();
      r.resolve(i);
    }
    CHECK(memory.lines.size() == 20);
  }
  {
    auto [p, r] = skein::task<int>();  // the capture's again
    r.resolve(2);
  }
  REQUIRE(trace::stop().ok());
  std::size_t spawns = 0;
  for (const auto& record : trace_records(trace))
    if (record.rfind("(spawn ", 0) == 0) ++spawns;
  CHECK(spawns == 2);
  std::remove(trace.c_str());

  // After the capture, a plain sink hears every record (the window closed).
  test::MemorySink after;
  test::ScopedSink scoped(after);
  for (int i = 0; i < 10; ++i) {
    auto [p, r] = skein::task<int>();
    r.resolve(i);
  }
  CHECK(after.lines.size() == 20);
}

TEST_CASE("records from a foreign OS thread are refused on the inline path too") {
  const std::string trace = temp_path("foreign.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  for (int i = 0; i < 5; ++i) {  // the main thread claims the window
    auto [p, r] = skein::task<int>();
    r.resolve(i);
  }
  std::thread foreign([] {
    for (int i = 0; i < 7; ++i) {  // spawns and resolves: inline records, refused
      auto [p, r] = skein::task<int>();
      r.resolve(i);
    }
  });
  foreign.join();
  for (int i = 0; i < 5; ++i) {
    auto [p, r] = skein::task<int>();
    r.resolve(i);
  }
  REQUIRE(trace::stop().ok());
  std::size_t spawns = 0, resolves = 0;
  for (const auto& record : trace_records(trace)) {
    if (record.rfind("(spawn ", 0) == 0) ++spawns;
    if (record.rfind("(resolve ", 0) == 0) ++resolves;
  }
  CHECK(spawns == 10);
  CHECK(resolves == 10);
  std::remove(trace.c_str());
}

TEST_CASE("labels and counters from the runtime's string cache keep their text, even in a reused buffer") {
  const std::string trace = temp_path("strings.sexp");
  trace::CaptureOptions options;
  options.path = trace;
  options.crash_handlers = false;
  REQUIRE(trace::start(options).ok());
  // One buffer, rewritten in place: the same address holds other text each
  // time, so an entry found by address must still be checked by content.
  char reused[16] = {};
  std::vector<std::string> labels, counters;
  for (int i = 0; i < 3000; ++i) {
    skein::label("steady");  // a literal: after the first, from the cache
    labels.push_back("steady");
    std::snprintf(reused, sizeof reused, "name-%d", i % 7);
    skein::label(reused);
    labels.push_back(reused);
    skein::counter(reused, i);
    counters.push_back(std::string(reused) + " " + std::to_string(i));
    skein::counter("queue.depth", -i);
    counters.push_back("queue.depth " + std::to_string(-i));
  }
  const std::string long_text(trace::detail::kStringCacheMaxBytes + 1, 'x');  // never cached
  skein::label(long_text);
  skein::label(long_text);
  labels.insert(labels.end(), 2, long_text);
  REQUIRE(trace::stop().ok());

  std::vector<std::string> got_labels, got_counters;
  for (const auto& record : trace_records(trace)) {
    const auto q = record.find('"');
    const auto q2 = record.find('"', q + 1);
    if (record.rfind("(label ", 0) == 0) got_labels.push_back(record.substr(q + 1, q2 - q - 1));
    if (record.rfind("(counter ", 0) == 0)
      got_counters.push_back(record.substr(q + 1, q2 - q - 1) + " " +
                             record.substr(q2 + 2, record.size() - q2 - 3));
  }
  REQUIRE(got_labels == labels);
  REQUIRE(got_counters == counters);
  std::remove(trace.c_str());
}
