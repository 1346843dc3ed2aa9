// timeline_widget_test.cpp — skein-view's timeline under QTest on the
// offscreen platform. Every position the tests click, hover or read comes
// from the core (TimeMapping, TimelineGeometry, the view's slots), so the
// tests say "on thread 3's line at 600 µs", not "at pixel 412".
//
//   - zoom and pan: a wheel event keeps the time under the pointer; Home
//     fits the whole trace; W/S/A/D; Shift-drag zooms into the range (the
//     other keys, the limits and the zoom history:
//     timeline_navigation_test.cpp);
//   - picking: a click on a computed thread position selects it, its merge
//     chain and its direct edges; Esc clears;
//   - pixels: on a hand-built trace, the expected colours at the computed
//     positions of a waiting line, a running span, a read arrow and a red
//     failure bar, both in `skein render`'s image and in the widget; a
//     finding's marker and the tag naming its row in the colour of its
//     severity (error red, warning orange, note amber), never another's;
//     findings on rows off screen draw nothing, and links that differ only
//     past the frame's edge are drawn once, dashed, for one finding or 300;
//   - loading: the worker thread delivers the first frame, read from the
//     stored levels, then the timeline; the widget draws the first frame
//     as it draws the whole trace's first screen, and answers no key until
//     the whole trace is there; a broken trace
//     gives a FILE:LINE:COL message; a cancelled load says so; a replaced
//     job's result is dropped;
//   - the MirageOS fixture log-x86.sexp: `Process data`, `blkfront.poll`
//     and `B.read` are on screen between 125 ms and 137 ms after its first
//     record; and on the first screen (the fitted view, rows not scrolled)
//     `Process data` and `blkfront.poll` are among the first rows, without
//     searching. Skipped (exit 77) when the fixture folder is missing.
#include <QApplication>
#include <QMetaMethod>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <random>

#include "recorder/store/opened_store.hpp"
#include "recorder/store/trace_import.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/timeline/finding_focus.hpp"
#include "viewer/app/trace_loader.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/render/timeline_style.hpp"
#include "tests/viewer/pixel_count.hpp"

using namespace skein;

namespace {

// A finding at `time` on `thread`, handed control by `from` (-1: none).
TimelineAnomaly worded_finding(TimeNs time, std::int32_t thread, std::int32_t from, std::string_view rule,
                               std::string_view severity, std::string_view message, std::int64_t number) {
  TimelineAnomaly a;
  a.time = time;
  a.thread = thread;
  a.from = from;
  a.number = number;
  a.set_text(rule, severity, message);
  return a;
}

bool g_skipped = false;

// Thread 1 runs from 100 to 300 µs and resolves at 400 µs; 2 reads it at
// 500 µs; 3 fails at 600 µs; 4 merges into 5 at 700 µs (one chain).
const char* const kTrace = R"((skein-trace 1 (process "widget-test"))
(spawn 0 1 0 task)
(label 0 1 "worker")
(spawn 0 2 0 bind)
(label 0 2 "reader")
(spawn 0 3 0 task)
(label 0 3 "doomed")
(spawn 0 4 0 bind)
(switch 100000 1)
(switch 300000 -1)
(resolve 400000 1 -1 ok)
(read 500000 2 1)
(resolve 600000 3 3 fail "boom")
(spawn 650000 5 4 task)
(merge 700000 4 5)
(resolve 800000 5 5 ok)
(resolve 900000 2 2 ok)
(end 1000000)
)";

bool close_to(QColor a, QColor b, int tolerance = 12) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

QString describe(QColor c) { return c.name(); }

}  // namespace

class TimelineWidgetTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const TimelineData> data_;
  QString trace_path_;

  std::uint32_t index(ThreadId id) const { return *data_->thread_index(id); }
  // The y of a thread's line in `view` (the test fails if folded).
  static double line_y(const TimelineData& d, const TimelineViewState& v, const TimelineGeometry& g, std::uint32_t i) {
    const auto slot = v.slot_of(d.threads[i].row);
    if (!slot) return -1;
    return g.line_y(*slot, v.row_offset);
  }

  // TRACE written to NAME.sexp, imported into NAME.db and loaded.
  TimelineData imported(const QString& name, const std::string& trace) {
    const QString path = dir_.filePath(name + QStringLiteral(".sexp"));
    std::ofstream(path.toStdString()) << trace;
    const std::string db = dir_.filePath(name + QStringLiteral(".db")).toStdString();
    ImportOptions options;
    options.sync = false;
    if (const ImportResult r = import_trace(path.toStdString(), db, options); !r.ok())
      qFatal("%s", r.error.to_string().c_str());
    auto store = TraceStore::open(db);
    if (!store.ok()) qFatal("%s", store.error().to_string().c_str());
    auto loaded = load_timeline(store.value());
    if (!loaded.ok()) qFatal("%s", loaded.error().to_string().c_str());
    return std::move(loaded).value();
  }

  // log-x86.sexp, imported into a cache of the test's own (the layout
  // computed afresh); null when the fixture is missing (the test skips).
  std::shared_ptr<const TimelineData> mirage_fixture() {
    const QByteArray env = qgetenv("SKEIN_FIXTURES");
    const QString folder = env.isEmpty() ? QStringLiteral(SKEIN_DEFAULT_FIXTURES) : QString::fromLocal8Bit(env);
    const QString trace = folder + QStringLiteral("/log-x86.sexp");
    if (!QFileInfo::exists(trace)) {
      g_skipped = true;
      return nullptr;
    }
    StoreOpenOptions options;
    options.cache_dir = dir_.filePath(QStringLiteral("mirage-cache")).toStdString();
    options.import.sync = false;
    OpenedStore opened = open_store(trace.toStdString(), options);
    if (!opened.ok()) qFatal("%s", opened.error.to_string().c_str());
    auto loaded = load_timeline(*opened.store);
    if (!loaded.ok()) qFatal("%s", loaded.error().to_string().c_str());
    return std::make_shared<const TimelineData>(std::move(loaded).value());
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    trace_path_ = dir_.filePath(QStringLiteral("widget.sexp"));
    std::ofstream(trace_path_.toStdString()) << kTrace;
    const std::string db = dir_.filePath(QStringLiteral("widget.db")).toStdString();
    ImportOptions options;
    options.sync = false;
    QVERIFY(import_trace(trace_path_.toStdString(), db, options).ok());
    auto store = TraceStore::open(db);
    QVERIFY(store.ok());
    auto loaded = load_timeline(store.value());
    QVERIFY(loaded.ok());
    data_ = std::make_shared<const TimelineData>(std::move(loaded).value());
    QCOMPARE(data_->threads.size(), std::size_t(6));
  }

  void wheelZoomKeepsTheTimeUnderThePointer() {
    TimelineWidget w;
    w.resize(1000, 600);
    w.set_data(data_);
    w.show();
    // From a quarter of the trace, so that zooming out past it stays
    // within the trace (wider than the fitted window it may not go).
    w.show_window(250000, 500000);
    const QPointF at(337, 200);
    const double before = w.view().mapping.t_of(at.x());
    const double scale = w.view().mapping.ns_per_px;
    QWheelEvent in(at, w.mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                   false);
    QApplication::sendEvent(&w, &in);
    QVERIFY(w.view().mapping.ns_per_px < scale * 0.8);
    QVERIFY(std::fabs(w.view().mapping.t_of(at.x()) - before) < 1e-6 * scale);
    QWheelEvent out(at, w.mapToGlobal(at), QPoint(), QPoint(0, -480), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
    QApplication::sendEvent(&w, &out);
    QVERIFY(w.view().mapping.ns_per_px > scale);
    QVERIFY(std::fabs(w.view().mapping.t_of(at.x()) - before) < 1e-6 * scale);
  }

  void homeFitsAndKeysZoomAndPan() {
    TimelineWidget w;
    w.resize(1000, 600);
    w.set_data(data_);
    w.show();
    const TimeMapping fitted = w.view().mapping;
    // The whole trace is on screen.
    QVERIFY(fitted.x_of(double(data_->first_time)) >= 0);
    QVERIFY(fitted.x_of(double(data_->end_time)) <= 1000);
    QVERIFY(fitted.x_of(double(data_->end_time)) > 950);
    QTest::keyClick(&w, Qt::Key_W);
    QVERIFY(w.view().mapping.ns_per_px < fitted.ns_per_px);
    const double zoomed = w.view().mapping.ns_per_px;
    QTest::keyClick(&w, Qt::Key_S);
    QVERIFY(w.view().mapping.ns_per_px > zoomed);
    const double start = w.view().mapping.start;
    QTest::keyClick(&w, Qt::Key_D);
    QVERIFY(w.view().mapping.start > start);
    QTest::keyClick(&w, Qt::Key_A);
    QTest::keyClick(&w, Qt::Key_A);
    QVERIFY(w.view().mapping.start < start);
    QTest::keyClick(&w, Qt::Key_W);
    QTest::keyClick(&w, Qt::Key_Home);
    QCOMPARE(w.view().mapping.ns_per_px, fitted.ns_per_px);
    QCOMPARE(w.view().mapping.start, fitted.start);
  }

  void shiftDragZoomsIntoTheRange() {
    TimelineWidget w;
    w.resize(1000, 600);
    w.set_data(data_);
    w.show();
    const double t0 = w.view().mapping.t_of(200), t1 = w.view().mapping.t_of(500);
    QTest::mousePress(&w, Qt::LeftButton, Qt::ShiftModifier, QPoint(200, 300));
    QMouseEvent move(QEvent::MouseMove, QPointF(500, 300), w.mapToGlobal(QPointF(500, 300)), Qt::NoButton,
                     Qt::LeftButton, Qt::ShiftModifier);
    QApplication::sendEvent(&w, &move);
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::ShiftModifier, QPoint(500, 300));
    QVERIFY(std::fabs(w.view().mapping.t_of(0) - t0) < 1);
    QVERIFY(std::fabs(w.view().mapping.t_of(1000) - t1) < 1);
  }

  void dragPans() {
    TimelineWidget w;
    w.resize(1000, 600);
    w.set_data(data_);
    w.show();
    const double t = w.view().mapping.t_of(300);
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, QPoint(300, 300));
    QMouseEvent move(QEvent::MouseMove, QPointF(400, 300), w.mapToGlobal(QPointF(400, 300)), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &move);
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, QPoint(400, 300));
    // What was under x = 300 is now under x = 400, and no click happened.
    QVERIFY(std::fabs(w.view().mapping.t_of(400) - t) < 1e-6 * w.view().mapping.ns_per_px + 1e-9);
    QVERIFY(!w.view().selected);
  }

  void clickSelectsAThreadItsChainAndEdges() {
    TimelineWidget w;
    w.resize(1000, 600);
    w.set_data(data_);
    w.show();
    const TimelineGeometry g = w.geometry_now();
    // On thread 4's line at 620 µs, before 5 exists (5 is created at 650
    // µs on the same row; from then on a click there picks the chain's
    // latest member, 5).
    const std::uint32_t four = index(4), five = index(5);
    const double x = w.view().mapping.x_of(620000);
    const double y = line_y(*data_, w.view(), g, four);
    QVERIFY(y > 0);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(int(std::lround(x)), int(std::lround(y))));
    QVERIFY(w.view().selected.has_value());
    QCOMPARE(*w.view().selected, four);
    // The merge chain both ways: 4 and 5.
    QCOMPARE(w.view().selected_chain.size(), std::size_t(2));
    QVERIFY(std::count(w.view().selected_chain.begin(), w.view().selected_chain.end(), five) == 1);
    QCOMPARE(pick_thread(*data_, w.view(), g, w.view().mapping.x_of(750000), y), std::optional<std::uint32_t>(five));
    // Direct edges: 0 spawned 4, 4 spawned 5, 5 resolved itself.
    QVERIFY(w.view().selected_edges.size() >= 3);
    for (std::uint32_t e : w.view().selected_edges) {
      const TimelineEdge& edge = data_->edges[e];
      QVERIFY(edge.src == std::int32_t(four) || edge.src == std::int32_t(five) || edge.dst == std::int32_t(four) ||
              edge.dst == std::int32_t(five));
    }
    // A click on thread 3 selects 3 alone.
    const double y3 = line_y(*data_, w.view(), g, index(3));
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier,
                      QPoint(int(std::lround(w.view().mapping.x_of(300000))), int(std::lround(y3))));
    QCOMPARE(*w.view().selected, index(3));
    QCOMPARE(w.view().selected_chain.size(), std::size_t(1));
    // The tooltip there names it and its failure.
    const QString tip = w.tooltip_at(QPointF(w.view().mapping.x_of(300000), y3));
    QVERIFY2(tip.contains(QStringLiteral("#3")) && tip.contains(QStringLiteral("doomed")), qPrintable(tip));
    const QString fail_tip = w.tooltip_at(QPointF(w.view().mapping.x_of(590000), y3));
    QVERIFY2(fail_tip.contains(QStringLiteral("boom")), qPrintable(fail_tip));
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(!w.view().selected);
    QVERIFY(w.view().selected_edges.empty());
  }

  void pixelsOfALineASpanAnArrowAndAFailure() {
    RenderRequest request;
    request.width = 1000;
    request.height = 600;
    const TimelineViewState view = view_for_request(*data_, request);
    const QImage image = render_timeline_image(*data_, view, request.width, request.height);
    const TimelineGeometry g(request.width, request.height, *data_);
    const auto pixel = [&](double x, double y) { return image.pixelColor(int(std::floor(x)), int(std::floor(y))); };
    const auto& m = view.mapping;

    // Thread 2 waits from 0 to 500 µs: a thin grey line.
    const double y2 = line_y(*data_, view, g, index(2));
    QVERIFY2(close_to(pixel(m.x_of(250000), y2), style::kWaiting, 2), qPrintable(describe(pixel(m.x_of(250000), y2))));
    QVERIFY2(close_to(pixel(m.x_of(250000), y2 - 1), style::kWaiting, 2), qPrintable(describe(pixel(m.x_of(250000), y2 - 1))));
    // Off the line, the row's background.
    QVERIFY(!close_to(pixel(m.x_of(250000), y2 - 3), style::kWaiting, 20));
    // Thread 1 runs from 100 to 300 µs: the thick bright span.
    const double y1 = line_y(*data_, view, g, index(1));
    QVERIFY2(close_to(pixel(m.x_of(200000), y1 + 3), style::kRunning, 2), qPrintable(describe(pixel(m.x_of(200000), y1 + 3))));
    QVERIFY2(close_to(pixel(m.x_of(200000), y1 - 3), style::kRunning, 2), qPrintable(describe(pixel(m.x_of(200000), y1 - 3))));
    // The read at 500 µs: a blue arrow between 1's row and 2's.
    const double arrow_x = std::round(m.x_of(500000)) + 0.5;
    const double mid = (y1 + y2) / 2;
    QVERIFY2(std::fabs(y1 - y2) > 20, "rows 1 and 2 are apart");
    QVERIFY2(close_to(pixel(arrow_x, mid), style::kRead), qPrintable(describe(pixel(arrow_x, mid))));
    QVERIFY(!close_to(pixel(arrow_x + 3, mid), style::kRead, 40));
    // Thread 3 fails at 600 µs: a red bar across its line.
    const double y3 = line_y(*data_, view, g, index(3));
    const double fx = std::floor(m.x_of(600000));
    QVERIFY2(close_to(pixel(fx, y3 - 6), style::kFailure, 2), qPrintable(describe(pixel(fx, y3 - 6))));
    QVERIFY2(close_to(pixel(fx, y3 + 6), style::kFailure, 2), qPrintable(describe(pixel(fx, y3 + 6))));
    QVERIFY(!close_to(pixel(fx + 4, y3 - 6), style::kFailure, 40));

    // A missing notification found by the lints: a red diamond on the
    // receiver's line at the transfer (here 2 at 450 µs, from 1); a note
    // (pending-at-end, in a snapshot) an amber one.
    TimelineData with_finding = *data_;
    with_finding.anomalies.push_back(worded_finding(450000, std::int32_t(index(2)), std::int32_t(index(1)),
                                                    "missing-notification", "error", "nobody woke 2", 1));
    with_finding.anomalies.push_back(
        worded_finding(550000, std::int32_t(index(2)), -1, "pending-at-end", "note", "2 is pending", 2));
    const QImage marked = render_timeline_image(with_finding, view, request.width, request.height);
    const double ax = std::round(m.x_of(450000));
    QVERIFY2(close_to(marked.pixelColor(int(ax) - 3, int(y2)), style::kFindingError, 2),
             qPrintable(describe(marked.pixelColor(int(ax) - 3, int(y2)))));
    QVERIFY(!close_to(image.pixelColor(int(ax) - 3, int(y2)), style::kFindingError, 40));
    const double nx = std::round(m.x_of(550000));
    QVERIFY2(close_to(marked.pixelColor(int(nx) - 3, int(y2)), style::kFindingNote, 2),
             qPrintable(describe(marked.pixelColor(int(nx) - 3, int(y2)))));

    // The widget draws the same picture.
    TimelineWidget w;
    w.resize(request.width, request.height);
    w.set_data(data_);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QImage shown = w.grab().toImage();
    const double wy2 = line_y(*data_, w.view(), w.geometry_now(), index(2));
    QVERIFY(close_to(shown.pixelColor(int(w.view().mapping.x_of(250000)), int(wy2)), style::kWaiting, 2));
    const double wy3 = line_y(*data_, w.view(), w.geometry_now(), index(3));
    QVERIFY(close_to(shown.pixelColor(int(std::floor(w.view().mapping.x_of(600000))), int(wy3 - 6)), style::kFailure, 2));
  }

  // A frame draws a finding's marker only where it shows, and a link once
  // per appearance: findings on rows off screen leave no diamond, and
  // links that differ only past the frame's edge are one link (dashed,
  // as a few links are), however many findings stand behind it. A big
  // linted trace puts hundreds of thousands of findings in the whole-trace
  // window; what a frame costs and shows is bounded by what is on screen.
  void findingMarkersAreDrawnOncePerPlaceOnScreen() {
    // 400 tasks alive together: a row each.
    std::string trace = "(skein-trace 1)\n";
    for (int i = 1; i <= 400; ++i) trace += "(spawn 0 " + std::to_string(i) + " 0 task)\n";
    trace += "(switch 100 1)\n(switch 200 -1)\n(end 1000000)\n";
    const TimelineData base = imported(QStringLiteral("many-rows"), trace);
    RenderRequest request;
    request.width = 800;
    request.height = 300;
    const TimelineViewState view = view_for_request(base, request);
    const TimelineGeometry g(request.width, request.height, base);
    // Thread 1's row is on screen; rows from thread 100 on are far below.
    const std::uint32_t on_screen = *base.thread_index(1);
    const double y1 = line_y(base, view, g, on_screen);
    QVERIFY(y1 > g.rows_top() && y1 < g.rows_bottom());
    std::vector<std::uint32_t> below;
    for (ThreadId id = 100; id <= 399; ++id) {
      const std::uint32_t i = *base.thread_index(id);
      const double y = line_y(base, view, g, i);
      if (y > request.height + 50) below.push_back(i);
    }
    QVERIFY(below.size() > 256);
    const auto finding = [](std::uint32_t thread, std::int32_t from) {
      return worded_finding(500000, std::int32_t(thread), from, "missing-notification", "error", "x", 1);
    };
    const QImage plain = render_timeline_image(base, view, request.width, request.height);
    // Off screen and unlinked: nothing drawn.
    TimelineData unlinked = base;
    for (const std::uint32_t i : below) unlinked.anomalies.push_back(finding(i, -1));
    QCOMPARE(render_timeline_image(unlinked, view, request.width, request.height), plain);
    // Linked from thread 1's row: one link, the same for one finding or 300.
    TimelineData one = base;
    one.anomalies.push_back(finding(below.front(), std::int32_t(on_screen)));
    TimelineData many = base;
    for (const std::uint32_t i : below) many.anomalies.push_back(finding(i, std::int32_t(on_screen)));
    const QImage linked_once = render_timeline_image(one, view, request.width, request.height);
    QVERIFY(linked_once != plain);
    QCOMPARE(render_timeline_image(many, view, request.width, request.height), linked_once);
    // The link runs down from thread 1's row at the finding's time, dashed:
    // some of the column in the finding's colour, not all of it.
    const int x = int(std::round(view.mapping.x_of(500000)));
    const int top = int(y1) + 2, bottom = g.rows_bottom() - 1;
    const int red = test::count_colour(linked_once, QRect(x - 1, top, 3, bottom - top), style::kFindingError, 60);
    QVERIFY2(red > 10, qPrintable(QString::number(red)));
    QVERIFY2(red < 3 * (bottom - top) * 3 / 4, qPrintable(QString::number(red)));
  }

  void findingsFarFromTheScreenAreSkippedWithoutChangingAPixel() {
    // 400 tasks, each running once in turn: a row each, every row active.
    std::string trace = "(skein-trace 1)\n";
    for (int i = 1; i <= 400; ++i) trace += "(spawn 0 " + std::to_string(i) + " 0 task)\n";
    for (int i = 1; i <= 400; ++i) trace += "(switch " + std::to_string(i * 2000) + " " + std::to_string(i) + ")\n";
    trace += "(switch 900000 -1)\n(end 1000000)\n";
    // 6,000 findings on random rows at random times, half of them linked
    // from another random row, of each severity.
    TimelineData indexed = imported(QStringLiteral("finding-rows"), trace);
    std::mt19937 rng(1404);
    const char* const severities[] = {"error", "warning", "note"};
    const char* const rules[] = {"missing-notification", "late-notify", "pending-at-end"};
    const auto threads = static_cast<std::int32_t>(indexed.threads.size());
    for (int k = 0; k < 6000; ++k) {
      const auto thread = static_cast<std::int32_t>(rng() % static_cast<std::uint32_t>(threads));
      const std::int32_t from = rng() % 2 ? static_cast<std::int32_t>(rng() % static_cast<std::uint32_t>(threads)) : -1;
      const int kind = static_cast<int>(rng() % 3);
      indexed.anomalies.push_back(worded_finding(TimeNs(rng() % 1000000), thread, from, rules[kind], severities[kind],
                                                 "f", k + 1));
    }
    std::sort(indexed.anomalies.begin(), indexed.anomalies.end(),
              [](const TimelineAnomaly& a, const TimelineAnomaly& b) { return a.time < b.time; });
    index_finding_rows(indexed);
    QCOMPARE(indexed.finding_rows.size(), indexed.anomalies.size());
    // The oracle: the same findings, each one read (no index).
    TimelineData every = indexed;
    every.finding_rows.clear();
    TimelineData none = indexed;
    none.anomalies.clear();
    none.finding_rows.clear();
    RenderRequest request;
    request.width = 900;
    request.height = 500;
    int compared = 0;
    for (const RowFolding folding : {RowFolding::none, RowFolding::quiet})
      for (const double window : {1e6, 1e5, 4e3})
        for (const double offset : {0.0, 3.5, 120.0, 250.25, 399.0}) {
          TimelineViewState view = view_for_request(indexed, request);
          const double middle = 500000;
          view.mapping.fit(middle - window / 2, middle + window / 2, request.width);
          view.folding = folding;
          view.refold(indexed, request.width);
          view.row_offset = offset;
          view.clamp_rows();
          const QImage with_index = render_timeline_image(indexed, view, request.width, request.height);
          const QImage each_read = render_timeline_image(every, view, request.width, request.height);
          QVERIFY2(with_index == each_read, qPrintable(QStringLiteral("window %1 ns, row offset %2, folding %3")
                                                           .arg(window)
                                                           .arg(view.row_offset)
                                                           .arg(int(folding))));
          // Findings are drawn in this view (the comparison is not of two
          // pictures without any).
          if (render_timeline_image(none, view, request.width, request.height) != with_index) ++compared;
        }
    QVERIFY2(compared >= 20, qPrintable(QString::number(compared)));
  }

  void aRowsNoteIsATagAtItsRightEndCappedInWidth() {
    RenderRequest request;
    request.width = 1000;
    request.height = 600;
    TimelineViewState view = view_for_request(*data_, request);
    const TimelineGeometry g(request.width, request.height, *data_);
    const double y2 = line_y(*data_, view, g, index(2));
    // The tag's background, counted along the row just under its line.
    const auto tag_span = [&](const QImage& image) {
      int first = -1, last = -1;
      for (int x = 0; x < image.width(); ++x)
        if (close_to(image.pixelColor(x, int(y2) - 8), style::kFindingErrorBackground, 6)) {
          if (first < 0) first = x;
          last = x;
        }
      return std::pair{first, last};
    };
    QCOMPARE(tag_span(render_timeline_image(*data_, view, request.width, request.height)).first, -1);
    view.notes = {FocusLabel{index(2), "suspect: backend #2", "error"}};
    const auto [s0, s1] = tag_span(render_timeline_image(*data_, view, request.width, request.height));
    QVERIFY2(s0 > request.width / 2 && s1 > request.width - 60, qPrintable(QString("%1-%2").arg(s0).arg(s1)));
    // A merge chain's 400-character label: the tag stops at 45% of the
    // width, so the row's own name at the left stays in view.
    std::string chain;
    for (int i = 0; i < 30; ++i) chain += "Netif.rx_poll \xc2\xb7 ";
    view.notes = {FocusLabel{index(2), "error #13: " + chain + "#2", "error"}};
    const auto [l0, l1] = tag_span(render_timeline_image(*data_, view, request.width, request.height));
    QVERIFY2(l0 > 0 && l1 - l0 <= int(0.45 * request.width) + 2, qPrintable(QString("%1-%2").arg(l0).arg(l1)));
    QVERIFY(l0 > request.width / 2);
  }

  void aFindingsTagTakesTheColourOfItsSeverity() {
    RenderRequest request;
    request.width = 1000;
    request.height = 600;
    TimelineViewState view = view_for_request(*data_, request);
    const TimelineGeometry g(request.width, request.height, *data_);
    const auto slot = view.slot_of(data_->threads[index(2)].row);
    QVERIFY(slot);
    // The right half of thread 2's row, where its tag goes.
    const QRect tag(request.width / 2, int(g.row_top(*slot, view.row_offset)), request.width / 2,
                    TimelineGeometry::kRowHeight);
    const std::string severities[] = {"error", "warning", "note"};
    for (const std::string& severity : severities) {
      view.notes = {FocusLabel{index(2), severity + " #3: reader #2", severity}};
      const QImage image = render_timeline_image(*data_, view, request.width, request.height);
      for (const std::string& other : severities) {
        const int n = test::count_colour(image, tag, style::finding_colour(other), 20);
        const QString what = QStringLiteral("%1 tag, %2 colour: %3 pixels")
                                 .arg(QString::fromStdString(severity), QString::fromStdString(other))
                                 .arg(n);
        // Its border and letters in its own colour, none in another's.
        if (other == severity) QVERIFY2(n > 40, qPrintable(what));
        else QVERIFY2(n == 0, qPrintable(what));
      }
      QVERIFY(test::count_colour(image, tag, style::finding_background(severity), 4) > 100);
    }
  }

  void loaderDeliversOnTheUiThreadAndReportsErrors() {
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy failed(&loader, &TraceLoader::failed);
    const quint64 job = loader.load(trace_path_, dir_.filePath(QStringLiteral("cache")));
    QVERIFY(loaded.wait(20000));
    QCOMPARE(loaded.first().at(0).value<quint64>(), job);
    const auto data = loaded.first().at(1).value<std::shared_ptr<const TimelineData>>();
    QVERIFY(data);
    QCOMPARE(data->threads.size(), std::size_t(6));

    const QString broken = dir_.filePath(QStringLiteral("broken.sexp"));
    std::ofstream(broken.toStdString()) << "(skein-trace 1)\n(spawn 0 1 0 task)\n(spawn zero 2 0 task)\n";
    const quint64 bad = loader.load(broken, dir_.filePath(QStringLiteral("cache")));
    QVERIFY(failed.wait(20000));
    QCOMPARE(failed.first().at(0).value<quint64>(), bad);
    const QString message = failed.first().at(1).toString();
    QVERIFY2(message.contains(QStringLiteral("broken.sexp:3:")), qPrintable(message));
  }

  void theFirstFrameComesFirstAndEqualsTheWholeTracesFrame() {
    // Given the canvas, the loader reads the first frame from the stored
    // levels and delivers it before the whole trace.
    TraceLoader loader;
    std::vector<QString> order;
    connect(&loader, &TraceLoader::first_frame, this, [&] { order.push_back(QStringLiteral("first frame")); });
    connect(&loader, &TraceLoader::loaded, this, [&] { order.push_back(QStringLiteral("loaded")); });
    QSignalSpy first(&loader, &TraceLoader::first_frame);
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    const quint64 job = loader.load(trace_path_, dir_.filePath(QStringLiteral("frame-cache")), {}, QSize(900, 500));
    QVERIFY(loaded.wait(20000));
    QCOMPARE(order, (std::vector<QString>{QStringLiteral("first frame"), QStringLiteral("loaded")}));
    QCOMPARE(first.first().at(0).value<quint64>(), job);
    const auto frame = first.first().at(1).value<std::shared_ptr<const TimelineFirstFrame>>();
    QVERIFY(frame);
    QCOMPARE(frame->width, 900);
    QCOMPARE(frame->height, 500);
    const auto data = loaded.first().at(1).value<std::shared_ptr<const TimelineData>>();

    // The widget draws it as the whole trace's first screen, and answers
    // nothing until the whole trace is there.
    TimelineWidget w;
    w.resize(900, 500);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy painted(&w, &TimelineWidget::frame_painted);
    w.show_first_frame(frame);
    const QImage from_levels = w.grab().toImage();
    QVERIFY(painted.count() >= 1);
    const double before = w.view().mapping.ns_per_px;
    QTest::keyClick(&w, Qt::Key_W);
    QCOMPARE(w.view().mapping.ns_per_px, before);
    QVERIFY(!w.data());
    w.set_data(data);
    QVERIFY(!w.first_frame());
    const QImage whole = w.grab().toImage();
    QCOMPARE(from_levels.size(), whole.size());
    QCOMPARE(test::count_differing(from_levels, whole), 0);
    QVERIFY(test::count_colour(whole, whole.rect(), style::kRunning, 2) > 20);  // the frame draws something

    // At another size, the frame is not drawn.
    TimelineWidget other;
    other.resize(800, 500);
    other.show();
    QVERIFY(QTest::qWaitForWindowExposed(&other));
    other.show_first_frame(frame);
    const QImage elsewhere = other.grab().toImage();
    QCOMPARE(test::count_colour(elsewhere, elsewhere.rect(), style::kRunning, 2), 0);
  }

  void aCancelledLoadReportsCancelled() {
    // A trace with no cache yet, so that opening it means importing it.
    const QString fresh = dir_.filePath(QStringLiteral("fresh.sexp"));
    std::ofstream(fresh.toStdString()) << kTrace;
    TraceLoader loader;
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy failed(&loader, &TraceLoader::failed);
    const quint64 job = loader.load(fresh, dir_.filePath(QStringLiteral("cancel-cache")));
    loader.cancel();  // before the worker looks: the import stops at its first check
    QVERIFY(failed.wait(20000));
    QCOMPARE(failed.first().at(0).value<quint64>(), job);
    QVERIFY(failed.first().at(2).toBool());
    QCOMPARE(loaded.count(), 0);
  }

  void aReplacedJobsResultIsDropped() {
    qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("xdg")).toUtf8());
    MainWindow window;
    QSignalSpy finished(&window, &MainWindow::load_finished);
    const QString other = dir_.filePath(QStringLiteral("other.sexp"));
    std::ofstream(other.toStdString()) << "(skein-trace 1)\n(spawn 0 1 0 task)\n(end 10)\n";
    window.open(trace_path_);
    const quint64 first = window.current_job();
    window.open(other);
    QVERIFY(window.current_job() != first);
    QVERIFY(finished.wait(20000));
    // Let any result of the first job arrive too: it must not replace the second's.
    QTest::qWait(300);
    QCOMPARE(finished.count(), 1);
    QVERIFY(finished.first().at(0).toBool());
    QVERIFY(window.timeline()->data());
    QCOMPARE(window.timeline()->data()->threads.size(), std::size_t(2));  // 0 and 1: the other trace
  }

  void mirageFixtureShowsThe2014Picture() {
    const auto data = mirage_fixture();
    if (!data) QSKIP("fixture log-x86.sexp is missing (set SKEIN_FIXTURES to its folder)");

    TimelineWidget w;
    w.resize(1600, 900);
    w.set_data(data);
    w.show();
    w.show_window(double(data->first_time) + 125e6, double(data->first_time) + 137e6);
    const TimelineGeometry g = w.geometry_now();
    const QImage shown = w.grab().toImage();
    for (const char* wanted : {"Process data", "blkfront.poll", "B.read"}) {
      // Some thread with this label is alive in the window, on a shown row
      // inside the widget, and its line is drawn there.
      bool on_screen = false;
      for (std::uint32_t i = 0; i < data->threads.size() && !on_screen; ++i) {
        const TimelineThread& t = data->threads[i];
        if (data->text(t.label).find(wanted) == std::string::npos) continue;
        const double from = std::max(double(t.start), w.view().mapping.t_of(0));
        const double to = std::min(double(t.end), w.view().mapping.t_of(1600));
        if (from >= to) continue;
        const auto slot = w.view().slot_of(t.row);
        if (!slot) continue;
        const double y = g.line_y(*slot, w.view().row_offset);
        if (y < g.rows_top() || y >= g.rows_bottom()) continue;
        const int x = int(w.view().mapping.x_of((from + to) / 2));
        const QColor c = shown.pixelColor(x, int(y));
        on_screen = close_to(c, style::kWaiting, 8) || close_to(c, style::kRunning, 8) ||
                    close_to(c, style::kSelectedLine, 8);
      }
      QVERIFY2(on_screen, wanted);
    }
  }

  void mirageFixtureFirstScreenShowsTheLongLivedRows() {
    const auto data = mirage_fixture();
    if (!data) QSKIP("fixture log-x86.sexp is missing (set SKEIN_FIXTURES to its folder)");
    // The timeline as skein-view's window leaves it room beside and under
    // the docks: 1200 x 600, 15 rows.
    TimelineWidget w;
    w.resize(1200, 600);
    w.set_data(data);
    w.show();
    const TimelineGeometry g = w.geometry_now();
    QCOMPARE(w.view().row_offset, 0.0);
    const auto first_slot = [&](const char* wanted) {
      std::int32_t best = INT32_MAX;
      for (const TimelineThread& t : data->threads)
        if (data->text(t.label).find(wanted) != std::string::npos)
          if (const auto slot = w.view().slot_of(t.row)) best = std::min(best, *slot);
      return best;
    };
    for (const char* wanted : {"Process data", "blkfront.poll"}) {
      const std::int32_t slot = first_slot(wanted);
      QVERIFY2(slot + 1 <= g.visible_rows(),
               qPrintable(QStringLiteral("%1 is at slot %2 of %3 on screen").arg(QLatin1String(wanted)).arg(slot).arg(g.visible_rows())));
    }
    // The whole trace is in the window.
    QVERIFY(w.view().mapping.x_of(double(data->first_time)) >= 0);
    QVERIFY(w.view().mapping.x_of(double(data->end_time)) <= 1200);
  }
};

