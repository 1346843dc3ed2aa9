// viewer_paths.hpp — what the viewer's fuzz targets (trace_database_fuzzer,
// viewer_core_fuzzer) run over an opened store: the queries behind `skein
// info` and `skein summary`, the timeline (load_timeline, no layout cache
// written), the overview strip, the subsecond heat map, the flame graph,
// the timeline summary, the fitted view with every row selected, and the
// lints with their text. Invariants checked on every input, beyond "no
// crash" (ASan and UBSan are on): an error names the database first
// ("DB: ..."); a loaded timeline holds TimelineData::check_invariants(); the
// overview and heat map stay within their bounds; thread_index finds every
// thread. A violation traps, which libFuzzer reports as a crash.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/timeline/activity_overview.hpp"
#include "viewer/timeline/flame_graph.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/analysis/lint_text.hpp"
#include "viewer/timeline/subsecond_heatmap.hpp"
#include "viewer/analysis/summary.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_summary.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein::fuzz {

[[noreturn]] inline void violated(const char* what) {
  (void)what;
  __builtin_trap();
}

// A fresh directory under $TMPDIR (or /tmp) for this process's files,
// removed with them when the process exits (not when it crashes: the
// directory then holds what the input made).
inline const std::string& scratch_directory() {
  // Never destroyed, so that the atexit function still has it.
  static const std::string* const dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    auto* pattern = new std::string(std::string(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp") + "/skein-fuzz-XXXXXX");
    if (mkdtemp(pattern->data()) == nullptr) violated("no scratch directory");
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(scratch_directory(), ignored);
    });
    return pattern;
  }();
  return *dir;
}

// SQLite's side files of `path`, which a damaged header can ask for.
inline void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) unlink((path + suffix).c_str());
}

inline void check_names(const Diagnostic& error, const std::string& path) {
  if (error.to_string().rfind(path + ":", 0) != 0) violated("an error that does not name the database");
}

// `skein info` and `skein summary`: each query fails with the database's
// name or succeeds.
inline void run_queries(TraceStore& store) {
  (void)store.meta();
  (void)store.meta_int("first_time");
  (void)store.record_counts();
  (void)store.thread_counts();
  (void)store.warnings();
  auto threads = store.threads();
  auto sites = store.sites();
  if (!threads || !sites) return;
  const TimeNs end_time = store.meta_int("end_time").value_or(0);
  for (const SummaryGrouping by : {SummaryGrouping::label, SummaryGrouping::kind, SummaryGrouping::site})
    (void)render_summary(summarize(threads.value(), sites.value(), end_time, by), by);
  (void)render_long_threads(threads_longer_than(threads.value(), end_time, 0), end_time);
}

// The viewer's pictures of `data`, computed as before it draws.
inline void run_pictures(const TimelineData& data) {
  if (!data.check_invariants()) violated("the timeline's invariants do not hold");
  const ActivityOverview overview = ActivityOverview::build(data);
  if (overview.bins() > ActivityOverview::kMaxBins) violated("overview past its bins");
  (void)overview.columns(320);
  const SubsecondHeatmap heat = SubsecondHeatmap::build(data);
  if (static_cast<std::size_t>(heat.columns()) * static_cast<std::size_t>(heat.rows()) > SubsecondHeatmap::kMaxCells)
    violated("heat map past its cells");
  (void)heat.caption();
  if (!heat.empty()) (void)heat.selection({0, 0}, {heat.columns() - 1, heat.rows() - 1});
  const FlameGraph flame = build_flame_graph(data, data.first_time, data.end_time);
  (void)layout_flame_graph(flame, 0, 320);
  for (const SummaryGrouping by : {SummaryGrouping::label, SummaryGrouping::kind, SummaryGrouping::site})
    (void)summarize_timeline(data, by, 1);
  TimelineViewState view;
  view.fit(data, 320);
  for (std::uint32_t i = 0; i < data.threads.size() && i < 64; ++i) {
    if (data.thread_index(data.threads[i].id) != i) violated("thread_index misses a thread");
    view.select(data, i);
  }
}

// The lints, as `skein lint --no-store` runs them, and their text.
inline Result<LintReport> run_lints(TraceStore& store, bool keep_transfers) {
  LintOptions options;
  options.keep_transfers = keep_transfers;
  auto report = lint_store(store, options);
  if (report) (void)render_lint_text(report.value(), [](ThreadId) { return std::string("label"); });
  return report;
}

}  // namespace skein::fuzz
