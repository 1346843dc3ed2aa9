// lint_bench.cpp — the lints' speed: `skein lint` of a generated
// Skein trace of 1,000,000 records (samples/synthetic, the head mix of a
// real program) after its import: read every event in id order from the
// database, replay it, run all six rules, then store the findings in the
// `anomalies` table, as `skein lint TRACE` does in the trace's cache
// database (without waiting for the disk: a cache is rebuildable). The
// replay's verdicts for `skein why` and the viewer's Why? panel
// (`transfer_blocks`) are made when those first need them, and measured by
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
// A second trace of as many records is one fiber that spins on pause()
// (the shape of tests/user_programs/flag_spin, whose 15 ms make 400,000
// to 650,000 records in a release build): each round spawns a pause, waits
// for it, and the loop resolves it by a yield. One thread with that many
// waits is where a replay that walks a thread's every wait per turn turns
// quadratic. Target: its lint costs at most 2x the mix's per record, both
// measured in this run (a ratio, so the machine's load cancels out).
//
// Usage: lint_bench [RECORDS] (default 1,000,000).
#include <time.h>

#include <cstdio>
#include <fstream>
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

namespace {

// Writes `records` records (a few more, to finish a round): a fiber whose
// every round is spawn pause, wait, switch out, the yield's notify and
// resolve, switch in, read. Returns the count written.
std::uint64_t write_pausing_fiber(const std::string& path, std::uint64_t records) {
  std::ofstream out(path);
  if (!out) fail("cannot write " + path);
  out << "(skein-trace 1 (process \"lint_bench pausing fiber\"))\n"
         "(site 0 \"spin.cpp\" 1 \"relay\")\n"
         "(spawn 10 1 0 fiber 0)\n(switch 10 1)\n(label 11 1 \"relay\")\n";
  std::uint64_t written = 5;
  std::int64_t time = 20;
  for (std::int64_t pause = 2; written < records; ++pause) {
    out << "(spawn " << time << ' ' << pause << " 1 pause 0)\n(wait " << time << " 1 " << pause
        << ")\n(switch " << time + 10 << " -1)\n(notify " << time + 10 << " -1 " << pause
        << " yield)\n(resolve " << time + 10 << ' ' << pause << " -1 ok)\n(switch " << time + 20
        << " -1)\n(switch " << time + 20 << " 1)\n(read " << time + 30 << " 1 " << pause << ")\n";
    written += 8;
    time += 40;
  }
  out << "(resolve " << time << " 1 1 ok)\n";
  if (!out.flush()) fail("cannot write " + path);
  return written + 1;
}

struct LintTimes {
  std::vector<double> analysis, storing, total, cpu;
  std::size_t findings = 0;
};

LintTimes time_lint(const std::string& trace, const std::string& db) {
  ImportOptions import_options;
  import_options.sync = false;
  const ImportResult imported = import_trace(trace, db, import_options);
  if (!imported.ok()) fail(imported.error.to_string());
  LintTimes times;
  for (int run = 0; run < kRuns; ++run) {
    const double cpu0 = cpu_seconds();
    const auto start = std::chrono::steady_clock::now();
    LintReport report;
    std::shared_ptr<TraceDatabase> owner;
    {
      auto store = TraceStore::open(db);
      if (!store) fail(store.error().to_string());
      owner = store.value().owner();
      auto linted = lint_store(store.value(), {});
      if (!linted) fail(linted.error().to_string());
      report = std::move(linted).value();
    }
    const double analysed = seconds_since(start);
    if (Status s = store_lint_report(*owner, report, WriteDurability::rebuildable); !s.ok())
      fail(s.error().to_string());
    const double done = seconds_since(start);
    times.analysis.push_back(analysed);
    times.storing.push_back(done - analysed);
    times.total.push_back(done);
    times.cpu.push_back(cpu_seconds() - cpu0);
    times.findings = report.findings.size();
  }
  std::remove(trace.c_str());
  std::remove(db.c_str());
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t records = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const std::uint64_t written = bench::write_synthetic_trace("lint_bench", "bench-lint.sexp", records);
  const LintTimes mix = time_lint("bench-lint.sexp", "bench-lint.db");
  const std::uint64_t spin_written = write_pausing_fiber("bench-lint-spin.sexp", records);
  const LintTimes spin = time_lint("bench-lint-spin.sexp", "bench-lint-spin.db");

  char name[96];
  std::snprintf(name, sizeof name, "skein lint, %llu records, all rules", static_cast<unsigned long long>(written));
  bench::Table table("lints (skein lint of a generated Skein trace, after import), median of 5 runs");
  table.add({name, bench::fixed(median(mix.total), 3, "s"), "<= 1.000 s", median(mix.total) <= 1.0});
  table.add({"  of which: read, replay and rules", bench::fixed(median(mix.analysis), 3, "s"), "", true});
  table.add({"  of which: store " + std::to_string(mix.findings) + " findings",
             bench::fixed(median(mix.storing), 3, "s"), "", true});
  table.add({"  CPU time (the machine is shared)", bench::fixed(median(mix.cpu), 3, "s"), "", true});
  const double mix_per_record = median(mix.total) / static_cast<double>(written) * 1e9;
  table.add({"  per record", bench::fixed(mix_per_record, 0, "ns"), "", true});
  std::snprintf(name, sizeof name, "one fiber pausing, %llu records", static_cast<unsigned long long>(spin_written));
  const double spin_per_record = median(spin.total) / static_cast<double>(spin_written) * 1e9;
  table.add({name, bench::fixed(median(spin.total), 3, "s"), "", true});
  table.add({"  per record", bench::fixed(spin_per_record, 0, "ns"), "", true});
  const double ratio = spin_per_record / mix_per_record;
  table.add({"  per record, over the mix's", bench::fixed(ratio, 2, "x"), "<= 2.00x", ratio <= 2.0});
  return table.print() ? 0 : 1;
}
