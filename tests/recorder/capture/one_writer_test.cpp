// one_writer_test.cpp — one trace file, one writer: a traced program that
// finds its SKEIN_TRACE path held by another traced program (its own parent
// that called system(), or any other started meanwhile) leaves that trace
// alone and writes its own beside it, under the same suffix with its process
// id before it, its header naming the process that held the path; a forked
// child writes nothing. Real processes, judged by the reader, by `skein
// check` and by the importer.
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "tests/recorder/capture/traced_child.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using namespace skein::test;

namespace {

// A fresh folder for one case's traces, removed with them at the end.
struct TraceFolder {
  std::string path;
  TraceFolder() {
    char name[] = "/tmp/skein-one-writer-XXXXXX";
    REQUIRE(mkdtemp(name) != nullptr);
    path = name;
  }
  ~TraceFolder() {
    for (const auto& f : files()) std::remove((path + "/" + f).c_str());
    rmdir(path.c_str());
  }
  [[nodiscard]] std::vector<std::string> files() const {
    std::vector<std::string> names;
    if (DIR* d = opendir(path.c_str())) {
      while (const dirent* e = readdir(d))
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.emplace_back(e->d_name);
      closedir(d);
    }
    std::sort(names.begin(), names.end());
    return names;
  }
};

// The integer option `key` of the trace's header line, or -1.
long long header_option(const std::string& trace_text, const std::string& key) {
  const std::string header = trace_text.substr(0, trace_text.find('\n'));
  const std::smatch::string_type pattern = "\\(" + key + " ([0-9]+)\\)";
  std::smatch m;
  if (!std::regex_search(header, m, std::regex(pattern))) return -1;
  return std::stoll(m[1]);
}

// The labels of a trace's records, in order.
std::vector<std::string> labels(const TraceFile& t) {
  std::vector<std::string> texts;
  const std::regex label("^\\(label [0-9]+ [-0-9]+ \"(.*)\"\\)$");
  std::smatch m;
  for (const auto& r : t.records)
    if (std::regex_match(r, m, label)) texts.push_back(m[1]);
  return texts;
}

std::vector<std::string> numbered(const std::string& name, int from, int to) {
  std::vector<std::string> texts;
  for (int i = from; i <= to; ++i) texts.push_back(name + std::to_string(i));
  return texts;
}

long long printed_pid(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("pid ([0-9]+)\n")) ? std::stoll(m[1]) : -1;
}

}  // namespace

TEST_CASE("one trace file, one writer: a traced program's system() child writes its trace beside the parent's") {
  TraceFolder folder;
  const std::string trace = folder.path + "/trace.sexp";
  constexpr int kParentSteps = 200;
  constexpr int kChildSteps = 100;
  const std::string command = std::string(SKEIN_CRASH_PROGRAM) + " exit " + std::to_string(kChildSteps);
  Child c = spawn({SKEIN_NESTED_TRACE_PROGRAM, std::to_string(kParentSteps), command}, {"SKEIN_TRACE=" + trace});
  const Exit e = finish(c);
  REQUIRE_FALSE(e.timed_out);
  CHECK(e.exit_code == 0);
  CHECK(contains(c.out.text, "child status 0\n"));
  const long long parent = printed_pid(c.out.text);
  REQUIRE(parent > 0);

  // The parent's trace, whole, with the parent's records only.
  CHECK(skein_check(trace) == 0);
  const std::string parent_text = slurp(trace);
  CHECK(header_option(parent_text, "pid") == parent);
  const TraceFile parent_trace = read_trace_text(parent_text);
  CHECK(parent_trace.errors.empty());
  CHECK(parent_trace.count_prefix("(end ") == 1);
  CHECK(labels(parent_trace) == numbered("parent step ", 1, 2 * kParentSteps));

  // The child's, beside it: trace.PID.sexp, its own records, and the
  // process whose trace it stands beside.
  const auto files = folder.files();
  REQUIRE(files.size() == 2);
  std::smatch m;
  REQUIRE(std::regex_match(files[0], m, std::regex("trace\\.([0-9]+)\\.sexp")));
  const long long child = std::stoll(m[1]);
  CHECK(child != parent);
  CHECK(files[1] == "trace.sexp");
  const std::string beside = folder.path + "/" + files[0];
  CHECK(skein_check(beside) == 0);
  const std::string child_text = slurp(beside);
  CHECK(header_option(child_text, "pid") == child);
  CHECK(header_option(child_text, "beside-pid") == parent);
  const TraceFile child_trace = read_trace_text(child_text);
  CHECK(child_trace.errors.empty());
  CHECK(child_trace.count_prefix("(end ") == 1);
  CHECK(labels(child_trace) == numbered("step ", 1, kChildSteps));

  // Said once, naming both paths.
  const auto said = capture_lines(c.err.text);
  REQUIRE(said.size() == 1);
  CHECK(contains(said[0], trace + " "));
  CHECK(contains(said[0], beside));

  // The importer keeps the header's new key, as every key.
  const std::string database = folder.path + "/child.db";
  REQUIRE(import_text(child_text, database).ok());
  CHECK(query(database, "SELECT value FROM meta WHERE key = 'header.beside-pid'") == std::to_string(parent) + "\n");
}

