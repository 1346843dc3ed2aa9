// render_bench.cpp — the viewer's speed: frames of the timeline
// rendered offscreen into a 1600x900 QImage with the painter skein-view
// uses, on generated traces (samples/synthetic, imported with the store) of
// 1,000,000 and 10,000,000 records.
//
// Targets on the 2-core reference machine:
//   - median frame <= 16 ms at each of five zoom levels, log-spaced from
//     the whole trace down to a 1 µs window (nine frames per level, panned
//     across the trace; each frame refolds its rows as the widget does);
//   - opening the imported database to its first frame as skein-view
//     draws it (open and check the store, read the fitted frame from the
//     levels the import stored, timeline_first_frame.hpp, draw; where the
//     store gives no such frame, the whole load's), median of three opens,
//     each of a fresh copy of the database as the import left it: <= 300
//     ms at 1,000,000 records, <= 500 ms at 10,000,000; shown for
//     information, the whole load that follows (read the timeline with the
//     layout and placed activations the import stored, draw), the open of
//     a database without the layout (an older Skein's: the viewer computes
//     it and caches it, which drops the import's row_spans) and its
//     reopen;
//   - resident memory after opening and drawing, with what the inspection
//     docks and the simplify-binds plan hold: <= 250 MB at 1M, <= 300 MB at 10M;
//   - opening to the first frame with what the inspection docks
//     compute on open (overview, heat map, summary, search index, flame
//     graph) still <= 1.5 s at 1M;
//   - the simplify-binds toggle <= 300 ms at 10M (shown at 1M), with the
//     plan skein-view derives once the trace is loaded (the plan's time,
//     and the toggle's without it, shown too);
//   - a search (Ctrl+F, by kind, every thread) answers, its first match
//     included, in <= 200 ms at 10M (shown at 1M);
//   - `skein render DB --from 50ms --to 51ms` (a window read alone,
//     timeline_window.hpp), a process of its own: its time and peak
//     resident memory at 10M at most 1.5x those at 1M, median of three;
//   - one thread labelled 320,000 times with distinct labels opens to its
//     first frame in at most 2x the time of one labelled 320,000 times with
//     one label (its row shows a few labels, kRowLabelsShown, and only
//     those are read at open), median of three opens each.
// The frames are drawn with the lints' findings (as skein-view has them once
// its analysis has run), read after the first frame as skein-view reads
// them. The trace is generated, imported and linted in a child process, so the parent's
// memory is the viewer's alone.
//
// With SKEIN_BENCH_LARGE=1, a database of 100,000,000 records too, whose
// first frame (from the levels, on the database as imported) must come
// within 500 ms; its whole load is not run.
//
// Usage: render_bench [MAX_RECORDS] (default 10,000,000).
// SKEIN_RENDER_BENCH_KEEP=PREFIX keeps the generated databases for reuse.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <QGuiApplication>
#include <QPainter>
#include <sqlite3.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/trace_import.hpp"
#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "tests/bench/bench_report.hpp"
#include "viewer/timeline/activity_overview.hpp"
#include "viewer/timeline/flame_graph.hpp"
#include "viewer/timeline/freed_memory.hpp"
#include "viewer/timeline/layout_cache.hpp"
#include "viewer/timeline/subsecond_heatmap.hpp"
#include "viewer/timeline/thread_search.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_filter.hpp"
#include "viewer/timeline/timeline_first_frame.hpp"
#include "viewer/timeline/timeline_summary.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/render/timeline_painter.hpp"

using namespace skein;
using skein::bench::median;
using skein::bench::seconds_since;

