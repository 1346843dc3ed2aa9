// unmappable_buffer_test.cpp — a capture buffer that cannot be had: a budget
// SKEIN_TRACE_BUFFER_MB accepts but the program's address space cannot hold
// (address_space_program limits its own before the capture starts) leaves
// the program running untraced, its output and exit status its own, and says
// so in one line.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "tests/recorder/capture/traced_child.hpp"

using namespace skein;
using namespace skein::test;

TEST_CASE("a capture buffer that cannot be mapped: the program runs untraced and one line says why") {
  const std::string trace = "/tmp/skein-unmappable-" + std::to_string(getpid()) + ".sexp";
  std::remove(trace.c_str());
  Child c = spawn({SKEIN_ADDRESS_SPACE_PROGRAM}, {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_BUFFER_MB=30000"});
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.signal == 0);
  CHECK(e.exit_code == 7);
  CHECK(c.out.text == "steps done\n");
  const auto said = capture_lines(c.err.text);
  REQUIRE(said.size() == 1);
  CHECK(said[0].rfind("skein: tracing not started: ", 0) == 0);
  CHECK(contains(said[0], "30000 MiB"));
  CHECK(contains(said[0], "Cannot allocate memory"));
  CHECK_FALSE(exists(trace));
}

TEST_CASE("a capture buffer that cannot be mapped: a budget that fits the same limit traces as usual") {
  const std::string trace = "/tmp/skein-unmappable-fits-" + std::to_string(getpid()) + ".sexp";
  Child c = spawn({SKEIN_ADDRESS_SPACE_PROGRAM}, {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_BUFFER_MB=64"});
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.exit_code == 7);
  CHECK(c.out.text == "steps done\n");
  CHECK(capture_lines(c.err.text).empty());
  CHECK(skein_check(trace) == 0);
  const TraceFile t = read_trace(trace);
  CHECK(t.count_prefix("(label ") == 20);
  std::remove(trace.c_str());
}
