// inspection_overview_test.cpp — the headless cores of the overview strip,
// the subsecond heat map and the flame graph (viewer/timeline), on small traces
// written by hand, imported for real and loaded with load_timeline(), with
// exact expected values:
//
//   - activity: the exact run-time histogram (an activation covering many
//     bins), the overview's density and level per column at two widths, a
//     long trace whose bins are wider than 1 ns, the strip's window moves;
//   - heat map: the unit chosen for a trace's length and the caption that
//     says so, cell values, cell <-> time, selections in time order and
//     clamped to the trace, the grid's geometry;
//   - flame graph: the label-ancestry rule (nearest labelled ancestor,
//     "(unlabelled)"), a range that cuts activations, parallel threads
//     adding up past the range's length, a parent cycle, and the layout
//     of frames for a width, zoomed and not.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "recorder/store/trace_import.hpp"
#include "viewer/timeline/activity_overview.hpp"
#include "viewer/timeline/flame_graph.hpp"
#include "viewer/timeline/subsecond_heatmap.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "tests/viewer/overview_trace.hpp"

using namespace skein;

namespace {

using skein::test::kOverviewTrace;
const char* const kTrace = kOverviewTrace;

// Twelve seconds: 1 runs [2.5 s, 2.53 s) and [7.2 s, 7.21 s).
const char* const kLongTrace = R"((skein-trace 1 (process "long"))
(spawn 0 1 -1 task)
(switch 2500000000 1)
(switch 2530000000 -1)
(switch 7200000000 1)
(switch 7210000000 -1)
(end 12000000000)
)";

TimelineData load(const char* text, const char* name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("skein-overview-" + std::to_string(::getpid()) + "-" + name);
  std::filesystem::create_directories(dir);
  const auto trace = dir / "t.sexp";
  std::ofstream(trace) << text;
  const std::string db = (dir / "t.db").string();
  ImportOptions options;
  options.sync = false;
  const ImportResult imported = import_trace(trace.string(), db, options);
  REQUIRE(imported.ok());
  TimelineData data;
  {
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    auto loaded = load_timeline(store.value());
    REQUIRE(loaded.ok());
    data = std::move(loaded).value();
  }
  std::filesystem::remove_all(dir);
  REQUIRE(data.check_invariants());
  return data;
}

std::uint32_t index(const TimelineData& d, ThreadId id) {
  const auto i = d.thread_index(id);
  REQUIRE(i);
  return *i;
}

const FlameFrame& frame(const FlameGraph& g, const std::vector<std::string>& path) {
  const auto f = g.find(path);
  REQUIRE(f);
  return g.frames[static_cast<std::size_t>(*f)];
}

// Two loops at once (hand-built: a store's activations never overlap):
// threads 1 and 2, both "worker", each on its own row, both run [0, 1000).
TimelineData parallel_workers() {
  TimelineData d;
  d.first_time = 0;
  d.end_time = 1000;
  d.strings = {"", "worker"};
  for (ThreadId id : {1, 2}) {
    TimelineThread t;
    t.id = id;
    t.parent = -1;
    t.end = 1000;
    t.row = static_cast<std::int32_t>(id - 1);
    t.label = 1;
    d.threads.push_back(t);
    TimelineRow r;
    r.activations.push_back({0, 1000, static_cast<std::uint32_t>(id - 1)});
    d.rows.push_back(r);
  }
  return d;
}

}  // namespace

TEST_CASE("the run-time histogram is exact, also for an activation covering many bins", "[overview]") {
  const TimelineData d = load(kTrace, "histogram");
  CHECK(d.first_time == 0);
  CHECK(d.end_time == 10000);
  // Bins of 300 ns: 1's [1000, 2000) covers bins 4 and 5 whole; 1, 3 and 6 keep 6 to 9 full.
  CHECK(run_time_histogram(d, 0, 300, 10) ==
        std::vector<std::int64_t>{0, 0, 0, 200, 300, 300, 300, 300, 300, 300});
  // From 500 in bins of 1000: cut at both ends.
  CHECK(run_time_histogram(d, 500, 1000, 5) == std::vector<std::int64_t>{500, 1000, 500, 500, 100});
  CHECK(run_time_histogram(d, 0, 1000, 0).empty());
}