namespace {

constexpr int kWidth = 1600;
constexpr int kHeight = 900;
constexpr int kLevels = 5;
constexpr int kFramesPerLevel = 9;

struct Size {
  std::uint64_t records;
  const char* name;
};
constexpr Size kSizes[] = {{1'000'000, "1M"}, {10'000'000, "10M"}};

// Generates, imports and lints a trace of about `records` records into
// `db`, in a child process (the generator holds every record in memory).
void make_database(const std::string& db, std::uint64_t records) {
  const pid_t child = fork();
  if (child == 0) {
    const std::string trace = db + ".sexp";
    samples::SyntheticOptions options;
    options.records = records;
    {
      const auto generated = samples::synthetic_trace(options);
      auto writer = TraceWriter::create(trace);
      if (!writer) _exit(2);
      writer.value().write_header(samples::synthetic_header(options));
      for (const auto& r : generated) writer.value().write(r);
      if (!writer.value().finish().ok()) _exit(2);
    }
    ImportOptions import;
    import.sync = false;
    const ImportResult result = import_trace(trace, db, import);
    std::remove(trace.c_str());
    if (!result.ok()) {
      std::fprintf(stderr, "%s\n", result.error.to_string().c_str());
      _exit(2);
    }
    // Linted, as skein-view lints a trace it opens: the frames are drawn
    // with the findings' markers.
    auto store = TraceStore::open(db);
    if (!store) _exit(2);
    auto report = lint_store(store.value(), LintOptions{});
    if (!report || !store_lint_report(*store.value().owner(), report.value(), WriteDurability::rebuildable).ok()) {
      std::fprintf(stderr, "render_bench: cannot lint %s\n", db.c_str());
      _exit(2);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "render_bench: generating %s failed\n", db.c_str());
    std::exit(2);
  }
}

// A trace of one thread labelled `labels` times, with distinct labels or
// one repeated, imported into `db` in a child process.
void make_label_database(const std::string& db, int labels, bool distinct) {
  const pid_t child = fork();
  if (child == 0) {
    const std::string trace = db + ".sexp";
    {
      std::ofstream out(trace);
      out << "(skein-trace 1)\n(spawn 10 1 0 task)\n(switch 10 1)\n";
      for (int i = 0; i < labels; ++i)
        out << "(label " << 20 + i << " 1 \"" << (distinct ? "label-" + std::to_string(i) : std::string("label"))
            << "\")\n";
      out << "(resolve " << 30 + labels << " 1 1 ok)\n(end " << 40 + labels << ")\n";
    }
    ImportOptions import;
    import.sync = false;
    const ImportResult result = import_trace(trace, db, import);
    std::remove(trace.c_str());
    _exit(result.ok() ? 0 : 2);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "render_bench: generating %s failed\n", db.c_str());
    std::exit(2);
  }
}

void drop_layout_cache(const std::string& db) {
  const std::string command = "DROP TABLE IF EXISTS " + std::string(kLayoutTable.name);
  sqlite3* handle = nullptr;
  if (sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK)
    sqlite3_exec(handle, command.c_str(), nullptr, nullptr, nullptr);
  sqlite3_close_v2(handle);
}

double resident_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

struct InspectionSetUp {
  ActivityOverview overview;
  SubsecondHeatmap heatmap;
  TimelineSummary summary;
  std::unique_ptr<ThreadSearchIndex> search;
  FlameGraph flame;
};

InspectionSetUp set_up_inspection(const TimelineData& data) {
  InspectionSetUp s;
  s.overview = ActivityOverview::build(data);
  s.heatmap = SubsecondHeatmap::build(data);
  s.summary = summarize_timeline(data, SummaryGrouping::label, 0);
  s.search = std::make_unique<ThreadSearchIndex>(data);
  s.flame = build_flame_graph(data, data.first_time, data.end_time);
  return s;
}

// `skein render DB --from 50ms --to 51ms -o OUT.png` in a child process:
// its wall time (s) and peak resident memory (MB); exits the bench if it
// fails.
std::pair<double, double> render_one_millisecond(const std::string& db) {
  const std::string out = db + "-window.png";
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 1);
    execl(SKEIN_CLI_PATH, SKEIN_CLI_PATH, "render", db.c_str(), "--from", "50ms", "--to", "51ms", "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  const double seconds = seconds_since(start);
  std::remove(out.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "render_bench: skein render %s failed\n", db.c_str());
    std::exit(2);
  }
  return {seconds, double(usage.ru_maxrss) / 1024.0};
}

