// timeline_first_frame_test.cpp — the first frame read from the store's
// levels (load_timeline_first_frame) draws what the whole load draws at
// the fitted window: the oracle is the whole trace, loaded and folded as
// skein-view and `skein render` fold it, drawn by the same painter, pixel
// for pixel, at several canvas sizes, on generated traces and on the real
// 2014 MirageOS traces (net.ctf folds 74 start-up rows and has gc and
// counters). Each column's edge count against the whole load's edges
// counted one by one. The rows' extents against SQL over the threads and
// the layout. The work of a frame, in SQLite steps, against the trace's
// size. And the databases that give no frame (an older Skein's, a stale
// part, too many edges to read) or an error (a damaged extent).
//
// Its own main: the painter needs a QGuiApplication (offscreen), and a
// missing fixture folder is a skip (exit 77).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QGuiApplication>
#include <QImage>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "recorder/store/row_extents.hpp"
#include "recorder/store/trace_import.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/recorder/fixture_path.hpp"
#include "tests/support/sqlite_read_cost.hpp"
#include "tests/support/store_query.hpp"
#include "tests/viewer/pixel_count.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/timeline/timeline_first_frame.hpp"

using namespace skein;

namespace {

bool g_skipped = false;

std::string import_into(const test::TempDir& dir, const std::string& trace, const std::string& name) {
  const std::string db = dir.file(name + ".db");
  ImportOptions options;
  options.sync = false;
  const ImportResult imported = import_trace(trace, db, options);
  INFO(imported.error.to_string());
  REQUIRE(imported.ok());
  return db;
}

std::string generated(const test::TempDir& dir, std::uint64_t records, std::uint64_t seed) {
  samples::SyntheticOptions options;
  options.records = records;
  options.seed = seed;
  const std::string trace = dir.file("g" + std::to_string(records) + ".sexp");
  test::write_file(trace, samples::synthetic_trace_text(options));
  return import_into(dir, trace, "g" + std::to_string(records));
}

// Four workers that each run 4,000 short turns, most of which create a
// child thread that ends at once (one in 37 failing), with idle spells, gc
// pauses (some within others) and a counter: the workers' rows and their children's rows hold
// thousands of spans, so a frame reads them from coarser levels.
std::string busy_trace(const test::TempDir& dir) {
  std::mt19937_64 rng(23);
  std::exponential_distribution<double> gap(1.0 / 300);
  std::string text = "(skein-trace 1 (process \"busy\"))\n";
  for (int k = 1; k <= 4; ++k)
    text += "(spawn 0 " + std::to_string(k) + " 0 task)\n(label 0 " + std::to_string(k) + " \"worker " +
            std::to_string(k) + "\")\n";
  text += "(switch 0 -1)\n";
  TimeNs t = 0;
  int child = 100;
  const auto at = [&](TimeNs time) { return std::to_string(time); };
  for (int i = 0; i < 16'000; ++i) {
    const int k = 1 + i % 4;
    t += 1 + static_cast<TimeNs>(gap(rng));
    text += "(switch " + at(t) + " " + std::to_string(k) + ")\n";
    t += 20 + static_cast<TimeNs>(rng() % 200);
    if (i % 4 != 3) {
      const std::string c = std::to_string(child++);
      text += "(spawn " + at(t) + " " + c + " " + std::to_string(k) + " task)\n";
      t += 5 + static_cast<TimeNs>(rng() % 50);
      text += "(resolve " + at(t) + " " + c + " " + std::to_string(k) + (i % 37 == 0 ? " fail \"x\")\n" : " ok)\n");
    }
    if (i % 5 == 0) text += "(counter " + at(t) + " \"queue\" " + std::to_string(i % 17) + ")\n";
    t += 10;
    text += "(switch " + at(t) + " -1)\n";
    if (i % 50 == 0) {
      text += "(idle " + at(t + 1) + ")\n";
      t += 2000;
    }
    // Pauses, some of them overlapping.
    if (i % 400 == 0) text += "(gc " + at(t) + " 500)\n";
    if (i % 400 == 7) text += "(gc " + at(t) + " 20000)\n(gc " + at(t + 300) + " 100)\n";
  }
  text += "(end " + at(t + 10) + ")\n";
  const std::string trace = dir.file("busy.sexp");
  test::write_file(trace, text);
  return import_into(dir, trace, "busy");
}


struct Compared {
  std::size_t frames = 0;
  std::size_t thinned_rows = 0;  // rows on screen drawn with fewer threads than they hold
};

// At each canvas size, the frame read from the levels draws the whole
// load's fitted frame, and its edge counts are the whole load's.
Compared check_first_frames(const std::string& db, const std::vector<std::pair<int, int>>& sizes) {
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  TimelineLoadOptions whole_options;
  whole_options.findings = false;
  auto whole = load_timeline(store.value(), whole_options);
  REQUIRE(whole.ok());
  const TimelineData& full = whole.value();
  Compared out;
  for (const auto& [width, height] : sizes) {
    INFO(db << " at " << width << " x " << height);
    auto frame = load_timeline_first_frame(store.value(), width, height);
    INFO((frame.ok() ? std::string() : frame.error().to_string()));
    REQUIRE(frame.ok());
    REQUIRE(frame.value().has_value());
    const TimelineFirstFrame& f = *frame.value();
    // The whole load, fitted and folded as a viewer opens it.
    TimelineViewState view;
    view.fit(full, width);
    view.refold(full, width);
    view.row_offset = 0;
    CHECK(f.view.shown_rows == view.shown_rows);
    CHECK(f.view.folded == view.folded);
    CHECK(f.view.folded_startup == view.folded_startup);
    // Each column's edges, counted one by one from the whole load's: the
    // same count, or both at least kFullDensityEdges (the shade is full).
    std::vector<double> counts(static_cast<std::size_t>(width), 0);
    const double t0 = view.mapping.t_of(0), t1 = view.mapping.t_of(width);
    for (const TimeNs t : full.edge_times) {
      if (double(t) < t0 || double(t) > t1) continue;
      const double c = std::floor(view.mapping.x_of(double(t)));
      if (c >= 0 && c < width) ++counts[static_cast<std::size_t>(c)];
    }
    REQUIRE(f.edge_density.size() == counts.size());
    std::size_t wrong = 0;
    for (std::size_t c = 0; c < counts.size(); ++c) {
      const double got = f.edge_density[c];
      if (!(got == counts[c] || (got >= kFullDensityEdges && counts[c] >= kFullDensityEdges))) ++wrong;
    }
    CHECK(wrong == 0);
    // The pixels.
    const QImage expected = render_timeline_image(full, view, width, height);
    TimelinePaintOptions options;
    options.edge_density = &f.edge_density;
    const QImage got = render_timeline_image(f.data, f.view, width, height, options);
    const int differ = expected.size() == got.size() ? test::count_differing(expected, got) : -1;
    if (differ != 0) {
      // Left in the working directory, to be looked at.
      const std::string name = "first-frame-" + std::to_string(full.threads.size()) + "-" + std::to_string(width);
      expected.save(QString::fromStdString(name + "-expected.png"));
      got.save(QString::fromStdString(name + "-read.png"));
    }
    CHECK(differ == 0);
    // It read less than the whole trace: threads of the rows on screen
    // only, and on busy rows only those kept at the frame's level.
    CHECK(f.data.threads.size() < full.threads.size());
    const TimelineGeometry g(width, height, full);
    for (std::int32_t s = 0; s <= std::min(view.slot_count() - 1, static_cast<std::int32_t>(g.visible_rows())); ++s) {
      const auto r = static_cast<std::size_t>(view.shown_rows[static_cast<std::size_t>(s)]);
      if (f.data.rows[r].threads.size() < full.rows[r].threads.size()) ++out.thinned_rows;
    }
    ++out.frames;
  }
  return out;
}

const std::vector<std::pair<int, int>> kSizes = {{1400, 800}, {640, 420}, {2600, 1000}};

}  // namespace