TEST_CASE("the overview's columns hold run time, density and level", "[overview]") {
  const TimelineData d = load(kTrace, "overview");
  const ActivityOverview o = ActivityOverview::build(d);
  CHECK(o.bin_ns() == 1);
  CHECK(o.bins() == 10000);
  CHECK(o.run_time(0, 10000) == 4100);
  CHECK(o.cumulative_at(2500) == 1500);
  CHECK(o.cumulative_at(-5) == 0);
  CHECK(o.cumulative_at(20000) == 4100);

  const std::vector<OverviewColumn> ten = o.columns(10);
  REQUIRE(ten.size() == 10);
  const std::vector<double> density{0, 1, 1, 0, 0.6, 0, 0.5, 0, 1, 0};
  for (std::size_t x = 0; x < 10; ++x) {
    INFO("column " << x);
    CHECK(ten[x].t0 == Approx(1000.0 * static_cast<double>(x)));
    CHECK(ten[x].t1 == Approx(1000.0 * static_cast<double>(x + 1)));
    CHECK(ten[x].density == Approx(density[x]));
    CHECK(ten[x].level == Approx(density[x]));  // the densest column is always busy
  }
  CHECK(ten[4].run_ns == Approx(600));

  // Four columns of 2500 ns: 1500, 1100, 500 and 1000 ns of run time.
  const std::vector<OverviewColumn> four = o.columns(4);
  REQUIRE(four.size() == 4);
  CHECK(four[0].run_ns == Approx(1500));
  CHECK(four[1].run_ns == Approx(1100));
  CHECK(four[2].run_ns == Approx(500));
  CHECK(four[3].run_ns == Approx(1000));
  CHECK(four[0].density == Approx(0.6));
  CHECK(four[1].density == Approx(0.44));
  CHECK(four[0].level == Approx(1));
  CHECK(four[1].level == Approx(1100.0 / 1500));
  CHECK(four[2].level == Approx(500.0 / 1500));
  CHECK(four[3].level == Approx(1000.0 / 1500));
  CHECK(o.columns(0).empty());

  // An empty trace has no columns.
  CHECK(ActivityOverview::build(TimelineData{}).columns(100).empty());
}

TEST_CASE("a long trace's overview has at most kMaxBins bins and keeps every ns of run time", "[overview]") {
  const TimelineData d = load(kLongTrace, "long-overview");
  const ActivityOverview o = ActivityOverview::build(d);
  CHECK(o.bin_ns() == 183106);  // ceil(12 s / 65536)
  CHECK(o.bins() <= ActivityOverview::kMaxBins);
  CHECK(o.run_time(0, 12e9) == 40'000'000);
  const std::vector<OverviewColumn> seconds = o.columns(12);
  REQUIRE(seconds.size() == 12);
  // Column edges fall inside idle bins, so the columns are exact too.
  CHECK(seconds[2].run_ns == 30'000'000);
  CHECK(seconds[7].run_ns == 10'000'000);
  CHECK(seconds[0].run_ns == 0);
  CHECK(seconds[2].density == Approx(0.03));
  CHECK(seconds[2].level == 1);
  CHECK(seconds[7].level == Approx(1.0 / 3));
}

TEST_CASE("the strip's window: mapping, centring on a click and moving with a drag, inside the trace", "[overview]") {
  const OverviewMapping m{0, 10000, 500};
  CHECK(m.x_of(2000) == Approx(100));
  CHECK(m.t_of(250) == Approx(5000));
  const OverviewWindow w{2000, 4000};
  const auto same = [](OverviewWindow a, double t0, double t1) { return a.t0 == Approx(t0) && a.t1 == Approx(t1); };
  CHECK(same(w.centred_at(5000, 0, 10000), 4000, 6000));
  CHECK(same(w.centred_at(500, 0, 10000), 0, 2000));  // kept inside
  CHECK(same(w.centred_at(9900, 0, 10000), 8000, 10000));
  CHECK(same(w.moved_by(-100, 0, 10000), 1900, 3900));
  CHECK(same(w.moved_by(7000, 0, 10000), 8000, 10000));
  // A window longer than the trace is centred on it.
  CHECK(same(OverviewWindow{-1000, 12000}.moved_by(300, 0, 10000), -1500, 11500));
}

