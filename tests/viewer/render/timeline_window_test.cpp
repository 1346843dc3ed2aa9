// timeline_window_test.cpp — a window read alone (load_timeline_window)
// draws what the whole trace drew for that window: the oracle is the whole
// load, drawn by the same painter, pixel for pixel, at several zooms, on a
// generated trace (with the lints' findings stored, so their markers are
// drawn) and on the real 2014 MirageOS traces (net.ctf has a gc record and
// 1,394 counter samples). And the cases where no window is given, so that
// the caller reads the whole trace: a window past the share of the trace
// where start-up rows fold, a database without the layout's row count.
//
// Its own main: the painter needs a QGuiApplication (offscreen), and a
// missing fixture folder is a skip (exit 77).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QGuiApplication>
#include <QImage>
#include <cstdlib>
#include <string>
#include <vector>

#include "recorder/store/trace_import.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/recorder/fixture_path.hpp"
#include "tests/support/store_query.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/timeline/timeline_window.hpp"

using namespace skein;

namespace {

bool g_skipped = false;

constexpr int kWidth = 1400;
constexpr int kHeight = 800;

// Imports `trace` into `db` and stores its lint's findings.
void import_and_lint(const std::string& trace, const std::string& db) {
  ImportOptions options;
  options.sync = false;
  const ImportResult imported = import_trace(trace, db, options);
  INFO(imported.error.to_string());
  REQUIRE(imported.ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  LintOptions lint;
  lint.keep_transfers = true;
  auto report = lint_store(store.value(), lint);
  REQUIRE(report.ok());
  REQUIRE(store_lint_report(*store.value().owner(), report.value()).ok());
}

QImage draw(const TimelineData& data, TimeNs from, TimeNs to) {
  RenderRequest request;
  request.width = kWidth;
  request.height = kHeight;
  request.from = from;
  request.to = to;
  return render_timeline_image(data, view_for_request(data, request), kWidth, kHeight);
}

std::size_t differing_pixels(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return SIZE_MAX;
  std::size_t n = 0;
  for (int y = 0; y < a.height(); ++y)
    for (int x = 0; x < a.width(); ++x) n += a.pixel(x, y) != b.pixel(x, y);
  return n;
}

// For each window given as a share of the trace (start, width), the window
// read alone draws what the whole trace draws; returns how many windows
// had something to draw (a thread alive in them).
int check_windows(const std::string& db, const std::vector<std::pair<double, double>>& windows) {
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto whole = load_timeline(store.value());
  REQUIRE(whole.ok());
  const TimelineData& full = whole.value();
  const double span = double(full.end_time - full.first_time);
  int drawn = 0;
  for (const auto& [start, width] : windows) {
    const auto from = static_cast<TimeNs>(double(full.first_time) + start * span);
    const auto to = std::max<TimeNs>(from + 1, static_cast<TimeNs>(double(from) + width * span));
    INFO(db << " window " << from << " to " << to << " ns");
    auto window = load_timeline_window(store.value(), from, to);
    REQUIRE(window.ok());
    REQUIRE(window.value().has_value());
    const TimelineData& part = *window.value();
    // Read alone, the window holds fewer threads than the trace when it is
    // narrow: it is not the whole load again.
    if (width <= 0.01) CHECK(part.threads.size() < full.threads.size());
    const QImage expected = draw(full, from, to);
    const QImage got = draw(part, from, to);
    const std::size_t differ = differing_pixels(expected, got);
    if (differ != 0) {
      expected.save(QString::fromStdString(db + "-expected.png"));
      got.save(QString::fromStdString(db + "-windowed.png"));
    }
    CHECK(differ == 0);
    bool alive = false;
    for (const TimelineThread& t : part.threads) alive = alive || (t.start <= to && t.end >= from);
    drawn += alive;
  }
  return drawn;
}

// Wide to narrow, at the start, in the middle and near the end.
const std::vector<std::pair<double, double>> kWindows = {
    {0.0, 0.4}, {0.3, 0.2}, {0.5, 0.05}, {0.02, 0.01}, {0.61, 0.003}, {0.77, 0.0004}, {0.95, 0.00005}, {0.999, 0.001}};

}  // namespace

namespace skein::test {
void note_skipped() { g_skipped = true; }
}  // namespace skein::test

TEST_CASE("timeline window: a generated trace drawn from its window equals the whole trace's picture") {
  test::TempDir dir;
  samples::SyntheticOptions options;
  options.records = 60'000;
  options.seed = 7;
  const std::string trace = dir.file("g.sexp");
  test::write_file(trace, samples::synthetic_trace_text(options));
  const std::string db = dir.file("g.db");
  import_and_lint(trace, db);
  CHECK(check_windows(db, kWindows) >= 7);
  // Its times never go back, so the window's blocks were found by binary
  // search; told otherwise, they are found by a scan, to the same pictures.
  REQUIRE(test::query(db, "SELECT value FROM meta WHERE key = 'warnings.time-backwards'") == "0\n");
  REQUIRE(test::edit_database(db, "UPDATE meta SET value = 1 WHERE key = 'warnings.time-backwards'").empty());
  CHECK(check_windows(db, kWindows) >= 7);
  // The counters' scales come from counter_ranges, the import's; without
  // it (an older Skein's database), from every sample.
  REQUIRE(test::query(db, "SELECT count(*) > 0 FROM counter_ranges") == "1\n");
  REQUIRE(test::edit_database(db, "DROP TABLE counter_ranges").empty());
  CHECK(check_windows(db, kWindows) >= 7);
}

TEST_CASE("timeline window: the 2014 MirageOS traces drawn from their windows equal the whole traces' pictures") {
  for (const char* name : {"log-x86.sexp", "log-x86-v0.sexp", "net.ctf"}) {
    const std::string path = test::fixture_path(name);
    if (path.empty()) return;
    test::TempDir dir;
    const std::string db = dir.file(std::string(name) + ".db");
    import_and_lint(path, db);
    CHECK(check_windows(db, kWindows) >= 6);
  }
}

TEST_CASE("timeline window: none past the start-up fold share, none without the layout's row count") {
  test::TempDir dir;
  samples::SyntheticOptions options;
  options.records = 5'000;
  const std::string trace = dir.file("g.sexp");
  test::write_file(trace, samples::synthetic_trace_text(options));
  const std::string db = dir.file("g.db");
  import_and_lint(trace, db);
  TimeNs first = 0, end = 0;
  {
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    first = *store.value().meta_int("first_time");
    end = *store.value().meta_int("end_time");
    const TimeNs span = end - first;
    // Past 0.45 of the trace (the start-up rows fold over 0.5 of it): none.
    auto wide = load_timeline_window(store.value(), first, first + span / 2);
    REQUIRE(wide.ok());
    CHECK_FALSE(wide.value().has_value());
    auto narrow = load_timeline_window(store.value(), first, first + span / 4);
    REQUIRE(narrow.ok());
    CHECK(narrow.value().has_value());
  }
  REQUIRE(test::edit_database(db, "DELETE FROM meta WHERE key = 'layout_rows'").empty());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto older = load_timeline_window(store.value(), first, first + (end - first) / 4);
  REQUIRE(older.ok());
  CHECK_FALSE(older.value().has_value());
}

int main(int argc, char* argv[]) {
  if (std::getenv("QT_QPA_PLATFORM") == nullptr) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QGuiApplication app(argc, argv);
  const int failed = Catch::Session().run(argc, argv);
  if (failed == 0 && g_skipped) return skein::test::kSkipExitCode;
  return failed;
}
