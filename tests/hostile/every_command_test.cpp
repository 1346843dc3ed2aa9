// every_command_test.cpp — the property: for traces made of extreme ids
// (INT64_MIN, INT64_MIN + 1, -1, 0, INT64_MAX - 1, INT64_MAX) and extreme
// times (0, 10^18, the limit 2^62 - 1, one past it, INT64_MAX, -1), and for
// every file of the corpus, every `skein` command exits 0, 1 or 2 with a
// message naming its input, never by a signal nor with a sanitizer's
// report, under a memory limit of a few hundred MB, and so does
// `skein-view --export-view`; a trace within the limits passes `skein check` and is
// drawn by `skein render`, one outside them fails both at the record, at
// FILE:LINE:COL. The viewer's core paths run over every combination.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "tests/hostile/hostile_inputs.hpp"

namespace skein::test {
namespace {

bool within_limits(std::int64_t id, TimeNs time) { return is_valid_thread_id(id) && is_valid_time(time); }

// A trace whose records name `id` in every place a thread goes, at `time`
// (spawn, label, switch, wait, read, notify, resolve, merge), with ordinary
// records around them, so that the viewer has rows, edges and activations.
std::string trace_with(std::int64_t id, TimeNs time) {
  const std::string i = std::to_string(id), t = std::to_string(time);
  std::string s = "(skein-trace 1 (process \"extreme\"))\n";
  s += "(spawn 0 7 0 task)\n";
  s += "(spawn " + t + " " + i + " 7 bind)\n";
  s += "(label " + t + " " + i + " \"extreme\")\n";
  s += "(switch " + t + " " + i + ")\n";
  s += "(wait " + t + " " + i + " 7)\n";
  s += "(notify " + t + " " + i + " 7 io)\n";
  s += "(switch " + t + " 7)\n";
  s += "(read " + t + " 7 " + i + ")\n";
  s += "(resolve " + t + " 7 " + i + " ok)\n";
  s += "(merge " + t + " " + i + " 7)\n";
  s += "(counter " + t + " \"c\" " + i + ")\n";
  s += "(gc " + t + " " + t + ")\n";
  s += "(idle " + t + ")\n";
  s += "(switch " + t + " -1)\n";
  s += "(end " + t + ")\n";
  return s;
}

// "FILE:LINE:COL: " at the start of some line of `err`.
bool names_a_place(const std::string& err, const std::string& file) {
  for (std::size_t at = err.find(file + ":"); at != std::string::npos; at = err.find(file + ":", at + 1)) {
    std::size_t p = at + file.size() + 1;
    const auto digits = [&] {
      const std::size_t start = p;
      while (p < err.size() && err[p] >= '0' && err[p] <= '9') ++p;
      return p > start;
    };
    if (digits() && p < err.size() && err[p++] == ':' && digits() && err.compare(p, 2, ": ") == 0) return true;
  }
  return false;
}

void every_command_behaves(const std::string& trace, bool valid, ThreadId why_thread) {
  TempDir dir;
  const std::string copy = dir.file("trace.sexp");
  write_file(copy, read_text(trace));
  for (const CommandRun& run : run_every_command(copy, dir, why_thread)) {
    INFO(run.command);
    CHECK(misbehaviour(run.result, copy) == "");
    const bool check_or_render = run.command.rfind("check", 0) == 0 || run.command.rfind("render", 0) == 0;
    if (check_or_render && valid) CHECK(run.result.exit_code == 0);
    if (check_or_render && !valid) {
      CHECK(run.result.exit_code == 1);
      CHECK(names_a_place(run.result.err, copy));
    }
  }
}

}  // namespace

TEST_CASE("hostile: every command over traces of extreme ids", "[hostile][property]") {
  TempDir dir;
  for (const std::int64_t id : kExtremeIds) {
    INFO("id " << id);
    const std::string path = dir.file("id.sexp");
    write_file(path, trace_with(id, 1000));
    every_command_behaves(path, within_limits(id, 1000), id);
  }
}

TEST_CASE("hostile: every command over traces of extreme times", "[hostile][property]") {
  TempDir dir;
  for (const TimeNs time : kExtremeTimes) {
    INFO("time " << time);
    const std::string path = dir.file("time.sexp");
    write_file(path, trace_with(3, time));
    every_command_behaves(path, within_limits(3, time), 3);
  }
}

TEST_CASE("hostile: every command and skein-view --export-view over every file of the corpus", "[hostile][property]") {
  // Valid traces pass `skein check`; the others fail it at a record. Every
  // other file of the corpus is held to behaving only: the MirageOS
  // S-expressions (`skein check` reads Skein's format only) and the inputs
  // fuzzing found.
  const std::map<std::string, bool> verdicts = {
      {"thread-ids-near-2p63.sexp", true},  {"thread-id-int64-min.sexp", false},
      {"times-at-limit.sexp", true},        {"time-int64-max.sexp", false},
      {"time-past-limit.sexp", false},      {"time-negative.sexp", false},
      {"gc-duration-past-limit.sexp", false}, {"span-1e16.sexp", true},
      {"span-1e17.sexp", true},
  };
  const std::vector<std::string> files = corpus_files();
  for (const auto& [name, valid] : verdicts) CHECK(std::find(files.begin(), files.end(), name) != files.end());
  CHECK(files.size() > verdicts.size());
  for (const std::string& name : files) {
    INFO(name);
    const auto verdict = verdicts.find(name);
    if (verdict != verdicts.end()) {
      every_command_behaves(corpus_path(name), verdict->second, 1);
    } else {
      TempDir dir;
      const std::string copy = dir.file("trace.sexp");
      write_file(copy, read_text(corpus_path(name)));
      for (const CommandRun& run : run_every_command(copy, dir, 0)) {
        INFO(run.command);
        CHECK(misbehaviour(run.result, copy) == "");
      }
    }
    // The viewer run as a script over the same file: it opens it, lints it
    // and writes the view, or says it cannot, without a signal.
    TempDir dir;
    const std::string copy = dir.file("view.sexp");
    write_file(copy, read_text(corpus_path(name)));
    for (const std::string& out : {dir.file("view.png"), dir.file("view.svg")}) {
      const ProcessResult view = run_skein_view({copy, "--export-view", out});
      INFO("skein-view " << copy << " --export-view " << out << "; stderr: " << view.err);
      CHECK(view.signal == 0);
      CHECK(view.exit_code >= 0);
      CHECK(view.exit_code <= 2);
      CHECK(sanitizer_report(view.err) == "");
      if (view.exit_code == 0) CHECK(file_exists(out));
    }
  }
}

TEST_CASE("hostile: the viewer's core over every extreme id and time", "[hostile][property]") {
  limit_memory();
  TempDir dir;
  int imported = 0;
  for (const std::int64_t id : kExtremeIds)
    for (const TimeNs time : kExtremeTimes) {
      INFO("id " << id << ", time " << time);
      const std::string db = dir.file("combination.db");
      const ImportResult r = import_text(trace_with(id, time), db);
      CHECK(r.ok() == within_limits(id, time));
      if (!r.ok()) {
        CHECK(names_a_place(r.error.to_string(), "t.sexp"));
        continue;
      }
      ++imported;
      auto store = TraceStore::open(db);
      REQUIRE(store.ok());
      const CoreRun core = run_viewer_core(store.value());
      CHECK(core.error.empty());
      CHECK(core.overview_bins <= ActivityOverview::kMaxBins);
      CHECK(core.heatmap_cells <= SubsecondHeatmap::kMaxCells);
      CHECK(core.dense_index <= 4 * core.threads + 64);
    }
  // 5 valid ids times 3 valid times.
  CHECK(imported == 15);
}

}  // namespace skein::test