TEST_CASE("heat map: seconds for a long trace, a smaller unit for a short one, and the caption says so",
          "[heatmap]") {
  CHECK(SubsecondHeatmap::choose_unit(60'000'000'000) == 1'000'000'000);
  CHECK(SubsecondHeatmap::choose_unit(5'000'000'000) == 1'000'000'000);
  CHECK(SubsecondHeatmap::choose_unit(4'999'999'999) == 100'000'000);
  CHECK(SubsecondHeatmap::choose_unit(3'000'000'000) == 100'000'000);
  CHECK(SubsecondHeatmap::choose_unit(500'000'000) == 100'000'000);
  CHECK(SubsecondHeatmap::choose_unit(200'000'000) == 10'000'000);
  CHECK(SubsecondHeatmap::choose_unit(10'000) == 1'000);
  CHECK(SubsecondHeatmap::choose_unit(10) == 1'000);  // never below 1 µs

  const TimelineData d = load(kLongTrace, "long-heatmap");
  const SubsecondHeatmap m = SubsecondHeatmap::build(d);
  CHECK(m.unit_ns() == 1'000'000'000);
  CHECK(m.cell_ns() == 20'000'000);
  CHECK_FALSE(m.is_subsecond());
  CHECK(m.columns() == 12);
  CHECK(m.rows() == 50);
  CHECK(m.caption() == "columns of 1 s, rows of 20 ms: offset within the second");
  // 2.5 s is column 2, row 25; 1 runs all of its 20 ms and half the next.
  CHECK(m.cell_at_time(2.5e9) == HeatmapCell{2, 25});
  CHECK(m.run_ns({2, 25}) == 20'000'000);
  CHECK(m.run_ns({2, 26}) == 10'000'000);
  CHECK(m.run_ns({7, 10}) == 10'000'000);
  CHECK(m.run_ns({7, 11}) == 0);
  CHECK(m.busy({2, 26}) == Approx(0.5));
  CHECK(m.level({7, 10}) == Approx(0.5));
  CHECK(m.max_run_ns() == 20'000'000);
  CHECK(m.run_ns({12, 0}) == 0);  // outside the grid

  const TimelineData short_trace = load(kTrace, "short-heatmap");
  const SubsecondHeatmap s = SubsecondHeatmap::build(short_trace);
  CHECK(s.unit_ns() == 1'000);
  CHECK(s.is_subsecond());
  CHECK(s.caption() == "trace shorter than 50 µs: columns of 1 µs, rows of 20 ns (offset within the column)");
  CHECK(s.columns() == 10);
  CHECK(s.run_ns({1, 0}) == 20);
  CHECK(s.busy({1, 49}) == 1);
  CHECK(s.run_ns({4, 29}) == 20);  // 4 runs until 4600: row 29 is [4580, 4600)
  CHECK(s.run_ns({4, 30}) == 0);
}

TEST_CASE("heat map cells: values, cell <-> time and selections from cell to cell", "[heatmap]") {
  const TimelineData d = load(kTrace, "cells");
  // Columns of 2 µs, 4 rows of 500 ns.
  const SubsecondHeatmap m = SubsecondHeatmap::build(d, 2000, 4);
  REQUIRE(m.columns() == 5);
  REQUIRE(m.rows() == 4);
  CHECK(m.caption() == "columns of 2 µs, rows of 500 ns (offset within the column)");
  const std::vector<std::vector<std::int64_t>> expected{
      {0, 0, 500, 500}, {500, 500, 0, 0}, {500, 100, 0, 0}, {500, 0, 0, 0}, {500, 500, 0, 0}};
  for (int c = 0; c < 5; ++c)
    for (int r = 0; r < 4; ++r) {
      INFO("column " << c << ", row " << r);
      CHECK(m.run_ns({c, r}) == expected[static_cast<std::size_t>(c)][static_cast<std::size_t>(r)]);
    }
  CHECK(m.max_run_ns() == 500);
  CHECK(m.level({2, 1}) == Approx(0.2));
  CHECK(m.busy({2, 1}) == Approx(0.2));

  CHECK(m.cell_range({2, 1}) == HeatmapRange{4500, 5000});
  CHECK(m.cell_at_time(4700) == HeatmapCell{2, 1});
  CHECK(m.cell_at_time(4500) == HeatmapCell{2, 1});
  CHECK_FALSE(m.cell_at_time(10000));
  CHECK_FALSE(m.cell_at_time(-1));
  // From the earlier cell's start to the later cell's end, either way round.
  CHECK(m.selection({1, 0}, {3, 2}) == HeatmapRange{2000, 7500});
  CHECK(m.selection({3, 2}, {1, 0}) == HeatmapRange{2000, 7500});
  CHECK(m.selection({2, 1}, {2, 1}) == HeatmapRange{4500, 5000});
  CHECK(m.cell_in({2, 0}, {2000, 7500}));
  CHECK(m.cell_in({3, 2}, {2000, 7500}));
  CHECK_FALSE(m.cell_in({3, 3}, {2000, 7500}));
  CHECK_FALSE(m.cell_in({0, 3}, {2000, 7500}));

  // Clamped to the trace: the last column of 3 µs reaches past its end.
  const SubsecondHeatmap wide = SubsecondHeatmap::build(d, 3000, 3);
  REQUIRE(wide.columns() == 4);
  CHECK(wide.selection({0, 1}, {3, 1}) == HeatmapRange{1000, 10000});

  // The grid in a widget: 5 x 4 cells of 100 x 50 px from (40, 20).
  const HeatmapGeometry g = HeatmapGeometry::fit(m, 40, 20, 500, 200);
  CHECK(g.cell_w == 100);
  CHECK(g.cell_h == 50);
  CHECK(g.cell_at(145, 75) == HeatmapCell{1, 1});
  CHECK(g.cell_at(539, 219) == HeatmapCell{4, 3});
  CHECK_FALSE(g.cell_at(39, 75));
  CHECK_FALSE(g.cell_at(540, 75));
  CHECK(g.nearest_cell(1000, -5) == HeatmapCell{4, 0});
  CHECK(g.x_of(2) == 240);
  CHECK(g.y_of(3) == 170);
}

TEST_CASE("label ancestry: labelled creators root first, the nearest labelled one for the unlabelled",
          "[flame]") {
  const TimelineData d = load(kTrace, "ancestry");
  using Names = std::vector<std::string>;
  CHECK(label_ancestry(d, index(d, 1)) == Names{"server"});
  CHECK(label_ancestry(d, index(d, 2)) == Names{"server"});
  CHECK(label_ancestry(d, index(d, 3)) == Names{"server", "handler"});
  CHECK(label_ancestry(d, index(d, 6)) == Names{"server", "handler"});
  CHECK(label_ancestry(d, index(d, 4)) == Names{"server", "db"});
  CHECK(label_ancestry(d, index(d, 7)) == Names{"timer"});
  CHECK(label_ancestry(d, index(d, 5)).empty());
  CHECK(label_ancestry(d, index(d, 0)).empty());
}

TEST_CASE("flame graph of the whole trace: frames by label ancestry, (unlabelled), names in order", "[flame]") {
  const TimelineData d = load(kTrace, "flame-whole");
  const FlameGraph g = build_flame_graph(d, d.first_time, d.end_time);
  REQUIRE(g.frames.size() == 6);
  CHECK(g.frames[0].name == "all");
  CHECK(g.total() == 4100);
  // 1 ran 1000 ns and its unlabelled child 2 200 ns: both are "server".
  const FlameFrame& server = frame(g, {"server"});
  CHECK(server.self == 1200);
  CHECK(server.total == 2800);
  CHECK(server.depth == 1);
  // 6 (unlabelled) counts under its creator 3, "handler".
  CHECK(frame(g, {"server", "handler"}).total == 1000);
  CHECK(frame(g, {"server", "handler"}).self == 1000);
  CHECK(frame(g, {"server", "handler"}).depth == 2);
  CHECK(frame(g, {"server", "db"}).total == 600);
  // 5 has no labelled ancestor.
  CHECK(frame(g, {"(unlabelled)"}).total == 300);
  CHECK(frame(g, {"timer"}).total == 1000);
  // Children sorted by name; parents before children.
  std::vector<std::string> top;
  for (std::int32_t c : g.frames[0].children) top.push_back(g.frames[static_cast<std::size_t>(c)].name);
  CHECK(top == std::vector<std::string>{"(unlabelled)", "server", "timer"});
  std::vector<std::string> under;
  for (std::int32_t c : server.children) under.push_back(g.frames[static_cast<std::size_t>(c)].name);
  CHECK(under == std::vector<std::string>{"db", "handler"});
  for (std::size_t f = 1; f < g.frames.size(); ++f) CHECK(g.frames[f].parent < static_cast<std::int32_t>(f));
  CHECK(g.path_of(*g.find({"server", "db"})) == std::vector<std::string>{"server", "db"});
  CHECK(g.share(*g.find({"server"})) == Approx(2800.0 / 4100));
  CHECK(g.share(*g.find({"server", "db"}), *g.find({"server"})) == Approx(600.0 / 2800));
}

TEST_CASE("flame graph of a range that cuts activations counts only their overlap", "[flame]") {
  const TimelineData d = load(kTrace, "flame-cut");
  const FlameGraphIndex index(d);
  CHECK(index.thread_count() == d.threads.size());
  // [2200, 6100]: 3 for 300 ns, 6 for 500, 4 for 600, 5 for 100; 1, 2, 7 not at all.
  const FlameGraph g = index.build(d, 2200, 6100);
  CHECK(g.t0 == 2200);
  CHECK(g.t1 == 6100);
  REQUIRE(g.frames.size() == 5);
  CHECK(g.total() == 1500);
  CHECK(frame(g, {"server"}).total == 1400);
  CHECK(frame(g, {"server"}).self == 0);
  CHECK(frame(g, {"server", "handler"}).total == 800);
  CHECK(frame(g, {"server", "db"}).total == 600);
  CHECK(frame(g, {"(unlabelled)"}).total == 100);
  CHECK_FALSE(g.find({"timer"}));  // frames without run time are left out
  // An empty range: the root alone.
  const FlameGraph none = index.build(d, 3000, 4000);
  REQUIRE(none.frames.size() == 1);
  CHECK(none.total() == 0);
  CHECK(index.build(d, 5000, 5000).frames.size() == 1);
}

TEST_CASE("flame graph: parallel threads add up, past the range's wall time", "[flame]") {
  const TimelineData d = parallel_workers();
  const FlameGraph g = build_flame_graph(d, 0, 1000);
  REQUIRE(g.frames.size() == 2);
  CHECK(frame(g, {"worker"}).total == 2000);  // two threads, each 1000 ns, in 1000 ns of wall time
  CHECK(g.total() == 2000);
  const FlameGraph half = build_flame_graph(d, 250, 750);
  CHECK(frame(half, {"worker"}).total == 1000);
}

TEST_CASE("flame graph: a cycle of parent links does not hang the index", "[flame]") {
  TimelineData d = parallel_workers();
  d.threads[0].parent = 2;
  d.threads[1].parent = 1;
  d.strings = {"", "a", "b"};
  d.threads[1].label = 2;
  const FlameGraph g = build_flame_graph(d, 0, 1000);
  CHECK(g.total() == 2000);
  CHECK(label_ancestry(d, 0).size() == 2);
}

TEST_CASE("flame graph layout: widths by run time, children left-aligned, a focus spans the width", "[flame]") {
  const TimelineData d = load(kTrace, "flame-layout");
  const FlameGraph g = build_flame_graph(d, d.first_time, d.end_time);
  const std::int32_t unlabelled = *g.find({"(unlabelled)"}), server = *g.find({"server"}),
                     timer = *g.find({"timer"}), db = *g.find({"server", "db"}),
                     handler = *g.find({"server", "handler"});
  // 820 px for 4100 ns: 0.2 px a ns.
  const std::vector<FlameRect> rects = layout_flame_graph(g, 0, 820);
  REQUIRE(rects.size() == 6);
  const auto rect_of = [](const std::vector<FlameRect>& rs, std::int32_t f) {
    const auto it = std::find_if(rs.begin(), rs.end(), [&](const FlameRect& r) { return r.frame == f; });
    REQUIRE(it != rs.end());
    return *it;
  };
  const auto is = [](const FlameRect& r, std::int32_t level, double x, double w) {
    return r.level == level && r.x == Approx(x) && r.w == Approx(w);
  };
  CHECK(is(rect_of(rects, 0), 0, 0, 820));
  CHECK(is(rect_of(rects, unlabelled), 1, 0, 60));
  CHECK(is(rect_of(rects, server), 1, 60, 560));
  CHECK(is(rect_of(rects, timer), 1, 620, 200));
  CHECK(is(rect_of(rects, db), 2, 60, 120));
  CHECK(is(rect_of(rects, handler), 2, 180, 200));
  CHECK(flame_rect_at(rects, 630, 1)->frame == timer);
  CHECK(flame_rect_at(rects, 179.9, 2)->frame == db);
  CHECK_FALSE(flame_rect_at(rects, 400, 2));  // server's self time: no child there
  CHECK_FALSE(flame_rect_at(rects, 10, 3));

  // Zoomed into "server": it and the root span 700 px, its children share them.
  const std::vector<FlameRect> zoomed = layout_flame_graph(g, server, 700);
  REQUIRE(zoomed.size() == 4);
  CHECK(is(zoomed[0], 0, 0, 700));
  CHECK(zoomed[0].frame == 0);
  CHECK(is(zoomed[1], 1, 0, 700));
  CHECK(zoomed[1].frame == server);
  CHECK(is(rect_of(zoomed, db), 2, 0, 150));
  CHECK(is(rect_of(zoomed, handler), 2, 150, 250));

  // Frames narrower than min_width go, with their subtrees.
  const std::vector<FlameRect> coarse = layout_flame_graph(g, 0, 820, 100);
  CHECK(coarse.size() == 5);
  CHECK(std::none_of(coarse.begin(), coarse.end(), [&](const FlameRect& r) { return r.frame == unlabelled; }));
  CHECK(layout_flame_graph(g, 0, 0).empty());
}
