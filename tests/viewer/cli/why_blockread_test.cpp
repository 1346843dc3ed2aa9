// why_blockread_test.cpp — `skein why` on real runs of samples/blockread:
// the round trip of a B.read, step by step, and the missing notification
// of --missing-notify with its suspect. Threads are found by their labels
// in the trace and steps are matched by kind and label, never by event
// number, so a change of timing or of the runtime's ids does not break the
// expectations, and a missing edge does.
//
// What each step means in the program (samples/blockread/blockread.cpp):
//   B.read was resolved by blkfront.poll      the poll thread delivered the response;
//   blkfront.poll read blkfront.event,        it woke because the backend raised the
//     resolved by backend                     event channel;
//   backend waited on blkback.timer,          the backend's completing turn was woken
//     resolved by the scheduler               by its latency timer;
//   blkback.timer was created by backend      the backend armed the timer when it
//                                             took the request;
//   backend was notified by Process data      that turn was woken by the frontend
//     (request)                               putting the request on the ring;
//   Process data was created by thread 0      the frontend's thread, created by main.
//
// The whole chain needs the engine (viewer/analysis/why_answer.cpp) to go on
// from a timer's expiry (a sleep resolved by the scheduler) to the sleep's
// creation; a walk that stopped at the timer would end at "root: the
// scheduler: a timer" after the third step.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;
const std::string kBlockread = SKEIN_BLOCKREAD_PATH;

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The first thread the trace labels `label` (the `(label T ID "LABEL")`
// record), as text; empty when there is none.
std::string first_labelled(const std::string& trace, const std::string& label) {
  const std::regex record("^\\(label [0-9]+ ([0-9]+) \"" + label + "\"\\)$");
  for (const std::string& line : lines_of(trace)) {
    std::smatch m;
    if (std::regex_match(line, m, record)) return m[1];
  }
  return {};
}

bool labelled(const std::string& trace, const std::string& id, const std::string& label) {
  return trace.find(" " + id + " \"" + label + "\")\n") != std::string::npos;
}

struct Run {
  std::string trace_path;
  std::string trace;
  std::string bread;         // the first B.read
  std::string backend;
  std::string process_data;  // the fiber that issues the first reads
};

// blockread with a trace, and the threads the tests name.
Run traced_blockread(const TempDir& dir, const std::vector<std::string>& args) {
  Run run;
  run.trace_path = dir.file("blockread.sexp");
  std::vector<std::string> argv = {kBlockread};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--trace", run.trace_path});
  const auto r = run_process(argv);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  run.trace = slurp(run.trace_path);
  run.bread = first_labelled(run.trace, "B\\.read");
  run.backend = first_labelled(run.trace, "backend");
  run.process_data = first_labelled(run.trace, "Process data");
  REQUIRE_FALSE(run.bread.empty());
  REQUIRE_FALSE(run.backend.empty());
  REQUIRE_FALSE(run.process_data.empty());
  return run;
}

// The why answer's numbered step lines, without their numbers, and its
// last line.
struct Answer {
  std::vector<std::string> steps;
  std::string end;
};
Answer parse_answer(const std::string& out) {
  Answer a;
  const std::regex step("^  [0-9]+\\. (.*)$");
  for (const std::string& line : lines_of(out)) {
    std::smatch m;
    if (std::regex_match(line, m, step)) a.steps.push_back(m[1]);
    else if (line.rfind("why ", 0) != 0) a.end = line;
  }
  return a;
}

std::string q(const std::string& label) { return "\"" + label + "\""; }

// The first three steps: the B.read's completion back to the backend's
// timer.
void check_completion_steps(const Run& run, const Answer& a) {
  REQUIRE(a.steps.size() >= 3);
  std::smatch m;
  // 1. the poll thread resolved the B.read
  const std::regex resolved("^thread " + run.bread + " \"B\\.read\" was resolved by thread ([0-9]+) \"blkfront\\.poll\" at ");
  CHECK(std::regex_search(a.steps[0], m, resolved));
  // 2. ... having read the event channel, which the backend resolved
  const std::regex read("^thread [0-9]+ \"blkfront\\.poll\" read thread ([0-9]+), resolved by thread " + run.backend +
                        " \"backend\" at ");
  REQUIRE(std::regex_search(a.steps[1], m, read));
  CHECK(labelled(run.trace, m[1], "blkfront.event"));
  // 3. ... in a turn its latency timer woke
  const std::regex timer("^thread " + run.backend + " \"backend\" waited on thread ([0-9]+), resolved by the scheduler at ");
  REQUIRE(std::regex_search(a.steps[2], m, timer));
  CHECK(labelled(run.trace, m[1], "blkback.timer"));
}

}  // namespace

