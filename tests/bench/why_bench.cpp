// why_bench.cpp — the cost of "why?" on a big trace: a generated Skein
// trace (samples/synthetic, the head mix of a real program) of 10,000,000
// records, imported; then what skein-view does after its first frame and
// what each question costs:
//
//   - the causes: the lint's replay with every verdict kept, and the
//     verdicts stored in `transfer_blocks` (once per trace, on the analysis
//     worker, never before the first frame);
//   - opening the engine (the merge groups, from `threads`);
//   - answering: 200 questions drawn with a fixed seed, half about a
//     thread at a time (its last record then), half about a record (as a
//     click on a finding asks), timed one by one.
//
// Targets: an answer in at most 100 ms (the median, and the 95th
// percentile, of the 200); the database, with the findings and the causes
// stored, at most 60 bytes a record. The causes and the engine's opening
// are shown for information, with the database's growth.
//
// Usage: why_bench [RECORDS] (default 10,000,000).
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <random>
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
#include "viewer/analysis/why_answer.hpp"

using namespace skein;
using skein::bench::median;
using skein::bench::seconds_since;

namespace {

constexpr int kQuestions = 200;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "why_bench: %s\n", what.c_str());
  std::exit(2);
}

double file_mb(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) / (1024.0 * 1024.0) : 0;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t records = argc > 1 ? std::stoull(argv[1]) : 10'000'000;
  const std::string trace = "bench-why.sexp";
  const std::string db = "bench-why.db";
  const std::uint64_t written = bench::write_synthetic_trace("why_bench", trace, records);
  ImportOptions import_options;
  import_options.sync = false;
  const ImportResult imported = import_trace(trace, db, import_options);
  if (!imported.ok()) fail(imported.error.to_string());
  std::remove(trace.c_str());
  const double before_mb = file_mb(db);

  // The causes, once, as the viewer's analysis worker makes them.
  const auto causes_start = std::chrono::steady_clock::now();
  std::size_t transfers = 0;
  {
    auto store = TraceStore::open(db);
    if (!store) fail(store.error().to_string());
    LintOptions options;
    options.keep_transfers = true;
    auto report = lint_store(store.value(), options);
    if (!report) fail(report.error().to_string());
    transfers = report.value().transfers.size();
    const std::shared_ptr<TraceDatabase> owner = store.value().owner();
    store = Result<TraceStore>(file_error(db, "closed"));
    if (Status s = store_lint_report(*owner, report.value(), WriteDurability::rebuildable); !s.ok())
      fail(s.error().to_string());
  }
  const double causes_s = seconds_since(causes_start);
  const double after_mb = file_mb(db);

  auto store = TraceStore::open(db);
  if (!store) fail(store.error().to_string());
  const auto open_start = std::chrono::steady_clock::now();
  auto engine = WhyEngine::open(store.value());
  if (!engine) fail(engine.error().to_string());
  const double open_s = seconds_since(open_start);

  // Questions: threads and records drawn across the trace.
  const auto threads = store.value().meta_int("threads").value_or(1);
  const auto events = store.value().meta_int("records").value_or(1);
  const auto end_time = store.value().meta_int("end_time").value_or(1);
  std::mt19937_64 rng(20141018);
  std::vector<double> times, thread_times, record_times;
  std::size_t steps = 0, missing = 0, roots = 0;
  for (int i = 0; i < kQuestions; ++i) {
    WhyQuestion q;
    if (i % 2 == 0) {
      q.thread = static_cast<ThreadId>(rng() % static_cast<std::uint64_t>(std::max<std::int64_t>(threads, 1)));
      q.at = static_cast<TimeNs>(rng() % static_cast<std::uint64_t>(std::max<std::int64_t>(end_time, 1)));
    } else {
      q.event = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(std::max<std::int64_t>(events, 1)));
    }
    const auto start = std::chrono::steady_clock::now();
    auto answer = engine.value().answer(q);
    times.push_back(seconds_since(start));
    (i % 2 == 0 ? thread_times : record_times).push_back(times.back());
    if (!answer) continue;  // a thread with nothing by then: still timed
    steps += answer.value().steps.size();
    if (answer.value().end == WhyEnd::no_recorded_cause) ++missing;
    if (answer.value().end == WhyEnd::root) ++roots;
  }
  std::remove(db.c_str());

  char name[96];
  std::snprintf(name, sizeof name, "why? on %llu records: an answer", static_cast<unsigned long long>(written));
  bench::Table table("Why? (the engine of skein why and of skein-view's Why? panel), " + std::to_string(kQuestions) +
                     " questions");
  const double med = median(times), p95 = percentile(times, 0.95);
  table.add({std::string(name) + " (median)", bench::fixed(med * 1e3, 2, "ms"), "<= 100 ms", med <= 0.1});
  table.add({"  95th percentile", bench::fixed(p95 * 1e3, 2, "ms"), "<= 100 ms", p95 <= 0.1});
  table.add({"  slowest", bench::fixed(percentile(times, 1.0) * 1e3, 2, "ms"), "", true});
  table.add({"  95th percentile, about a thread at a time", bench::fixed(percentile(thread_times, 0.95) * 1e3, 2, "ms"),
             "", true});
  table.add({"  95th percentile, about a record", bench::fixed(percentile(record_times, 0.95) * 1e3, 2, "ms"), "",
             true});
  table.add({"  steps per answer (mean)", bench::fixed(double(steps) / kQuestions, 1, ""), "", true});
  table.add({"  answers ending at a root / at no recorded cause",
             std::to_string(roots) + " / " + std::to_string(missing), "", true});
  table.add({"opening the engine (merge groups)", bench::fixed(open_s, 3, "s"), "", true});
  table.add({"the causes: replay, keep and store " + std::to_string(transfers) + " verdicts (once, after the first frame)",
             bench::fixed(causes_s, 2, "s"), "", true});
  table.add({"  database before / after", bench::fixed(before_mb, 0, "MB") + " / " + bench::fixed(after_mb, 0, "MB"), "",
             true});
  // Derived tables included, the whole database stays within the import's
  // budget a record (SCHEMA.md).
  const double bytes_per_record = after_mb * 1024.0 * 1024.0 / static_cast<double>(written);
  table.add({"  database with the findings and causes, a record", bench::fixed(bytes_per_record, 1, "B"),
             "<= 60 B", bytes_per_record <= 60.0});
  return table.print() ? 0 : 1;
}
