// viewer_task_bench.cpp — what a user of skein-view waits for on a big
// trace, timed in the real window (offscreen): a generated Skein trace
// (samples/synthetic, the head mix of a real program) of 10,000,000
// records, imported twice, one database never linted, one linted.
//
//   - open to first frame: MainWindow::open() to the first frame the
//     timeline paints with the trace in it. The never-linted database runs
//     its lints on open, on the analysis worker, after that frame; the
//     linted one reads its stored findings. The target is that the lints
//     never delay the first frame: the never-linted median within 25% of
//     the linted one (the two loads read the same tables; the margin is
//     the machine's noise, not a budget for the lints).
//   - findings arrive: open to the Anomalies dock filled (informative).
//   - a click on a finding: Inspection::show_anomaly(), what a click in
//     the Anomalies dock calls, to the next frame painted, over findings
//     drawn across the trace with a fixed seed. Target: at most 100 ms
//     (the median and the 95th percentile).
//
// Each open runs in a fresh MainWindow, the two databases alternating, on
// a fresh copy of the never-linted one (an open stores its findings).
//
// Usage: viewer_task_bench [RECORDS] (default 10,000,000).
#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QSettings>
#include <QStandardPaths>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "recorder/store/trace_import.hpp"
#include "recorder/store/trace_store.hpp"
#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/bench/bench_report.hpp"
#include "tests/bench/synthetic_trace_file.hpp"
#include "viewer/app/inspection.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/timeline/timeline_data.hpp"

using namespace skein;
using skein::bench::median;

namespace {

constexpr int kOpenRounds = 3;
constexpr int kClicks = 30;
constexpr int kWaitMs = 600'000;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "viewer_task_bench: %s\n", what.c_str());
  std::exit(2);
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

// Runs the event loop until `done` holds (checked after each event batch
// and at every signal that may make it hold), or fails after kWaitMs.
template <class Done>
void wait_until(Done done, const char* what) {
  QElapsedTimer waited;
  waited.start();
  while (!done()) {
    if (waited.elapsed() > kWaitMs) fail(std::string("timed out waiting for ") + what);
    QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 5);
  }
}

struct OpenTimes {
  double first_frame_s = 0;
  double findings_s = 0;  // open to the findings shown
};

