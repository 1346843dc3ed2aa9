// timeline_model_test.cpp — the widget-free parts of the timeline: the
// time<->pixel mapping (zoom keeps the time under the pointer), the ruler's
// divisions and caption, duration parsing for `skein render`,
// load_timeline() on a small trace imported for real, with its rows placed
// by the import (and computed and written for a database without them, as
// the viewer computes them: the same rows), and the navigation:
// the limits of zoom and pan, End, reveal_window and the zoom history.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <fstream>
#include <sqlite3.h>

#include "recorder/format/trace_writer.hpp"
#include "recorder/store/trace_import.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/store_query.hpp"
#include "tests/viewer/loaded_timeline.hpp"
#include "viewer/timeline/layout_cache.hpp"
#include "viewer/timeline/time_mapping.hpp"
#include "viewer/timeline/time_ruler.hpp"
#include "viewer/timeline/timeline_navigation.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/timeline/zoom_history.hpp"

using namespace skein;

TEST_CASE("time mapping: x and t are inverse, zoom keeps the time under the pointer", "[timeline]") {
  TimeMapping m = TimeMapping::fitted(1000, 11000, 1000);
  CHECK(m.ns_per_px == Approx(10));
  CHECK(m.x_of(1000) == Approx(0));
  CHECK(m.x_of(11000) == Approx(1000));
  CHECK(m.t_of(250) == Approx(3500));
  const double before = m.t_of(300);
  m.zoom_at(300, 4);
  CHECK(m.ns_per_px == Approx(2.5));
  CHECK(m.t_of(300) == Approx(before));
  m.zoom_at(10, 0.5);
  CHECK(m.ns_per_px == Approx(5));
  m.pan_px(100);
  CHECK(m.t_of(100) == Approx(m.t_of(0) + 500));
  m.zoom_at(0, 1e30);
  CHECK(m.ns_per_px == Approx(TimeMapping::kMinNsPerPx));
}