namespace skein::test {
void note_skipped() { g_skipped = true; }
}  // namespace skein::test

TEST_CASE("first frame: a generated trace's first frame read from its levels equals the whole load's") {
  test::TempDir dir;
  for (const auto& [records, seed] : {std::pair<std::uint64_t, std::uint64_t>{60'000, 7}, {400'000, 3}}) {
    const std::string db = generated(dir, records, seed);
    const Compared c = check_first_frames(db, kSizes);
    CHECK(c.frames == kSizes.size());
  }
}

TEST_CASE("first frame: a trace of busy rows, drawn from coarser levels, equals the whole load's") {
  test::TempDir dir;
  const std::string db = busy_trace(dir);
  // Both layers have coarser levels, and failure marks among them.
  CHECK(test::query(db, "SELECT count(DISTINCT layer) FROM row_spans WHERE row >= 0 AND level > 0") == "2\n");
  const Compared c = check_first_frames(db, kSizes);
  CHECK(c.frames == kSizes.size());
  CHECK(c.thinned_rows > 0);
}

TEST_CASE("first frame: the 2014 MirageOS traces' first frames read from their levels equal the whole loads'") {
  for (const char* name : {"log-x86.sexp", "log-x86-v0.sexp", "net.ctf"}) {
    const std::string path = test::fixture_path(name);
    if (path.empty()) return;
    test::TempDir dir;
    const std::string db = import_into(dir, path, "f");
    const Compared c = check_first_frames(db, kSizes);
    CHECK(c.frames == kSizes.size());
    if (std::string(name) == "net.ctf") {
      // mirage-profile's trace of a network stack's start: 74 rows whose
      // threads all end in its first 5% fold away at the whole-trace zoom.
      auto store = TraceStore::open(db);
      REQUIRE(store.ok());
      auto frame = load_timeline_first_frame(store.value(), 1400, 800);
      REQUIRE(frame.ok());
      REQUIRE(frame.value().has_value());
      CHECK(frame.value()->view.folded_startup == 74);
    }
  }
}

