// hostile_inputs.hpp — what the hostile-input tests share: the corpus of
// tests/hostile/corpus, the extreme values they combine, databases made at
// run time and then edited with SQLite's own library (values no import
// writes), every `skein` command run under a memory limit, and the
// headless viewer core run over one database. README.md in this folder
// lists the cases.
//
// A command "behaves" when it exits 0, 1 or 2 (never by a signal, never
// with a sanitizer's report) and, when it fails, says why on stderr naming
// the input (`FILE:LINE:COL:`, `FILE: ...`) or the command (`skein CMD:
// ...`), or, for exit 1 with nothing on stderr, prints its verdict (lint's
// findings, why's answer).
#pragma once

#include <sqlite3.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "recorder/format/record.hpp"
#include "recorder/store/trace_store.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"
#include "viewer/timeline/activity_overview.hpp"
#include "viewer/timeline/flame_graph.hpp"
#include "viewer/timeline/subsecond_heatmap.hpp"
#include "recorder/store/thread_layout.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_summary.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein::test {

inline constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// The ids and times every command is tried with.
inline const std::vector<std::int64_t> kExtremeIds = {kMin, kMin + 1, -1, 0, kMax - 1, kMax};
inline const std::vector<std::int64_t> kExtremeTimes = {0, 1'000'000'000'000'000'000, kMaxTime, kMaxTime + 1, kMax, -1};

inline std::string corpus_path(const std::string& name) { return std::string(SKEIN_HOSTILE_CORPUS) + "/" + name; }

// Every file of the corpus, its sub-folders' included, as names relative
// to it ("mirage_sexp/x.sexp"), sorted; not README.md.
inline std::vector<std::string> corpus_files() {
  const std::filesystem::path root(SKEIN_HOSTILE_CORPUS);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root))
    if (entry.is_regular_file() && entry.path().filename() != "README.md")
      names.push_back(entry.path().lexically_relative(root).generic_string());
  std::sort(names.begin(), names.end());
  return names;
}

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A copy of a corpus trace in `dir`, named as in the corpus with '/' as
// '-': commands open a trace through a cache beside it, which must not go
// into the source tree.
inline std::string copy_corpus(const TempDir& dir, const std::string& name) {
  std::string flat = name;
  for (char& c : flat)
    if (c == '/') c = '-';
  const std::string path = dir.file(flat);
  write_file(path, read_text(corpus_path(name)));
  return path;
}

// The address space a process of these tests may use: a few hundred MB,
// far below what a bin or table sized by a span of 10^16 ns would take.
// Not under AddressSanitizer, which reserves terabytes of shadow memory.
inline constexpr std::uint64_t kMemoryLimitBytes = 768ull << 20;

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kLimitMemory = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kLimitMemory = false;
#else
inline constexpr bool kLimitMemory = true;
#endif
#else
inline constexpr bool kLimitMemory = true;
#endif

// Holds this process to kMemoryLimitBytes: an allocation past it throws
// std::bad_alloc, which a test sees, instead of swapping the machine.
inline void limit_memory() {
  if (!kLimitMemory) return;
  rlimit r{};
  r.rlim_cur = r.rlim_max = kMemoryLimitBytes;
  setrlimit(RLIMIT_AS, &r);
}

// The `skein` under test: SKEIN_HOSTILE_CLI overrides the one built
// beside the test (to measure another build).
inline std::string skein_path() {
  const char* other = std::getenv("SKEIN_HOSTILE_CLI");
  return other != nullptr && other[0] != '\0' ? other : SKEIN_CLI_PATH;
}

// `skein ARGS...` under `ulimit -v` of kMemoryLimitBytes.
inline ProcessResult run_skein(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/bin/sh", "-c",
                                   kLimitMemory ? "ulimit -v " + std::to_string(kMemoryLimitBytes / 1024) +
                                                      " && exec \"$0\" \"$@\""
                                                : std::string("exec \"$0\" \"$@\""),
                                   skein_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, {}, {"QT_QPA_PLATFORM=offscreen"});
}

// `skein-view ARGS...` on the offscreen platform (no memory limit: Qt's
// threads and fonts reserve more address space than a command does).
inline ProcessResult run_skein_view(const std::vector<std::string>& args) {
  const char* other = std::getenv("SKEIN_HOSTILE_VIEW");
  std::vector<std::string> argv = {other != nullptr && other[0] != '\0' ? other : SKEIN_VIEW_PATH};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv, {}, {"QT_QPA_PLATFORM=offscreen"});
}

