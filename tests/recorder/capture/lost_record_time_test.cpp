// lost_record_time_test.cpp — (lost ...) records keep time order: a capture
// whose writer falls behind drops records again and again, and the trace it
// leaves has times that never decrease, which `skein check` and `skein
// import` accept without one warning. The capture runs in this process,
// with a small budget and an artificially slow writer; its records name no
// thread a drop could have hidden the spawn of (counters on the main
// thread), so that any warning is about time.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "recorder/capture/trace_capture.hpp"
#include "runtime/runtime.hpp"
#include "tests/recorder/capture/traced_child.hpp"

using namespace skein;
using namespace skein::test;

TEST_CASE("lost records keep time order: a capture that keeps dropping writes times that never decrease") {
  const std::string trace = "/tmp/skein-lost-time-" + std::to_string(getpid()) + ".sexp";
  const std::string database = trace + ".db";
  trace::CaptureOptions options;
  options.path = trace;
  options.budget_bytes = 2 * sizeof(capture::Chunk);
  options.crash_handlers = false;
  options.writer_delay_us = 1000;
  REQUIRE(trace::start(options).ok());
  // Each round: records until some are dropped, then until the writer gives
  // a chunk back and the producer writes (lost ...) in it (the count of
  // drops not yet written falls to 0).
  constexpr int kRounds = 20;
  std::int64_t value = 0;
  for (int round = 0; round < kRounds; ++round) {
    while (trace::capture_stats().records_dropped == 0) skein::counter("n", ++value);
    while (trace::capture_stats().records_dropped != 0) skein::counter("n", ++value);
  }
  REQUIRE(trace::stop().ok());

  const TraceFile t = read_trace(trace);
  CHECK(t.errors.empty());
  CHECK(t.count_prefix("(lost ") >= static_cast<std::size_t>(kRounds));
  const auto check = run_process({SKEIN_CLI_PATH, "check", trace});
  CHECK(check.exit_code == 0);
  CHECK_FALSE(contains(check.out + check.err, "backwards"));
  CHECK(contains(check.out, "  warnings               0\n"));
  const auto imported = run_process({SKEIN_CLI_PATH, "import", "-o", database, trace});
  CHECK(imported.exit_code == 0);
  CHECK(contains(imported.out + imported.err, " 0 warnings"));
  std::remove(trace.c_str());
  std::remove(database.c_str());
}