TEST_CASE("ruler: 1-2-5 divisions at least the minimum width, units that fit", "[timeline]") {
  CHECK(ruler_step_ns(1, 90) == 100);
  CHECK(ruler_step_ns(2, 90) == 200);
  CHECK(ruler_step_ns(3, 90) == 500);
  CHECK(ruler_step_ns(10'000, 90) == 1'000'000);
  const TimeMapping m = TimeMapping::fitted(5'000'000, 5'000'000 + 12'000'000, 1200);  // 10 µs a pixel
  const TimeRuler r = make_ruler(m, 1200, 5'000'000);
  CHECK(r.step_ns == 1'000'000);
  CHECK(r.caption == "each division: 1 ms");
  REQUIRE(r.ticks.size() == 13);
  CHECK(r.ticks[0].x == Approx(0));
  CHECK(r.ticks[0].label == "0 ms");
  CHECK(r.ticks[3].label == "3 ms");
  CHECK(r.ticks[3].x == Approx(300));
  CHECK(format_ruler_time(125'200'000, 200'000) == "125.2 ms");
  CHECK(format_ruler_time(1'500, 500) == "1.5 µs");
  CHECK(format_ruler_time(1'500'000'000, 500'000'000) == "1.5 s");
  CHECK(format_ruler_time(3'000'000, 1'000'000) == "3 ms");
  CHECK(format_ruler_time(-2'000, 1'000) == "-2 µs");
}

TEST_CASE("durations with units parse to nanoseconds", "[timeline]") {
  CHECK(parse_duration_ns("125ms") == 125'000'000);
  CHECK(parse_duration_ns("1.5s") == 1'500'000'000);
  CHECK(parse_duration_ns("300us") == 300'000);
  CHECK(parse_duration_ns("300µs") == 300'000);
  CHECK(parse_duration_ns("42ns") == 42);
  CHECK(parse_duration_ns("2 ms") == 2'000'000);
  CHECK_FALSE(parse_duration_ns("12"));
  CHECK_FALSE(parse_duration_ns("ms"));
  CHECK_FALSE(parse_duration_ns("-1ms"));
  CHECK_FALSE(parse_duration_ns("3 parsecs"));
}

namespace {

// Thread 1 fails, 2 reads it, 3 merges into 4, 5 is pending at the end.
const char* const kTrace = R"((skein-trace 1 (process "t"))
(spawn 1000 1 0 task)
(label 1010 1 "poll")
(spawn 1100 2 0 bind)
(wait 1200 2 1)
(switch 1300 1)
(resolve 2000 1 1 fail "boom")
(read 2100 2 1)
(switch 2200 2)
(resolve 2300 2 2 ok)
(spawn 2400 3 0 bind)
(spawn 2500 4 3 task)
(merge 2600 3 4)
(notify 2700 0 4 io)
(idle 2800)
(switch 3000 4)
(resolve 3100 4 4 ok)
(counter 3200 "queue" 3)
(gc 3300 50)
(spawn 3400 5 0 task)
(end 4000)
)";

struct TempStore {
  std::filesystem::path dir;
  std::string db;
  TempStore() {
    dir = std::filesystem::temp_directory_path() / ("skein-timeline-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto trace = dir / "t.sexp";
    std::ofstream(trace) << kTrace;
    db = (dir / "t.db").string();
    ImportOptions options;
    options.sync = false;
    const ImportResult r = import_trace(trace.string(), db, options);
    REQUIRE(r.ok());
  }
  ~TempStore() { std::filesystem::remove_all(dir); }
};

}  // namespace

TEST_CASE("load_timeline reads threads, rows, edges, bands and counters", "[timeline]") {
  TempStore temp;
  auto store = TraceStore::open(temp.db);
  REQUIRE(store.ok());
  auto loaded = load_timeline(store.value());
  REQUIRE(loaded.ok());
  const TimelineData& d = loaded.value();
  CHECK(d.layout_from_cache);  // the import placed the rows
  CHECK(d.check_invariants());
  CHECK(d.first_time == 1000);
  CHECK(d.end_time == 4000);
  REQUIRE(d.threads.size() == 6);  // 0 (implicit) and 1..5

  const auto at = [&](ThreadId id) -> const TimelineThread& { return d.threads[*d.thread_index(id)]; };
  CHECK(at(1).outcome == ThreadOutcome::fail);
  CHECK(d.text(at(1).failure) == "boom");
  CHECK(d.text(at(1).label) == "poll");
  CHECK(at(5).outcome == ThreadOutcome::pending);
  CHECK(at(5).end == 4000);
  // The merge chain 3 -> 4 shares a row and a chain.
  CHECK(at(3).row == at(4).row);
  CHECK(at(3).chain == at(4).chain);
  CHECK(d.chain_members(*d.thread_index(4)).size() == 2);
  // Threads alive together are on different rows.
  CHECK(at(1).row != at(2).row);

  // Edges by time: spawn 1, spawn 2, wait, resolve 1, read, resolve 2, ...
  REQUIRE(d.edges.size() == 11);
  CHECK(d.edges[2].kind == EdgeKind::wait);
  CHECK(d.edges[2].src == static_cast<std::int32_t>(*d.thread_index(2)));
  CHECK(d.edges[2].dst == static_cast<std::int32_t>(*d.thread_index(1)));
  CHECK(d.edges[4].kind == EdgeKind::read);
  const auto notify = std::find_if(d.edges.begin(), d.edges.end(), [](auto& e) { return e.kind == EdgeKind::notify; });
  REQUIRE(notify != d.edges.end());
  CHECK(d.text(notify->text) == "io");

  // Idle from 2800 until 4 runs at 3000; gc for 50 ns.
  REQUIRE(d.idle.size() == 1);
  CHECK(d.idle[0].start == 2800);
  CHECK(d.idle[0].end == 3000);
  REQUIRE(d.gc.size() == 1);
  CHECK(d.gc[0].end == 3350);
  REQUIRE(d.counters.size() == 1);
  CHECK(d.counters[0].name == "queue");
  CHECK(d.counters[0].values == std::vector<std::int64_t>{3});
  CHECK(d.anomalies.empty());

  // Picking: on 1's row at 1500 is 1; far from any thread on a free row is nothing.
  CHECK(d.thread_at(at(1).row, 1500, 0) == d.thread_index(1));
  CHECK_FALSE(d.thread_at(static_cast<std::int32_t>(d.rows.size()) + 3, 1500, 0));
}

TEST_CASE("gc pauses that overlap are one band, drawn wherever a pause ran", "[timeline]") {
  // A long pause with two short ones inside it, one reaching past its
  // end, then one apart. The painter walks bands as disjoint; unmerged,
  // a short band inside the long one made it skip the long one's end.
  const std::vector<TimelineBand> pauses = {{1000, 6000}, {2000, 2100}, {5900, 6500}, {3000, 3100}, {7000, 7010}};
  std::vector<TimelineBand> gc = pauses;
  merge_gc_bands(gc);
  REQUIRE(gc.size() == 2);
  CHECK(gc[0].start == 1000);
  CHECK(gc[0].end == 6500);
  CHECK(gc[1].start == 7000);
  CHECK(gc[1].end == 7010);
  // As the load gives them, from the records.
  std::string trace = "(skein-trace 1)\n(spawn 0 1 0 task)\n";
  for (const TimelineBand& b : pauses)
    trace += "(gc " + std::to_string(b.start) + " " + std::to_string(b.end - b.start) + ")\n";
  trace += "(end 9000)\n";
  const test::LoadedTimeline loaded(trace, "gc");
  CHECK(loaded.data.check_invariants());
  REQUIRE(loaded.data.gc.size() == 2);
  CHECK(loaded.data.gc[0].end == 6500);
}

namespace {

void exec_sql(const std::string& db, const char* sql) {
  sqlite3* handle = nullptr;
  REQUIRE(sqlite3_open_v2(db.c_str(), &handle, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK);
  const int rc = sqlite3_exec(handle, sql, nullptr, nullptr, nullptr);
  sqlite3_close_v2(handle);
  REQUIRE(rc == SQLITE_OK);
}

}  // namespace

TEST_CASE("the import places the rows, and a database without them gets the same rows at its first opening",
          "[timeline]") {
  TempStore temp;
  const auto rows_of = [](const TimelineData& d) {
    std::vector<std::int32_t> rows;
    for (const auto& t : d.threads) rows.push_back(t.row);
    return rows;
  };
  std::vector<std::int32_t> imported_rows;
  {
    auto store = TraceStore::open(temp.db);
    REQUIRE(store.ok());
    REQUIRE(read_layout_cache(store.value(), 6));
    CHECK_FALSE(read_layout_cache(store.value(), 7));  // incomplete for 7 threads
    auto loaded = load_timeline(store.value());
    REQUIRE(loaded.ok());
    CHECK(loaded.value().layout_from_cache);
    imported_rows = rows_of(loaded.value());
  }
  // An older Skein's database: no layout_v2. The viewer computes the rows
  // from the threads table as read back, and they are the import's.
  CHECK(test::query(temp.db, "SELECT name FROM sqlite_schema WHERE name IN ('row_spans', 'activity_bins') "
                             "ORDER BY name") == "activity_bins\nrow_spans\n");
  exec_sql(temp.db, "DROP TABLE layout_v2");
  {
    auto store = TraceStore::open(temp.db);
    REQUIRE(store.ok());  // a database without the table is a valid one
    CHECK_FALSE(read_layout_cache(store.value(), 6));
    auto loaded = load_timeline(store.value());
    REQUIRE(loaded.ok());
    CHECK_FALSE(loaded.value().layout_from_cache);
    CHECK(rows_of(loaded.value()) == imported_rows);
  }
  // ...and wrote them, so the next opening reads them. The rows' spans and
  // the run time per bin, which hold the import's rows, went with them.
  CHECK(test::query(temp.db, "SELECT name FROM sqlite_schema WHERE name IN ('row_spans', 'activity_bins')") == "");
  auto store = TraceStore::open(temp.db);
  REQUIRE(store.ok());
  REQUIRE(read_layout_cache(store.value(), 6));
  auto loaded = load_timeline(store.value());
  REQUIRE(loaded.ok());
  CHECK(loaded.value().layout_from_cache);
  CHECK(rows_of(loaded.value()) == imported_rows);
  CHECK(loaded.value().threads[*loaded.value().thread_index(3)].chain ==
        loaded.value().threads[*loaded.value().thread_index(4)].chain);
}


TEST_CASE("the rows the import places are the rows the viewer computes, on generated traces", "[timeline]") {
  // The oracle is the viewer's own placement from the threads table as it
  // reads it back (the path every database made before took), not the
  // import's code: it sees the store's NULLs, the trace's end from meta,
  // and the labels as interned text.
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    samples::SyntheticOptions options;
    options.records = 40'000;
    options.seed = seed;
    const std::string text = samples::synthetic_trace_text(options);
    test::TempDir dir;
    const std::string db = dir.file("g.db");
    REQUIRE(test::import_text(text, db).ok());
    const auto rows_of = [&db](bool drop_first) {
      if (drop_first) exec_sql(db, "DROP TABLE layout_v2");
      auto store = TraceStore::open(db);
      REQUIRE(store.ok());
      TimelineLoadOptions load;
      load.write_layout_cache = false;
      auto loaded = load_timeline(store.value(), load);
      REQUIRE(loaded.ok());
      CHECK(loaded.value().layout_from_cache == !drop_first);
      std::vector<std::pair<ThreadId, std::int32_t>> rows;
      for (const auto& t : loaded.value().threads) rows.emplace_back(t.id, t.row);
      return rows;
    };
    const auto placed = rows_of(false);
    const auto computed = rows_of(true);
    REQUIRE(placed.size() > 1000);
    CHECK(placed == computed);
  }
}

TEST_CASE("a thread's row shows its first labels and how many, its list comes whole when asked, on generated traces",
          "[timeline]") {
  // The oracle is the label records, read back as `events`
  // (kThreadLabelsFromRecords), not the import's table or the viewer's
  // reading of it.
  for (const std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    samples::SyntheticOptions options;
    options.records = 100'000;
    options.seed = seed;
    test::TempDir dir;
    const std::string db = dir.file("g.db");
    REQUIRE(test::import_text(samples::synthetic_trace_text(options), db).ok());
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto loaded = load_timeline(store.value());
    REQUIRE(loaded.ok());
    const TimelineData& d = loaded.value();
    // thread -> its labels, from the records.
    std::map<ThreadId, std::vector<std::string>> expected;
    const std::string rows = test::query(db, test::kThreadLabelsFromRecords);
    for (std::size_t at = 0; at < rows.size();) {
      const std::size_t bar = rows.find('|', at), end = rows.find('\n', at);
      expected[std::stoll(rows.substr(at, bar - at))].push_back(rows.substr(bar + 1, end - bar - 1));
      at = end + 1;
    }
    REQUIRE(expected.size() >= 5);
    std::size_t several = 0;
    for (std::uint32_t i = 0; i < d.threads.size(); ++i) {
      const TimelineThread& t = d.threads[i];
      const auto it = expected.find(t.id);
      if (it == expected.end()) {
        CHECK(d.label_count(i) <= 1);
        continue;
      }
      ++several;
      const std::vector<std::string>& all = it->second;
      INFO("thread " << t.id);
      CHECK(d.label_count(i) == all.size());
      CHECK(d.labels_of(i) == all);
      std::string shown = all[0];
      for (std::size_t k = 1; k < std::min<std::size_t>(all.size(), kRowLabelsShown); ++k) shown += " · " + all[k];
      if (all.size() > kRowLabelsShown) shown += " · +" + std::to_string(all.size() - kRowLabelsShown) + " more";
      CHECK(d.text(t.label) == shown);
    }
    CHECK(several == expected.size());
  }
}

TEST_CASE("the lints' anomalies become markers, and a foreign table is ignored", "[timeline]") {
  TempStore temp;
  exec_sql(temp.db,
           "CREATE TABLE anomalies(id INTEGER PRIMARY KEY, rule TEXT NOT NULL, severity TEXT NOT NULL, "
           "time INTEGER NOT NULL, thread INTEGER NOT NULL, from_thread INTEGER, suspect INTEGER, event INTEGER, "
           "grouping TEXT, message TEXT NOT NULL);"
           "INSERT INTO anomalies(rule, severity, time, thread, from_thread, message) VALUES "
           "('missing-notification', 'warning', 2500, 2, 1, 'nobody woke 2'),"
           "('pending-at-end', 'note', 1500, 5, NULL, 'still pending');");
  {
    auto store = TraceStore::open(temp.db);
    REQUIRE(store.ok());
    auto loaded = load_timeline(store.value());
    REQUIRE(loaded.ok());
    const TimelineData& d = loaded.value();
    REQUIRE(d.anomalies.size() == 2);
    // Sorted by time.
    CHECK(d.anomalies[0].rule() == "pending-at-end");
    CHECK(d.anomalies[0].from == -1);
    CHECK(d.anomalies[1].rule() == "missing-notification");
    CHECK(d.anomalies[1].time == 2500);
    CHECK(d.anomalies[1].thread == static_cast<std::int32_t>(*d.thread_index(2)));
    CHECK(d.anomalies[1].from == static_cast<std::int32_t>(*d.thread_index(1)));
    CHECK(d.anomalies[1].message() == "nobody woke 2");
  }
  // A user's own table of that name, with other columns: no markers, no error.
  exec_sql(temp.db, "DROP TABLE anomalies; CREATE TABLE anomalies(note TEXT); INSERT INTO anomalies VALUES ('mine');");
  auto store = TraceStore::open(temp.db);
  REQUIRE(store.ok());
  auto loaded = load_timeline(store.value());
  REQUIRE(loaded.ok());
  CHECK(loaded.value().anomalies.empty());
}

// The moves of the time window (timeline_navigation.hpp), on a trace from
// 1000 to 11000 ns shown 1000 px wide: the fitted window is [900, 11100]
// (a 1% margin each side), 10.2 ns a pixel.
TEST_CASE("navigation: zoom-out stops at the fitted window, keeping the time under the pointer", "[navigation]") {
  const TimeWindow fitted = fitted_window(1000, 11000);
  CHECK(fitted.from == Approx(900));
  CHECK(fitted.to == Approx(11100));
  const TimeMapping fit = TimeMapping::fitted(fitted.from, fitted.to, 1000);
  // Zoomed in around x = 300, then far out around it: the scale stops at
  // the fitted one and t_of(300) stays put.
  const TimeMapping in = zoomed(fit, fitted, 1000, 300, 4);
  CHECK(in.ns_per_px == Approx(fit.ns_per_px / 4));
  CHECK(in.t_of(300) == Approx(fit.t_of(300)));
  const TimeMapping out = zoomed(in, fitted, 1000, 300, 1.0 / 100);
  CHECK(out.ns_per_px == Approx(fit.ns_per_px));
  CHECK(out.t_of(300) == Approx(fit.t_of(300)));
  CHECK(out.t_of(1000) - out.t_of(0) <= Approx(fitted.span()));
  // A window asked wider than the trace is cut to the fitted width.
  TimeMapping wide = TimeMapping::fitted(-50000, 50000, 1000);
  limit_window(wide, fitted, 1000, 500);
  CHECK(wide.t_of(1000) - wide.t_of(0) == Approx(fitted.span()));
}

TEST_CASE("navigation: panning keeps half the window over the trace", "[navigation]") {
  const TimeWindow fitted = fitted_window(1000, 11000);
  // 1000 ns across the width (1 ns a pixel), at the start of the trace.
  const TimeMapping m = TimeMapping::fitted(1000, 2000, 1000);
  const TimeMapping later = panned(m, fitted, 1000, 0.125);
  CHECK(later.t_of(0) == Approx(1125));
  CHECK(later.t_of(1000) == Approx(2125));
  CHECK(later.ns_per_px == m.ns_per_px);
  // Far to the left, the window stops with its right half over the fitted window.
  const TimeMapping early = panned(m, fitted, 1000, -50);
  CHECK(early.t_of(1000) == Approx(fitted.from + 500));
  // Far to the right: its left half.
  const TimeMapping late = panned(m, fitted, 1000, 50);
  CHECK(late.t_of(0) == Approx(fitted.to - 500));
  // At the fitted zoom, half of the fitted window stays in view.
  const TimeMapping fit = TimeMapping::fitted(fitted.from, fitted.to, 1000);
  CHECK(panned(fit, fitted, 1000, 5).t_of(0) == Approx(fitted.from + fitted.span() / 2));
}

TEST_CASE("navigation: End keeps the zoom and shows the end with the fitted margin", "[navigation]") {
  const TimeWindow fitted = fitted_window(1000, 11000);
  const TimeMapping m = TimeMapping::fitted(2000, 3020, 1000);  // 1020 ns across
  const TimeMapping end = at_end(m, 11000, fitted, 1000);
  CHECK(end.ns_per_px == m.ns_per_px);
  CHECK(end.t_of(1000) == Approx(11010));  // 1% of 1020 / 1.02
  // At the fitted zoom, End is the fitted window itself.
  const TimeMapping fit = TimeMapping::fitted(fitted.from, fitted.to, 1000);
  const TimeMapping fit_end = at_end(fit, 11000, fitted, 1000);
  CHECK(fit_end.t_of(0) == Approx(fitted.from));
  CHECK(fit_end.t_of(1000) == Approx(fitted.to));
}

TEST_CASE("navigation: reveal_window zooms in on a thin thread, out on a long one, pans to one off-screen",
          "[navigation]") {
  const TimeMapping m = TimeMapping::fitted(0, 100000, 1000);  // 100 ns a pixel
  // Wholly in view and wide enough: no move.
  CHECK_FALSE(reveal_window(m, 1000, 20000, 30000));
  // In view but 500 ns wide (5 px, under 1% of the window): zoom in until
  // it fills a third of the width, centred.
  const auto thin = reveal_window(m, 1000, 40000, 40500);
  REQUIRE(thin);
  CHECK(thin->span() == Approx(1500));
  CHECK((thin->from + thin->to) / 2 == Approx(40250));
  // An instant: not deeper than 1 µs.
  const auto instant = reveal_window(m, 1000, 50000, 50000);
  REQUIRE(instant);
  CHECK(instant->span() == Approx(kRevealMinSpanNs));
  // Longer than the window: the thread and 5% of it each side.
  const auto large = reveal_window(m, 1000, 50000, 250000);
  REQUIRE(large);
  CHECK(large->from == Approx(40000));
  CHECK(large->to == Approx(260000));
  // Off-screen, of a size that fits: centred, at the same zoom.
  const auto away = reveal_window(m, 1000, 300000, 310000);
  REQUIRE(away);
  CHECK(away->span() == Approx(100000));
  CHECK((away->from + away->to) / 2 == Approx(305000));
  // Cut by the right edge: the same.
  const auto cut = reveal_window(m, 1000, 95000, 105000);
  REQUIRE(cut);
  CHECK((cut->from + cut->to) / 2 == Approx(100000));
}

TEST_CASE("zoom history: back and forward restore windows exactly, gestures coalesce, the size is bounded",
          "[navigation]") {
  ZoomHistory h;
  const auto window = [](double start) {
    TimeMapping m;
    m.start = start;
    m.ns_per_px = 1 + start / 7;
    return m;
  };
  CHECK_FALSE(h.back(window(0)));
  h.record(window(0), WindowGesture::once, 0);
  h.record(window(1), WindowGesture::once, 10);
  // Three wheel ticks 100 ms apart are one entry: the window before the first.
  h.record(window(2), WindowGesture::wheel_zoom, 1000);
  h.record(window(3), WindowGesture::wheel_zoom, 1100);
  h.record(window(4), WindowGesture::wheel_zoom, 1200);
  CHECK(h.back_size() == 3);
  // After a pause, the same gesture is a new entry; another gesture too.
  h.record(window(5), WindowGesture::wheel_zoom, 2000);
  h.record(window(6), WindowGesture::pan_later, 2100);
  CHECK(h.back_size() == 5);
  const TimeMapping now = window(7);
  auto b = h.back(now);
  REQUIRE(b);
  CHECK(*b == window(6));
  b = h.back(*b);
  REQUIRE(b);
  CHECK(*b == window(5));
  b = h.back(*b);
  REQUIRE(b);
  CHECK(*b == window(2));  // the wheel gesture's start
  // Forward undoes the backs, in order, ending at the window back() was given.
  auto f = h.forward(*b);
  REQUIRE(f);
  CHECK(*f == window(5));
  f = h.forward(*f);
  f = h.forward(*f);
  REQUIRE(f);
  CHECK(*f == now);
  CHECK_FALSE(h.forward(*f));
  // A new change clears the forward list.
  CHECK(h.back(*f));
  CHECK(h.forward_size() == 1);
  h.record(window(9), WindowGesture::once, 3000);
  CHECK(h.forward_size() == 0);
  // Bounded: the oldest entries go.
  ZoomHistory full;
  for (int i = 0; i < 250; ++i) full.record(window(i), WindowGesture::once, i);
  CHECK(full.back_size() == ZoomHistory::kCapacity);
  TimeMapping at = window(250);
  for (std::size_t i = 0; i < ZoomHistory::kCapacity; ++i) at = *full.back(at);
  CHECK(at == window(150));
}