struct Opened {
  std::unique_ptr<TimelineData> data;
  double seconds = 0;
};

Opened open_and_draw(const std::string& db) {
  Opened o;
  const auto start = std::chrono::steady_clock::now();
  auto store = TraceStore::open(db);
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().to_string().c_str());
    std::exit(2);
  }
  // As skein-view opens a trace: the findings and the label lists come
  // after the first frame.
  TimelineLoadOptions options;
  options.findings = false;
  options.label_lists = false;
  auto data = load_timeline(store.value(), options);
  if (!data) {
    std::fprintf(stderr, "%s\n", data.error().to_string().c_str());
    std::exit(2);
  }
  o.data = std::make_unique<TimelineData>(std::move(data).value());
  TimelineViewState view;
  view.fit(*o.data, kWidth);
  view.refold(*o.data, kWidth);
  const QImage frame = render_timeline_image(*o.data, view, kWidth, kHeight);
  o.seconds = seconds_since(start);
  if (frame.isNull()) std::exit(2);
  return o;
}

// The first frame as skein-view draws it while the whole load goes on:
// read from the levels the import stored (timeline_first_frame.hpp). Its
// seconds, and whether the store gave one (else the first frame waits for
// the whole load).
struct FirstFrame {
  double seconds = 0;
  bool given = false;
  std::int64_t edges_read = 0;
};