TEST_CASE("first frame: the rows' extents are each row's threads' first start, latest end, count and failures") {
  test::TempDir dir;
  const std::string db = generated(dir, 60'000, 5);
  // The oracle: SQL over the threads and the layout, a thread's span as
  // the timeline draws it (to the trace's end while pending, never ending
  // before it starts).
  const std::string want = test::query(
      db,
      "SELECT l.row, min(t.created), max(max(t.created, coalesce(t.resolved, (SELECT value FROM meta WHERE key = "
      "'end_time')))), count(*), sum(t.outcome IS 'fail') FROM threads AS t JOIN layout_v2 AS l ON l.thread = t.id "
      "GROUP BY l.row ORDER BY l.row");
  const std::string got = test::query(db, "SELECT row, first_start, last_end, threads, failed FROM row_extents ORDER BY row");
  CHECK(got == want);
  CHECK(test::query(db, "SELECT sum(failed) > 0, count(*) > 10 FROM row_extents") == "1|1\n");
  // The reader gives them back, checked.
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto read = read_row_extents(store.value().database());
  REQUIRE(read.ok());
  REQUIRE(read.value().has_value());
  std::string listed;
  for (const RowExtent& e : *read.value())
    listed += std::to_string(e.row) + "|" + std::to_string(e.first_start) + "|" + std::to_string(e.last_end) + "|" +
              std::to_string(e.threads) + "|" + std::to_string(e.failed) + "\n";
  CHECK(listed == want);
}

TEST_CASE("first frame: none from an older Skein's database, a stale part or too many edges, and a damaged extent fails") {
  test::TempDir dir;
  const std::string db = generated(dir, 60'000, 7);
  const auto frame_of = [](const std::string& path, const FirstFrameLimits& limits = {}) {
    auto store = TraceStore::open(path);
    REQUIRE(store.ok());
    return load_timeline_first_frame(store.value(), 1400, 800, limits);
  };
  {
    auto f = frame_of(db);
    REQUIRE(f.ok());
    CHECK(f.value().has_value());
    // This trace's sparse start is read one by one: a limit below that
    // gives no frame.
    REQUIRE(f.value()->edges_read > 0);
    FirstFrameLimits none;
    none.edges = 0;
    auto limited = frame_of(db, none);
    REQUIRE(limited.ok());
    CHECK(!limited.value().has_value());
  }
  const auto copy_with = [&](const std::string& name, const std::string& sql) {
    const std::string path = dir.file(name + ".db");
    std::filesystem::copy_file(db, path);
    REQUIRE(test::edit_database(path, sql).empty());
    return path;
  };
  for (const auto& [name, sql] : std::vector<std::pair<std::string, std::string>>{
           {"no-extents", "DROP TABLE row_extents"},
           {"no-spans", "DROP TABLE row_spans"},
           {"no-bins", "DROP TABLE edge_bins"},
           {"stale-span", "UPDATE meta SET value = value + 1 WHERE key = 'row_spans_span'"},
           {"no-rows", "DELETE FROM meta WHERE key = 'layout_rows'"},
           {"more-rows", "UPDATE meta SET value = value + 1 WHERE key = 'layout_rows'"},
           {"lost-extent", "DELETE FROM row_extents WHERE row = 1"},
           {"moved-row", "UPDATE layout_v2 SET row = row + 1 WHERE thread IN (SELECT thread FROM layout_v2 ORDER BY "
                         "thread LIMIT 1)"},
       }) {
    INFO(name);
    auto f = frame_of(copy_with(name, sql));
    REQUIRE(f.ok());
    CHECK(!f.value().has_value());
  }
  // A damaged extent is refused, naming the table and the row; a damaged
  // counter sample, naming the counter.
  auto damaged = frame_of(copy_with("damaged", "UPDATE row_extents SET last_end = first_start - 1 WHERE row = 0"));
  REQUIRE(!damaged.ok());
  CHECK(damaged.error().to_string().find("row_extents row 0") != std::string::npos);
  REQUIRE(test::query(db, "SELECT count(*) > 0 FROM counters") == "1\n");
  auto sample = frame_of(copy_with("sample", "UPDATE counters SET value = 'many' WHERE name = (SELECT min(name) FROM counters)"));
  REQUIRE(!sample.ok());
  const std::string said = sample.error().to_string();
  INFO(said);
  std::string name = test::query(db, "SELECT min(name) FROM counters");
  name.pop_back();  // the line's end
  CHECK(said.find("damaged Skein database: counter '" + name + "' at event ") != std::string::npos);
}

TEST_CASE("first frame: the work of a first frame grows with the screen, not with the trace") {
  // Two generated traces of the same program, one 16 times the other, on
  // a canvas 300 pixels wide: the small one's columns are all sparse
  // enough to read one by one, the large one's mostly full. The large
  // frame's SQLite steps stay within a small factor of the small one's,
  // where the whole load takes about 16 times as many.
  struct Measured {
    test::ReadCost frame;
    test::ReadCost whole;
    std::int64_t edges_read = 0;
  };
  const auto measure = [](std::uint64_t records) {
    test::TempDir dir;
    const std::string db = generated(dir, records, 11);
    Measured m;
    {
      auto store = TraceStore::open(db);
      REQUIRE(store.ok());
      m.frame = test::read_cost(store.value(), [&] {
        auto frame = load_timeline_first_frame(store.value(), 300, 800);
        REQUIRE(frame.ok());
        REQUIRE(frame.value().has_value());
        m.edges_read = frame.value()->edges_read;
      });
    }
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    m.whole = test::read_cost(store.value(), [&] { REQUIRE(load_timeline(store.value()).ok()); });
    return m;
  };
  const Measured small = measure(40'000);
  const Measured large = measure(640'000);
  INFO("frames: " << small.frame.thousand_steps << " and " << large.frame.thousand_steps << " thousand steps, "
                  << small.frame.pages << " and " << large.frame.pages << " pages; whole loads: "
                  << small.whole.thousand_steps << " and " << large.whole.thousand_steps << " thousand steps; "
                  << small.edges_read << " and " << large.edges_read << " edges read one by one");
  CHECK(large.whole.thousand_steps > 10 * small.whole.thousand_steps);  // the measure sees a trace's size
  CHECK(large.frame.thousand_steps * 10 < large.whole.thousand_steps);
  CHECK(large.frame.thousand_steps < 3 * small.frame.thousand_steps + 50);
}

int main(int argc, char* argv[]) {
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QGuiApplication app(argc, argv);
  const int failed = Catch::Session().run(argc, argv);
  if (failed == 0 && g_skipped) return skein::test::kSkipExitCode;
  return failed;
}