// One open in a fresh window; `window` is kept for the clicks.
OpenTimes time_open(const std::string& db, std::unique_ptr<MainWindow>& window) {
  window = std::make_unique<MainWindow>();
  window->resize(1500, 950);
  window->show();
  bool loaded = false, ok = false, framed = false, settled = false;
  QElapsedTimer clock;
  OpenTimes times;
  // The connections below write to this function's locals: they end with
  // it (the window lives on for the clicks).
  QObject scope;
  QObject::connect(window.get(), &MainWindow::load_finished, &scope, [&](bool good) {
    loaded = true;
    ok = good;
  });
  QObject::connect(window->timeline(), &TimelineWidget::frame_painted, &scope, [&] {
    if (!framed && window->timeline()->data() != nullptr) {
      framed = true;
      times.first_frame_s = static_cast<double>(clock.nsecsElapsed()) * 1e-9;
    }
  });
  QObject::connect(window->inspection(), &Inspection::findings_settled, &scope, [&] {
    if (!settled) times.findings_s = static_cast<double>(clock.nsecsElapsed()) * 1e-9;
    settled = true;
  });
  clock.start();
  window->open(QString::fromStdString(db));
  wait_until([&] { return loaded; }, "the load");
  if (!ok) fail("the window could not open " + db);
  wait_until([&] { return framed && settled; }, "the first frame and the findings");
  return times;
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  const std::uint64_t records = argc > 1 ? std::stoull(argv[1]) : 10'000'000;
  QApplication app(argc, argv);
  QStandardPaths::setTestModeEnabled(true);  // no user settings read or written
  QSettings().clear();

  const std::string trace = "bench-viewer-task.sexp";
  const std::string never = "bench-viewer-task-never.db";
  const std::string linted = "bench-viewer-task-linted.db";
  const std::string copy = "bench-viewer-task-open.db";
  const std::uint64_t written = bench::write_synthetic_trace("viewer_task_bench", trace, records);
  ImportOptions import_options;
  import_options.sync = false;
  if (const ImportResult r = import_trace(trace, never, import_options); !r.ok()) fail(r.error.to_string());
  std::remove(trace.c_str());
  std::filesystem::copy_file(never, linted, std::filesystem::copy_options::overwrite_existing);
  std::size_t stored_findings = 0;
  {
    auto store = TraceStore::open(linted);
    if (!store) fail(store.error().to_string());
    LintOptions options;
    options.keep_transfers = true;
    auto report = lint_store(store.value(), options);
    if (!report) fail(report.error().to_string());
    stored_findings = report.value().findings.size();
    const std::shared_ptr<TraceDatabase> owner = store.value().owner();
    store = Result<TraceStore>(file_error(linted, "closed"));
    if (Status s = store_lint_report(*owner, report.value(), WriteDurability::rebuildable); !s.ok())
      fail(s.error().to_string());
  }
  if (stored_findings == 0) fail("the generated trace has no finding to click");

  std::vector<double> never_first, linted_first, never_findings, linted_findings;
  std::unique_ptr<MainWindow> window;
  for (int round = 0; round < kOpenRounds; ++round) {
    std::filesystem::copy_file(never, copy, std::filesystem::copy_options::overwrite_existing);
    const OpenTimes a = time_open(copy, window);
    never_first.push_back(a.first_frame_s);
    never_findings.push_back(a.findings_s);
    const OpenTimes b = time_open(linted, window);
    linted_first.push_back(b.first_frame_s);
    linted_findings.push_back(b.findings_s);
  }

  // Clicks, in the last window (the linted database, findings shown).
  Inspection* inspection = window->inspection();
  const std::size_t findings = inspection->full()->anomalies.size();
  if (findings == 0) fail("the window shows no finding");
  std::mt19937_64 rng(20141018);
  std::vector<double> clicks;
  for (int i = 0; i < kClicks; ++i) {
    const int index = static_cast<int>(rng() % findings);
    bool framed = false;
    const auto connection =
        QObject::connect(window->timeline(), &TimelineWidget::frame_painted, [&] { framed = true; });
    QElapsedTimer clock;
    clock.start();
    inspection->show_anomaly(index);
    wait_until([&] { return framed; }, "the frame after a click");
    clicks.push_back(static_cast<double>(clock.nsecsElapsed()) * 1e-9);
    QObject::disconnect(connection);
    // The click asked Why? on the analysis worker: its answer comes
    // before the next click, as a user reads it first.
    wait_until([&] { return !inspection->why()->loading(); }, "the Why? answer after a click");
  }
  window.reset();
  for (const std::string& f : {never, linted, copy}) std::remove(f.c_str());

  const double never_med = median(never_first), linted_med = median(linted_first);
  const double ratio = never_med / std::max(linted_med, 1e-9);
  char title[160];
  std::snprintf(title, sizeof title, "skein-view on %llu records (%zu findings), medians of %d opens and %d clicks",
                static_cast<unsigned long long>(written), stored_findings, kOpenRounds, kClicks);
  bench::Table table(title);
  table.add({"open to first frame, never linted (lints on open)", bench::fixed(never_med, 2, "s"), "", true});
  table.add({"open to first frame, linted", bench::fixed(linted_med, 2, "s"), "", true});
  table.add({"  ratio never linted / linted", bench::fixed(ratio, 2, "x"), "<= 1.25 x", ratio <= 1.25});
  table.add({"open to findings shown, never linted", bench::fixed(median(never_findings), 2, "s"), "", true});
  table.add({"open to findings shown, linted", bench::fixed(median(linted_findings), 2, "s"), "", true});
  const double click_med = median(clicks), click_p95 = percentile(clicks, 0.95);
  table.add({"a click on a finding to its frame", bench::fixed(click_med * 1e3, 1, "ms"), "<= 100 ms",
             click_med <= 0.1});
  table.add({"  95th percentile", bench::fixed(click_p95 * 1e3, 1, "ms"), "<= 100 ms", click_p95 <= 0.1});
  table.add({"  slowest", bench::fixed(percentile(clicks, 1.0) * 1e3, 1, "ms"), "", true});
  return table.print() ? 0 : 1;
}
