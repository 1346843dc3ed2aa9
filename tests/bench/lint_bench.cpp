// lint_bench.cpp — the lints' speed: `skein lint` of a generated
// Skein trace of 1,000,000 records (samples/synthetic, the head mix of a
// real program) after its import: read every event in id order from the
// database, replay it, run all six rules, then store the findings in the
// `anomalies` table, as `skein lint TRACE` does in the trace's cache
// database (without waiting for the disk: a cache is rebuildable). The
// replay's verdicts for `skein why` and the viewer's Why? panel
// (`transfers`) are made when those first need them, and measured by
// why_bench.
//
// Target on the 2-core reference machine: <= 1 s for the whole lint,
// storing included (the median of 5 runs). The analysis and the storing
// are also shown apart, for information, with the number of findings
// (a generated trace is not complete by the rules, so it has many: the
// storing is measured under load, not on an empty list), and the CPU time:
// on a loaded machine it shows whether a missed figure is the lint's or
// the neighbours'.
//
// Usage: lint_bench [RECORDS] (default 1,000,000).
#include <time.h>

#include <cstdio>
#include <string>
#include <vector>

#include "recorder/store/trace_import.hpp"
#include "recorder/store/trace_store.hpp"
#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/bench/bench_report.hpp"
#include "tests/bench/synthetic_trace_file.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"

using namespace skein;
using skein::bench::median;
using skein::bench::seconds_since;

namespace {

constexpr int kRuns = 5;

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "lint_bench: %s\n", what.c_str());
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t records = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const std::string trace = "bench-lint.sexp";
  const std::string db = "bench-lint.db";
  const std::uint64_t written = bench::write_synthetic_trace("lint_bench", trace, records);
  ImportOptions import_options;
  import_options.sync = false;
  const ImportResult imported = import_trace(trace, db, import_options);
  if (!imported.ok()) fail(imported.error.to_string());

  std::vector<double> analysis, storing, total, cpu;
  std::size_t findings = 0;
  for (int run = 0; run < kRuns; ++run) {
    const double cpu0 = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    LintReport report;
    {
      auto store = TraceStore::open(db);
      if (!store) fail(store.error().to_string());
      auto linted = lint_store(store.value(), {});
      if (!linted) fail(linted.error().to_string());
      report = std::move(linted).value();
    }
    const double analysed = seconds_since(start);
    if (Status s = store_lint_report(db, report, AnomalyDurability::rebuildable); !s.ok())
      fail(s.error().to_string());
    const double done = seconds_since(start);
    analysis.push_back(analysed);
    storing.push_back(done - analysed);
    total.push_back(done);
    cpu.push_back(cpu_seconds() - cpu0);
    findings = report.findings.size();
  }
  std::remove(trace.c_str());
  std::remove(db.c_str());

  char name[96];
  std::snprintf(name, sizeof name, "skein lint, %llu records, all rules", static_cast<unsigned long long>(written));
  bench::Table table("lints (skein lint of a generated Skein trace, after import), median of 5 runs");
  table.add({name, bench::fixed(median(total), 3, "s"), "<= 1.000 s", median(total) <= 1.0});
  table.add({"  of which: read, replay and rules", bench::fixed(median(analysis), 3, "s"), "", true});
  table.add({"  of which: store " + std::to_string(findings) + " findings", bench::fixed(median(storing), 3, "s"),
             "", true});
  table.add({"  CPU time (the machine is shared)", bench::fixed(median(cpu), 3, "s"), "", true});
  table.add({"  per record", bench::fixed(median(total) / static_cast<double>(written) * 1e9, 0, "ns"), "", true});
  return table.print() ? 0 : 1;
}