FirstFrame open_first_frame(const std::string& db) {
  FirstFrame out;
  const auto start = std::chrono::steady_clock::now();
  auto store = TraceStore::open(db);
  if (!store) {
    std::fprintf(stderr, "%s\n", store.error().to_string().c_str());
    std::exit(2);
  }
  auto frame = load_timeline_first_frame(store.value(), kWidth, kHeight);
  if (!frame) {
    std::fprintf(stderr, "%s\n", frame.error().to_string().c_str());
    std::exit(2);
  }
  if (frame.value()) {
    TimelinePaintOptions options;
    options.edge_density = &frame.value()->edge_density;
    const QImage image = render_timeline_image(frame.value()->data, frame.value()->view, kWidth, kHeight, options);
    if (image.isNull()) std::exit(2);
    out.given = true;
    out.edges_read = frame.value()->edges_read;
  }
  out.seconds = seconds_since(start);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t max_records = argc > 1 ? std::stoull(argv[1]) : 10'000'000;
  // SKEIN_RENDER_BENCH_KEEP=PREFIX keeps the databases (PREFIX-1M.db...)
  // and reuses them on the next run: for profiling the viewer alone.
  const QByteArray keep = qgetenv("SKEIN_RENDER_BENCH_KEEP");
  const std::string folder = keep.isEmpty() ? "render-bench-" + std::to_string(getpid()) : keep.toStdString();
  std::vector<std::pair<Size, std::string>> databases;
  // Every database is made before Qt starts: fork() and threads do not mix.
  for (const Size& s : kSizes) {
    if (s.records > max_records) continue;
    const std::string db = folder + "-" + s.name + ".db";
    if (keep.isEmpty() || access(db.c_str(), R_OK) != 0) {
      std::fprintf(stderr, "  generating and importing %s records...\n", s.name);
      make_database(db, s.records);
    }
    databases.emplace_back(s, db);
  }
  // SKEIN_BENCH_LARGE=1: a 100M-record database too, for its first frame
  // alone (its whole load takes about 30 s and 6.5 GB).
  const bool with_large = qgetenv("SKEIN_BENCH_LARGE") == "1";
  const std::string large_db = folder + "-100M.db";
  if (with_large && (keep.isEmpty() || access(large_db.c_str(), R_OK) != 0)) {
    std::fprintf(stderr, "  generating and importing 100M records...\n");
    make_database(large_db, 100'000'000);
  }
  constexpr int kLabels = 320'000;
  const std::string distinct_labels = folder + "-labels-distinct.db";
  const std::string repeated_label = folder + "-labels-repeated.db";
  std::fprintf(stderr, "  generating and importing one thread with %d labels, distinct and repeated...\n", kLabels);
  make_label_database(distinct_labels, kLabels, true);
  make_label_database(repeated_label, kLabels, false);
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  // skein render of one millisecond, each size, before this process reads
  // anything: a child's peak memory counts what it shared with its parent
  // before exec.
  std::map<std::string, std::pair<double, double>> one_ms_renders;  // db -> median seconds, MB
  for (const auto& [size, db] : databases) {
    std::vector<double> times, peaks;
    for (int run = 0; run < 3; ++run) {
      const auto [seconds, peak] = render_one_millisecond(db);
      times.push_back(seconds);
      peaks.push_back(peak);
    }
    one_ms_renders[db] = {median(times), median(peaks)};
  }
  QGuiApplication app(argc, argv);

  bench::Table table("viewer rendering (1600x900 offscreen frames of generated traces), medians");
  std::pair<double, double> one_ms_render{0, 0};  // the first size's (1M) skein render: seconds, MB
  for (const auto& [size, db] : databases) {
    // Opening: a fresh copy of the database as imported, three times; then
    // the database without its layout (computed and cached by the open),
    // three times, and reopened once with the layout it cached.
    std::vector<double> cold, computed, levels;
    Opened opened;
    FirstFrame from_levels;
    const std::string fresh = db + ".fresh";
    for (int run = 0; run < 3; ++run) {
      std::filesystem::copy_file(db, fresh, std::filesystem::copy_options::overwrite_existing);
      from_levels = open_first_frame(fresh);
      // Without a frame from the levels, the first is the whole load's.
      double seconds = from_levels.seconds;
      opened = open_and_draw(fresh);
      if (!from_levels.given) seconds += opened.seconds;
      levels.push_back(seconds);
      cold.push_back(opened.seconds);
    }
    std::filesystem::remove(fresh);
    for (int run = 0; run < 3; ++run) {
      drop_layout_cache(db);
      opened = open_and_draw(db);
      computed.push_back(opened.seconds);
    }
    const double cached = open_and_draw(db).seconds;
    opened = open_and_draw(db);
    {
      // The findings, as the analysis worker delivers them after the first
      // frame: the frames below draw their markers.
      auto store = TraceStore::open(db);
      if (!store) std::exit(2);
      opened.data->anomalies = load_stored_findings(store.value().database(), *opened.data);
      index_finding_rows(*opened.data);
    }
    const TimelineData& data = *opened.data;
    const bool judged_open = size.records == 1'000'000;
    const bool large = size.records >= 10'000'000;
    const double open_budget = large ? 0.5 : 0.3;
    table.add({std::string("open to first frame, ") + size.name + ", as imported" +
                   (from_levels.given ? " (from the levels, " + std::to_string(from_levels.edges_read) + " edges read)"
                                : " (no frame from the levels: the whole load's)"),
               bench::fixed(median(levels) * 1e3, 0, "ms"), large ? "<= 500 ms" : "<= 300 ms",
               median(levels) <= open_budget});
    table.add({std::string("open with the whole trace loaded, ") + size.name + ", as imported",
               bench::fixed(median(cold) * 1e3, 0, "ms"), "", true});
    table.add({std::string("open to first frame, ") + size.name + ", layout computed",
               bench::fixed(median(computed) * 1e3, 0, "ms"), "", true});
    table.add({std::string("open to first frame, ") + size.name + ", layout cached", bench::fixed(cached * 1e3, 0, "ms"),
               "", true});

    // What skein-view's inspection docks compute when a trace opens (the
    // overview strip, the heat map, the summary, the search index, the
    // flame graph of the whole trace), kept alive for the memory figure;
    // and a declutter toggle (simplify binds), which lays the trace out
    // again.
    std::vector<double> docks;
    InspectionSetUp set_up;
    for (int run = 0; run < 3; ++run) {
      const auto start = std::chrono::steady_clock::now();
      set_up = set_up_inspection(*opened.data);
      docks.push_back(seconds_since(start));
    }
    table.add({std::string("inspection docks' set-up on open, ") + size.name, bench::fixed(median(docks) * 1e3, 0, "ms"),
               "", true});
    const double with_docks = median(cold) + median(docks);
    table.add({std::string("open to first frame with the docks, ") + size.name + ", cold",
               bench::fixed(with_docks * 1e3, 0, "ms"), judged_open ? "<= 1500 ms" : "", !judged_open || with_docks <= 1.5});
    // The simplify-binds plan, as skein-view's FilteredView derives it on
    // its worker once the trace is loaded (held for the memory figure, as
    // the view holds it), then the toggle, which moves the data by it;
    // median of three toggles, each dropped again as the view drops it.
    // The derivation of plan and move at once is shown beside, for a toggle
    // asked for before the plan is made.
    std::shared_ptr<const FilterPlan> simplify_plan;
    {
      const TimelineFilter simplify{true, {}, 0};
      auto start = std::chrono::steady_clock::now();
      simplify_plan = std::make_shared<const FilterPlan>(plan_filter(*opened.data, simplify));
      const double plan_seconds = seconds_since(start);
      std::vector<double> toggles;
      std::size_t hidden = 0;
      for (int run = 0; run < 3; ++run) {
        start = std::chrono::steady_clock::now();
        auto simplified = std::make_unique<FilteredTimeline>(filter_timeline(*opened.data, *simplify_plan));
        toggles.push_back(seconds_since(start));
        hidden = simplified->plumbing;
        simplified.reset();
        release_freed_memory();
      }
      start = std::chrono::steady_clock::now();
      auto at_once = std::make_unique<FilteredTimeline>(filter_timeline(*opened.data, simplify));
      const double at_once_seconds = seconds_since(start);
      at_once.reset();
      release_freed_memory();
      const double s = median(toggles);
      table.add({std::string("simplify binds plan, on a worker after the load, ") + size.name,
                 bench::fixed(plan_seconds * 1e3, 0, "ms"), "", true});
      table.add({std::string("simplify binds toggle, ") + size.name + " (" + std::to_string(hidden) +
                     " threads hidden)",
                 bench::fixed(s * 1e3, 0, "ms"), large ? "<= 300 ms" : "", !large || s <= 0.3});
      table.add({std::string("simplify binds toggle before its plan, ") + size.name,
                 bench::fixed(at_once_seconds * 1e3, 0, "ms"), "", true});
    }
    {
      // Ctrl+F over every thread's kind: the answer holds the first match.
      ThreadSearchQuery query;
      query.text = "bind";
      query.fields = kSearchKind;
      std::vector<double> searches;
      std::size_t matches = 0;
      for (int run = 0; run < 3; ++run) {
        const auto start = std::chrono::steady_clock::now();
        matches = set_up.search->search(query).matches.size();
        searches.push_back(seconds_since(start));
      }
      const double s = median(searches);
      table.add({std::string("search, ") + size.name + ", first match (" + std::to_string(matches) + " matches)",
                 bench::fixed(s * 1e3, 0, "ms"), large ? "<= 200 ms" : "", matches > 0 && (!large || s <= 0.2)});
    }

    // Frames at five zoom levels, log-spaced from the whole trace to 1 µs.
    const double whole = double(std::max<TimeNs>(1, data.end_time - data.first_time));
    for (int level = 0; level < kLevels; ++level) {
      const double window = whole * std::pow(1e3 / whole, double(level) / (kLevels - 1));
      std::vector<double> frames;
      TimelineViewState view;
      // One image reused frame after frame, as a widget reuses its backing store.
      QImage frame(kWidth, kHeight, QImage::Format_ARGB32_Premultiplied);
      const TimelineGeometry geometry(kWidth, kHeight, data);
      for (int k = 0; k < kFramesPerLevel; ++k) {
        // Panned across the trace: windows centred at 5%, 15%, ... 85%.
        const double centre = double(data.first_time) + whole * (0.05 + 0.1 * k);
        const double from = std::max(double(data.first_time), centre - window / 2);
        const auto start = std::chrono::steady_clock::now();
        view.mapping.fit(from, from + window, kWidth);
        view.refold(data, kWidth);
        QPainter painter(&frame);
        paint_timeline(painter, data, view, geometry);
        painter.end();
        frames.push_back(seconds_since(start));
      }
      const double ms = median(frames) * 1e3;
      table.add({std::string("frame, ") + size.name + ", window " +
                     format_duration_ns(static_cast<std::int64_t>(std::llround(window))) +
                     (level == 0 ? " (" + std::to_string(data.anomalies.size()) + " findings)" : std::string()),
                 bench::fixed(ms, 1, "ms"), "<= 16 ms", ms <= 16});
    }

    {
      const auto [t, peak] = one_ms_renders.at(db);
      const bool first = one_ms_render.first == 0;
      if (first) one_ms_render = {t, peak};
      const double time_ratio = t / one_ms_render.first, peak_ratio = peak / one_ms_render.second;
      table.add({std::string("skein render of 50-51 ms, ") + size.name + ": time", bench::fixed(t * 1e3, 0, "ms"), "",
                 true});
      table.add({std::string("skein render of 50-51 ms, ") + size.name + ": peak memory", bench::fixed(peak, 0, "MB"),
                 "", true});
      if (!first) {
        table.add({std::string("skein render of 50-51 ms, ") + size.name + " vs 1M: time",
                   bench::fixed(time_ratio, 2, "x"), "<= 1.50 x", time_ratio <= 1.5});
        table.add({std::string("skein render of 50-51 ms, ") + size.name + " vs 1M: peak memory",
                   bench::fixed(peak_ratio, 2, "x"), "<= 1.50 x", peak_ratio <= 1.5});
      }
    }

    const double rss = resident_mb();
    const double budget = large ? 300 : 250;
    char target[64];
    std::snprintf(target, sizeof target, "<= %.0f MB", budget);
    table.add({std::string("resident memory, ") + size.name, bench::fixed(rss, 0, "MB"), target, rss <= budget});
    set_up = InspectionSetUp{};
    simplify_plan.reset();
    opened.data.reset();
    if (keep.isEmpty()) std::remove(db.c_str());
  }

  // Many distinct labels on one thread against one label repeated as often.
  {
    const auto open_median = [](const std::string& db) {
      std::vector<double> opens;
      for (int run = 0; run < 3; ++run) {
        drop_layout_cache(db);
        opens.push_back(open_and_draw(db).seconds);
      }
      return median(opens);
    };
    const double distinct = open_median(distinct_labels);
    const double repeated = open_median(repeated_label);
    table.add({"open to first frame, one thread, 320k distinct labels", bench::fixed(distinct * 1e3, 0, "ms"), "", true});
    table.add({"open to first frame, one thread, 320k repeats of one label", bench::fixed(repeated * 1e3, 0, "ms"), "",
               true});
    const double ratio = distinct / std::max(repeated, 1e-9);
    table.add({"many distinct labels vs one repeated, open to first frame", bench::fixed(ratio, 2, "x"), "<= 2.00 x",
               ratio <= 2.0});
    std::remove(distinct_labels.c_str());
    std::remove(repeated_label.c_str());
  }
  if (with_large) {
    // The database as imported, not a copy (5.8 GB): the first frame
    // writes nothing.
    std::vector<double> opens;
    FirstFrame from_levels;
    for (int run = 0; run < 3; ++run) {
      from_levels = open_first_frame(large_db);
      opens.push_back(from_levels.seconds);
    }
    const double s = median(opens);
    table.add({std::string("open to first frame, 100M, as imported") +
                   (from_levels.given ? " (from the levels, " + std::to_string(from_levels.edges_read) + " edges read)"
                                      : " (no frame from the levels)"),
               bench::fixed(s * 1e3, 0, "ms"), "<= 500 ms", from_levels.given && s <= 0.5});
    if (keep.isEmpty()) std::remove(large_db.c_str());
  }
  return table.print() ? 0 : 1;
}