// The line of a sanitizer's report (AddressSanitizer, LeakSanitizer,
// UndefinedBehaviorSanitizer) in `err`, or "": a report can come with
// any exit status, 1 included.
inline std::string sanitizer_report(const std::string& err) {
  for (const char* mark : {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                           "SUMMARY: AddressSanitizer", "SUMMARY: UndefinedBehaviorSanitizer"}) {
    const std::size_t at = err.find(mark);
    if (at == std::string::npos) continue;
    const std::size_t start = err.rfind('\n', at) == std::string::npos ? 0 : err.rfind('\n', at) + 1;
    return err.substr(start, err.find('\n', at) - start);
  }
  return {};
}

// Why a command did not behave, or "" when it did (see the file comment).
inline std::string misbehaviour(const ProcessResult& r, const std::string& input) {
  if (r.signal != 0) return "killed by signal " + std::to_string(r.signal) + "; stderr: " + r.err;
  if (const std::string report = sanitizer_report(r.err); !report.empty()) return report + "; stderr: " + r.err;
  if (r.exit_code < 0 || r.exit_code > 2) return "exit " + std::to_string(r.exit_code) + "; stderr: " + r.err;
  if (r.exit_code == 0) return {};
  // Exit 1 from lint or why is a verdict, printed on stdout.
  if (r.exit_code == 1 && r.err.empty() && !r.out.empty()) return {};
  // The first line that is not Qt talking about its runtime folder.
  std::size_t at = 0;
  while (r.err.compare(at, 12, "QStandardPat") == 0) at = r.err.find('\n', at) + 1;
  const std::string first = r.err.substr(at, r.err.find('\n', at) - at);
  if (first.rfind(input + ":", 0) == 0 || first.rfind("skein ", 0) == 0) return {};
  return "exit " + std::to_string(r.exit_code) + " without a message naming " + input + "; stderr: " + r.err;
}

// Every `skein` command over `input` (a trace or a database), each output
// into `dir`. The import's database is left at dir/imported.db.
struct CommandRun {
  std::string command;
  ProcessResult result;
};

inline std::vector<CommandRun> run_every_command(const std::string& input, const TempDir& dir,
                                                 ThreadId why_thread = 0) {
  const std::vector<std::vector<std::string>> commands = {
      {"check", input},
      {"import", input, "-o", dir.file("imported.db")},
      {"info", input},
      {"summary", input},
      {"summary", "--duration", "0", input},
      {"lint", "--no-store", input},
      {"why", "--thread", std::to_string(why_thread), input},
      {"export", "-f", "chrome", "-o", dir.file("out.json"), input},
      {"export", "-f", "folded", "-o", dir.file("out.folded"), input},
      {"export", "-f", "sexp", "-o", dir.file("out.sexp"), input},
      {"render", "-o", dir.file("out.png"), input},
      {"render", "-o", dir.file("out.svg"), "--width", "200", "--height", "150", input},
  };
  std::vector<CommandRun> runs;
  for (const auto& args : commands) {
    std::string name;
    for (const auto& a : args) name += (name.empty() ? "" : " ") + a;
    runs.push_back(CommandRun{name, run_skein(args)});
  }
  return runs;
}

// What the viewer computes from an opened store before and while it draws:
// the timeline (and its layout), the overview strip, the subsecond heat
// map, the flame graph of the whole trace and its layout, the summary, the
// fitted view. Returns "" or what failed; a crash or an overflow is the
// test's failure by itself.
struct CoreRun {
  std::string error;
  std::size_t threads = 0;
  std::size_t overview_bins = 0;
  std::size_t heatmap_cells = 0;
  std::size_t dense_index = 0;
};

inline CoreRun run_viewer_core(TraceStore& store) {
  CoreRun run;
  auto loaded = load_timeline(store, TimelineLoadOptions{false});
  if (!loaded) {
    run.error = loaded.error().to_string();
    return run;
  }
  const TimelineData& data = loaded.value();
  run.threads = data.threads.size();
  run.dense_index = data.dense_index.size();
  if (!data.check_invariants()) run.error = "the timeline's invariants do not hold";
  const ActivityOverview overview = ActivityOverview::build(data);
  run.overview_bins = overview.bins();
  (void)overview.columns(800);
  const SubsecondHeatmap heat = SubsecondHeatmap::build(data);
  run.heatmap_cells = static_cast<std::size_t>(heat.columns()) * static_cast<std::size_t>(heat.rows());
  (void)heat.caption();
  if (!heat.empty()) (void)heat.selection({0, 0}, {heat.columns() - 1, heat.rows() - 1});
  const FlameGraph flame = build_flame_graph(data, data.first_time, data.end_time);
  (void)layout_flame_graph(flame, 0, 800);
  (void)summarize_timeline(data, SummaryGrouping::label);
  TimelineViewState view;
  view.fit(data, 1600);
  for (std::uint32_t i = 0; i < data.threads.size(); ++i) {
    if (data.thread_index(data.threads[i].id) != i) run.error = "thread_index misses a thread";
    view.select(data, i);
  }
  return run;
}

}  // namespace skein::test