int main(int argc, char** argv) {
  // No display is needed: the offscreen platform renders everything.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // Settings (Open Recent) go to a test location, not the user's.
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("Skein test"));
  QCoreApplication::setApplicationName(QStringLiteral("timeline_widget_test"));
  TimelineWidgetTest test;
  // Two ctest entries share this program: "--fixture" runs only the test of
  // the MirageOS fixture (exit 77, ctest's "skipped", when it is missing);
  // with no argument every other test runs, so that a missing fixture never
  // hides them. Test function names given explicitly run as QTest runs them.
  // The fixture tests are the slots named mirageFixture...
  QStringList args = QCoreApplication::arguments();
  const bool fixture_only = args.removeAll(QStringLiteral("--fixture")) > 0;
  if (fixture_only || args.size() == 1) {
    const QMetaObject* meta = test.metaObject();
    for (int i = meta->methodOffset(); i < meta->methodCount(); ++i) {
      const QMetaMethod m = meta->method(i);
      const QString name = QString::fromLatin1(m.name());
      if (m.methodType() != QMetaMethod::Slot || m.access() != QMetaMethod::Private) continue;
      if (name.startsWith(QLatin1String("init")) || name.startsWith(QLatin1String("cleanup"))) continue;
      if (name.startsWith(QLatin1String("mirageFixture")) == fixture_only) args << name;
    }
  }
  const int failed = QTest::qExec(&test, args);
  return failed == 0 && g_skipped ? 77 : failed;
}

#include "timeline_widget_test.moc"
