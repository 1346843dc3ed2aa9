// loop_thread_owner_test.cpp — the capture belongs to the thread that runs
// the loop: another OS thread that records first, and goes on recording,
// takes nothing over; its records are refused and counted, and the line at
// the end names it. A real process (foreign_thread_program), judged by the
// reader and by `skein check`.
#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>
#include <string>

#include "tests/recorder/capture/traced_child.hpp"

using namespace skein;
using namespace skein::test;

TEST_CASE("the capture belongs to the loop's thread: a foreign thread that records first takes nothing over") {
  const std::string trace = "/tmp/skein-loop-owner-" + std::to_string(getpid()) + ".sexp";
  constexpr int kSteps = 300;
  Child c = spawn({SKEIN_FOREIGN_THREAD_PROGRAM, std::to_string(kSteps)}, {"SKEIN_TRACE=" + trace});
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.exit_code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(c.out.text, m, std::regex("labeller tid ([0-9]+)\nlabels ([0-9]+)\nsteps done\n")));
  const std::string tid = m[1];
  const std::string refused = m[2];
  CHECK(std::stoll(refused) > 0);

  // Every record of the program's loop, none of the foreign thread's.
  CHECK(skein_check(trace) == 0);
  const TraceFile t = read_trace(trace);
  CHECK(t.errors.empty());
  CHECK(t.count_prefix("(end ") == 1);
  // Each step: the bind on the chain, the pause and the bind on the pause;
  // but the first bind, on a constant, runs at once and makes no thread.
  CHECK(t.count_prefix("(spawn ") == 3 * static_cast<std::size_t>(kSteps) - 1);
  CHECK(t.count_prefix("(label ") == static_cast<std::size_t>(kSteps));
  CHECK(t.has("\"main step 1\""));
  CHECK(t.has("\"main step " + std::to_string(kSteps) + "\""));
  CHECK_FALSE(t.has("foreign label"));

  // One line names the thread, by its id and its name, and what it lost.
  const auto said = capture_lines(c.err.text);
  REQUIRE(said.size() == 1);
  CHECK(contains(said[0], " " + refused + " records"));
  CHECK(contains(said[0], "thread " + tid + " (\"labeller\")"));
  std::remove(trace.c_str());
}
