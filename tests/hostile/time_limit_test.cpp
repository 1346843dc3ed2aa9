// time_limit_test.cpp — times at and past the format's limit of 2^62 - 1
// ns: a trace within it is drawn by every command and by the viewer's
// overview and heat map in memory bounded by its size; one past it is
// refused at the reader with the time's place; a span of 10^16 or 10^17
// ns costs no more than a short one.
#include <catch2/catch.hpp>

#include "tests/hostile/hostile_inputs.hpp"

namespace skein::test {
namespace {

// A TimelineData made by hand, as no import makes it: one thread running
// over [start, end] on one row, the trace from first to end_time.
TimelineData hand_made(TimeNs first, TimeNs end_time, TimeNs start, TimeNs end) {
  TimelineData d;
  d.first_time = first;
  d.end_time = end_time;
  TimelineThread t;
  t.id = 1;
  t.start = start;
  t.end = end;
  d.threads.push_back(t);
  index_threads(d);
  assemble_rows(d, {0}, {0}, 1);
  place_activation(d, TimelineActivation{start, end, 0});
  place_activation(d, TimelineActivation{start, end, 0});
  return d;
}

}  // namespace

TEST_CASE("hostile: times near 2^63 in overview and heat map", "[hostile]") {
  limit_memory();
  TempDir dir;
  // Up to the limit: every command draws it.
  const std::string trace = copy_corpus(dir, "times-at-limit.sexp");
  for (const CommandRun& run : run_every_command(trace, dir, 1)) {
    INFO(run.command);
    CHECK(misbehaviour(run.result, trace) == "");
    if (run.command.rfind("check", 0) == 0 || run.command.rfind("render", 0) == 0) CHECK(run.result.exit_code == 0);
  }
  CHECK(query(dir.file("imported.db"), "SELECT value FROM meta WHERE key IN ('first_time', 'end_time') ORDER BY key") ==
        "4611686018427387903\n0\n");
  auto store = TraceStore::open(dir.file("imported.db"));
  REQUIRE(store.ok());
  const CoreRun core = run_viewer_core(store.value());
  CHECK(core.error.empty());
  CHECK(core.overview_bins == ActivityOverview::kMaxBins);
  CHECK(core.heatmap_cells <= SubsecondHeatmap::kMaxCells);

  // Past it: refused where the time is, by every command.
  const std::vector<std::pair<std::string, std::string>> refused = {
      {"time-int64-max.sexp", ":5:7: time out of range (0 to 4611686018427387903 ns)"},
      {"time-past-limit.sexp", ":3:9: time out of range (0 to 4611686018427387903 ns)"},
      {"gc-duration-past-limit.sexp", ":2:8: duration out of range (0 to 4611686018427387903 ns)"},
      {"time-negative.sexp", ":2:8: time must not be negative"},
      {"mirage_sexp/time-past-limit.sexp",
       ":2:8: time out of range (more than 4611686018427387903 ns after the first record's)"},
  };
  for (const auto& [name, message] : refused) {
    INFO(name);
    const std::string path = copy_corpus(dir, name);
    const ProcessResult import = run_skein({"import", path, "-o", dir.file("refused.db")});
    CHECK(import.exit_code == 1);
    CHECK(import.err.find(path + message + "\n") != std::string::npos);
    const ProcessResult render = run_skein({"render", "-o", dir.file("refused.png"), path});
    CHECK(render.exit_code == 1);
    CHECK(render.err.find(path + message + "\n") != std::string::npos);
  }

  // A TimelineData that holds times no store would give: the overview and
  // the heat map hold them to the limits and stay within their bins.
  for (const auto& [first, end] : std::vector<std::pair<TimeNs, TimeNs>>{
           {0, kMax}, {kMin, kMax}, {kMax, kMin}, {kMax - 1, kMax}, {kMin, kMin + 1}, {0, kMaxTime}}) {
    INFO(first << " to " << end);
    const TimelineData d = hand_made(first, end, std::min(first, end), std::max(first, end));
    const ActivityOverview o = ActivityOverview::build(d);
    CHECK(o.bins() <= ActivityOverview::kMaxBins);
    CHECK(o.first_time() >= 0);
    CHECK(o.end_time() <= kMaxTime);
    CHECK(o.cumulative_at(static_cast<double>(kMax)) >= 0);
    for (const OverviewColumn& c : o.columns(1000)) CHECK(c.level <= 1.0);
    const SubsecondHeatmap h = SubsecondHeatmap::build(d);
    CHECK(static_cast<std::size_t>(h.columns()) * static_cast<std::size_t>(h.rows()) <= SubsecondHeatmap::kMaxCells);
    CHECK(h.max_run_ns() >= 0);
    const FlameGraph f = build_flame_graph(d, first, end);
    CHECK_FALSE(f.frames.empty());
  }
}

TEST_CASE("hostile: heat map memory is bounded by the trace, not its span", "[hostile]") {
  limit_memory();
  TempDir dir;
  // 10^16 ns took 3.8 GB and 10^17 ns asked for 5 * 10^9 cells: columns of
  // 1 s for four months or three years. Columns grow by tens of seconds.
  for (const auto& [name, unit] :
       std::vector<std::pair<std::string, TimeNs>>{{"span-1e16.sexp", 1'000'000'000'000}, {"span-1e17.sexp", 10'000'000'000'000}}) {
    INFO(name);
    const ImportResult imported = import_text(read_text(corpus_path(name)), dir.file(name + ".db"), {}, name);
    REQUIRE(imported.ok());
    auto store = TraceStore::open(dir.file(name + ".db"));
    REQUIRE(store.ok());
    auto data = load_timeline(store.value(), TimelineLoadOptions{false});
    REQUIRE(data.ok());
    const SubsecondHeatmap h = SubsecondHeatmap::build(data.value());
    CHECK(h.unit_ns() == unit);
    CHECK(h.columns() == 10'000);
    CHECK(h.rows() == SubsecondHeatmap::kRows);
    CHECK(h.caption().rfind("trace longer than ", 0) == 0);
    // Thread 2 ran 10 ns at half the span: in the column of its time.
    const auto cell = h.cell_at_time(static_cast<double>(data.value().end_time / 2));
    REQUIRE(cell);
    CHECK(cell->column == 5'000);
    CHECK(h.run_ns(*cell) == 10);
    // An explicit unit too small for the span is raised to fit kMaxCells.
    const SubsecondHeatmap fine = SubsecondHeatmap::build(data.value(), 1'000, 50);
    CHECK(static_cast<std::size_t>(fine.columns()) * 50 <= SubsecondHeatmap::kMaxCells);
    CHECK(fine.unit_ns() % 50 == 0);
    CHECK(fine.columns() >= SubsecondHeatmap::kMaxColumns - 1);
    const ActivityOverview o = ActivityOverview::build(data.value());
    CHECK(o.bins() <= ActivityOverview::kMaxBins);

    const std::string path = copy_corpus(dir, name);
    for (const CommandRun& run : run_every_command(path, dir, 2)) {
      INFO(run.command);
      CHECK(misbehaviour(run.result, path) == "");
      if (run.command.rfind("render", 0) == 0) CHECK(run.result.exit_code == 0);
    }
  }
  // choose_unit() for spans up to and past the limit.
  CHECK(SubsecondHeatmap::choose_unit(20'000'000'000'000) == 1'000'000'000);
  CHECK(SubsecondHeatmap::choose_unit(20'000'000'000'001) == 10'000'000'000);
  CHECK(SubsecondHeatmap::choose_unit(kMaxTime) == 1'000'000'000'000'000);
  CHECK(SubsecondHeatmap::choose_unit(kMax) == 1'000'000'000'000'000);
}

}  // namespace skein::test