TEST_CASE("one trace file, one writer: a second traced program started while the first writes goes beside it") {
  // (first mode, second mode, the trace's name): ring mode holds its path
  // from the start as stream mode does, and .gz stays the last suffix.
  const std::vector<std::vector<std::string>> cases = {{"stream", "stream", "trace.sexp"},
                                                       {"stream", "stream", "trace.sexp.gz"},
                                                       {"stream", "ring", "trace.sexp"},
                                                       {"ring", "stream", "trace.sexp"},
                                                       {"ring", "ring", "trace"}};
  for (const auto& mode : cases) {
    CAPTURE(mode);
    TraceFolder folder;
    const std::string trace = folder.path + "/" + mode[2];
    constexpr int kFirstSteps = 2000;
    constexpr int kSecondSteps = 100;
    // The first holds the path from its start, and waits for a line
    // between its two halves.
    Child first = spawn({SKEIN_CRASH_PROGRAM, "phased", std::to_string(kFirstSteps)},
                        {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=" + mode[0]});
    REQUIRE(pump({&first.out, &first.err}, [&] { return contains(first.err.text, "phase 1 done\n"); }, first.deadline));
    Child second = spawn({SKEIN_CRASH_PROGRAM, "exit", std::to_string(kSecondSteps)},
                         {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=" + mode[1]});
    const Exit second_exit = finish(second);
    send_line(first);
    const Exit first_exit = finish(first);
    REQUIRE_FALSE(first_exit.timed_out);
    REQUIRE_FALSE(second_exit.timed_out);
    CHECK(first_exit.exit_code == 5);
    CHECK(second_exit.exit_code == 0);
    CHECK(capture_lines(first.err.text).empty());

    const std::string name = mode[2];
    const bool gz = name.ends_with(".gz");
    const std::string stem = name.substr(0, name.find('.'));
    const std::string suffix = name.find('.') == std::string::npos ? "" : name.substr(name.find('.'));
    const std::string beside = folder.path + "/" + stem + "." + std::to_string(second.pid) + suffix;
    CHECK(folder.files().size() == 2);

    CHECK(skein_check(trace) == 0);
    CHECK(skein_check(beside) == 0);
    if (!gz) {
      const std::string first_text = slurp(trace);
      CHECK(header_option(first_text, "pid") == first.pid);
      const TraceFile first_trace = read_trace_text(first_text);
      CHECK(first_trace.errors.empty());
      CHECK(labels(first_trace) == numbered("step ", 1, 2 * kFirstSteps));
      const std::string second_text = slurp(beside);
      CHECK(header_option(second_text, "pid") == second.pid);
      const TraceFile second_trace = read_trace_text(second_text);
      CHECK(second_trace.errors.empty());
      CHECK(labels(second_trace) == numbered("step ", 1, kSecondSteps));
    }
    const auto said = capture_lines(second.err.text);
    REQUIRE(said.size() == 1);
    CHECK(contains(said[0], trace + " "));
    CHECK(contains(said[0], beside));
  }
}

TEST_CASE("one trace file, one writer: a forked child leaves its parent's trace alone") {
  for (const std::string mode : {"stream", "ring"}) {
    CAPTURE(mode);
    TraceFolder folder;
    const std::string trace = folder.path + "/trace.sexp";
    constexpr int kSteps = 200;
    Child c = spawn({SKEIN_NESTED_TRACE_PROGRAM, std::to_string(kSteps), "fork"},
                    {"SKEIN_TRACE=" + trace, "SKEIN_TRACE_MODE=" + mode});
    const Exit e = finish(c);
    REQUIRE_FALSE(e.timed_out);
    CHECK(e.exit_code == 0);
    CHECK(contains(c.out.text, "child status 0\n"));
    CHECK(folder.files() == std::vector<std::string>{"trace.sexp"});
    CHECK(skein_check(trace) == 0);
    const TraceFile t = read_trace(trace);
    CHECK(t.errors.empty());
    CHECK(t.count_prefix("(end ") == 1);
    CHECK(labels(t) == numbered("parent step ", 1, 2 * kSteps));
  }
}