TEST_CASE("skein why on blockread: the frontend's request is recorded, and it explains the backend's turn") {
  TempDir dir;
  const Run run = traced_blockread(dir, {"--requests", "4"});
  // The request edge: the Process data fiber notifies the backend.
  const std::regex request("^\\(notify [0-9]+ " + run.process_data + " " + run.backend + " request\\)$");
  bool found = false;
  for (const std::string& line : lines_of(run.trace)) found = found || std::regex_match(line, request);
  CHECK(found);
  // The backend at the creation of its first timer: the turn in which it
  // took the first request, woken by that notify.
  std::smatch m;
  const std::regex arm("\\(spawn ([0-9]+) ([0-9]+) " + run.backend + " sleep");
  REQUIRE(std::regex_search(run.trace, m, arm));
  const auto r = run_process({kSkein, "why", run.trace_path, "--thread", run.backend, "--at", std::string(m[1]) + "ns"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const Answer a = parse_answer(r.out);
  REQUIRE(a.steps.size() == 2);
  CHECK_THAT(a.steps[0], Catch::StartsWith("thread " + run.backend + " " + q("backend") + " was notified by thread " +
                                           run.process_data + " " + q("Process data") + " (request) at "));
  CHECK_THAT(a.steps[1], Catch::StartsWith("thread " + run.process_data + " " + q("Process data") +
                                           " was created by thread 0 at "));
  CHECK(a.end == "root: the program's start");
}

TEST_CASE("skein why on blockread: a B.read's completion goes back through the poll thread to the backend's timer") {
  TempDir dir;
  const Run run = traced_blockread(dir, {"--requests", "4"});
  const auto r = run_process({kSkein, "why", run.trace_path, "--thread", run.bread});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  check_completion_steps(run, parse_answer(r.out));
}

TEST_CASE("skein why on blockread: the whole round trip, back to the request and the B.read's creator") {
  TempDir dir;
  const Run run = traced_blockread(dir, {"--requests", "4"});
  const auto r = run_process({kSkein, "why", run.trace_path, "--thread", run.bread});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  const Answer a = parse_answer(r.out);
  check_completion_steps(run, a);
  REQUIRE(a.steps.size() == 6);
  std::smatch m;
  // 4. the backend armed the timer ...
  const std::regex armed("^thread ([0-9]+) \"blkback\\.timer\" was created by thread " + run.backend + " \"backend\" at ");
  CHECK(std::regex_search(a.steps[3], m, armed));
  // 5. ... in the turn the frontend's request woke
  CHECK_THAT(a.steps[4], Catch::StartsWith("thread " + run.backend + " " + q("backend") + " was notified by thread " +
                                           run.process_data + " " + q("Process data") + " (request) at "));
  // 6. the thread that issued the request, and created the B.read
  const std::regex created("\\(spawn [0-9]+ " + run.bread + " ([0-9]+) task");
  REQUIRE(std::regex_search(run.trace, m, created));
  CHECK(std::string(m[1]) == run.process_data);
  CHECK_THAT(a.steps[5], Catch::StartsWith("thread " + run.process_data + " " + q("Process data") +
                                           " was created by thread 0 at "));
  CHECK(a.end == "root: the program's start");
}

TEST_CASE("skein why on blockread --missing-notify: finding #1 has no recorded cause, and the backend is the suspect") {
  TempDir dir;
  const Run run = traced_blockread(dir, {"--missing-notify", "--requests", "4", "--latency-us", "1000"});
  const auto lint = run_process({kSkein, "lint", run.trace_path, "--rules", "missing-notification"});
  INFO(lint.out << lint.err);
  CHECK(lint.exit_code == 1);
  CHECK_THAT(lint.out, Catch::StartsWith("missing-notification: 4 findings (error)\n  #1  "));
  CHECK_THAT(lint.out, Catch::Contains("    open: skein-view " + run.trace_path + " --finding 1\n"));
  const auto r = run_process({kSkein, "why", run.trace_path, "--finding", "1"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  const Answer a = parse_answer(r.out);
  CHECK(a.steps.empty());
  const std::regex stuck("^no recorded cause: thread [0-9]+ resolved thread ([0-9]+) after polling, woken only by a "
                         "wake-up it arranged itself \\(a pause, a yield, its own timer\\) \\(event [0-9]+\\); "
                         "suspect thread " +
                         run.backend + " \"backend\"$");
  std::smatch m;
  REQUIRE(std::regex_match(a.end, m, stuck));
  CHECK(std::string(m[1]) == run.bread);  // the first read the poll thread delivers through the flag
}

TEST_CASE("skein why on blockread: any point of a B.read's waiting span asks what ended the wait: the round trip") {
  TempDir dir;
  const Run run = traced_blockread(dir, {"--requests", "4"});
  std::smatch m;
  const std::regex spawned("\\(spawn ([0-9]+) " + run.bread + " [0-9]+ task");
  REQUIRE(std::regex_search(run.trace, m, spawned));
  const long long from = std::stoll(m[1]);
  const std::regex resolved("\\(resolve ([0-9]+) " + run.bread + " [0-9]+ ok\\)");
  REQUIRE(std::regex_search(run.trace, m, resolved));
  const long long to = std::stoll(m[1]);
  REQUIRE(to > from + 10);
  // From its creation to 3 ns before its resolve: the same answer, the
  // resolve that ended the wait and the round trip behind it.
  for (const long long at : {from, from + (to - from) / 4, from + (to - from) / 2, to - 3}) {
    const auto r = run_process({kSkein, "why", run.trace_path, "--thread", run.bread, "--at", std::to_string(at) + "ns"});
    INFO("at " << at << "ns\n" << r.out << r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains(": what ended the wait it was in; --woke asks what woke its turn)"));
    const Answer a = parse_answer(r.out);
    check_completion_steps(run, a);
    CHECK(a.steps.size() == 6);
    CHECK(a.end == "root: the program's start");
  }
  // Asked the other question at its creation: it had done nothing but be
  // created, by Process data.
  const auto woke = run_process(
      {kSkein, "why", run.trace_path, "--thread", run.bread, "--at", std::to_string(from) + "ns", "--woke"});
  INFO(woke.out << woke.err);
  const Answer w = parse_answer(woke.out);
  REQUIRE_FALSE(w.steps.empty());
  CHECK_THAT(w.steps[0], Catch::StartsWith("thread " + run.bread + " \"B.read\" was created by thread " +
                                           run.process_data + " \"Process data\" at "));
}

TEST_CASE("skein why on blockread: the poll thread while it runs, and while it waits") {
  TempDir dir;
  const Run run = traced_blockread(dir, {"--requests", "4"});
  std::smatch m;
  // Its turn that resolves the first B.read runs at that resolve's time.
  const std::regex resolved("\\(resolve ([0-9]+) " + run.bread + " ([0-9]+) ok\\)");
  REQUIRE(std::regex_search(run.trace, m, resolved));
  const std::string at = std::string(m[1]) + "ns";
  const std::string by = m[2];
  const auto running = run_process({kSkein, "why", run.trace_path, "--thread", by, "--at", at});
  INFO(running.out << running.err);
  CHECK_THAT(running.out, Catch::Contains(": what woke the turn it ran in; --wait asks what ended its wait)"));
  const Answer a = parse_answer(running.out);
  REQUIRE_FALSE(a.steps.empty());
  // What woke it: the event channel the backend resolved.
  CHECK(std::regex_search(a.steps[0], m, std::regex("read thread ([0-9]+), resolved by thread " + run.backend)));
  // At time 0 the poll thread has not run yet: what ended that wait is its
  // first turn.
  const auto waiting = run_process({kSkein, "why", run.trace_path, "--thread", by, "--at", "0ns"});
  INFO(waiting.out << waiting.err);
  CHECK_THAT(waiting.out, Catch::Contains(": what ended the wait it was in;"));
}
