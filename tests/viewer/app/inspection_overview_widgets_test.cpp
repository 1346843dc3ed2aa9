// inspection_overview_widgets_test.cpp — the overview strip, the subsecond
// heat map and the flame graph widgets under QTest (offscreen platform), on
// a small trace written by hand and imported for real. Every position the
// tests press or read comes from the cores (OverviewMapping,
// HeatmapGeometry, layout_flame_graph), so they say "on cell (1, 5)" or "on
// the frame `server`", and expected times and colours are exact:
//
//   - overview: a drag on the marked window moves it, a click elsewhere
//     centres it, a Shift-drag selects a range (range_requested each time,
//     kept inside the trace); the window and the bars are drawn where the
//     mapping says (pixels of grab());
//   - heat map: the caption names the unit chosen for a short trace; cells
//     have their colours; a drag from cell to cell, either way, emits the
//     range from the earlier cell's start to the later one's end;
//   - flame graph: the header says run time is not wall time; frames are
//     drawn where the core's layout puts them; a click zooms into a frame
//     (and emits its label), Backspace, a right click and a click on an
//     ancestor go back; a new range keeps the zoom while its frame ran.
#include <QApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>

#include "recorder/store/trace_import.hpp"
#include "viewer/app/flame_graph_widget.hpp"
#include "viewer/app/overview_strip.hpp"
#include "viewer/app/subsecond_heatmap_widget.hpp"
#include "viewer/timeline/flame_graph.hpp"
#include "tests/viewer/overview_trace.hpp"
#include "viewer/render/timeline_style.hpp"

using namespace skein;

namespace {

// The trace of overview_trace.hpp: run time 4100 ns, "server" 2800 of it.
const char* const kTrace = skein::test::kOverviewTrace;

QPoint at(double x, double y) { return {static_cast<int>(std::floor(x)), static_cast<int>(std::floor(y))}; }

void drag(QWidget& w, QPoint from, QPoint to, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
  QTest::mousePress(&w, Qt::LeftButton, modifiers, from);
  QMouseEvent move(QEvent::MouseMove, QPointF(to), w.mapToGlobal(QPointF(to)), Qt::NoButton, Qt::LeftButton,
                   modifiers);
  QApplication::sendEvent(&w, &move);
  QTest::mouseRelease(&w, Qt::LeftButton, modifiers, to);
}

// The (t0, t1) of a range signal's last emission.
std::pair<double, double> last_range(const QSignalSpy& spy) {
  const QList<QVariant> args = spy.last();
  return {args.at(0).toDouble(), args.at(1).toDouble()};
}

bool same_range(std::pair<double, double> got, double t0, double t1) {
  return std::fabs(got.first - t0) < 1e-6 && std::fabs(got.second - t1) < 1e-6;
}

QString describe(std::pair<double, double> r) {
  return QStringLiteral("[%1, %2]").arg(r.first, 0, 'f', 3).arg(r.second, 0, 'f', 3);
}

QString describe(QColor c) { return c.name(); }

}  // namespace

class InspectionOverviewWidgetsTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const TimelineData> data_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    const std::string trace = dir_.filePath(QStringLiteral("overview.sexp")).toStdString();
    std::ofstream(trace) << kTrace;
    const std::string db = dir_.filePath(QStringLiteral("overview.db")).toStdString();
    ImportOptions options;
    options.sync = false;
    QVERIFY(import_trace(trace, db, options).ok());
    auto store = TraceStore::open(db);
    QVERIFY(store.ok());
    TimelineLoadOptions load;
    load.activity = true;  // as skein-view loads it, for the overview strip
    auto loaded = load_timeline(store.value(), load);
    QVERIFY(loaded.ok());
    data_ = std::make_shared<const TimelineData>(std::move(loaded).value());
    QCOMPARE(data_->first_time, TimeNs(0));
    QCOMPARE(data_->end_time, TimeNs(10000));
  }

  // 1000 px for 10 µs: 10 ns a pixel; the window [2000, 4000] is x 200..400.
  void overviewDragOnTheWindowMovesIt() {
    OverviewStrip s;
    s.resize(1000, 48);
    s.set_data(data_);
    s.set_visible_range(2000, 4000);
    s.show();
    QCOMPARE(s.mapping().x_of(2000), 200.0);
    QSignalSpy spy(&s, &OverviewStrip::range_requested);
    drag(s, at(s.mapping().x_of(3000), 20), at(s.mapping().x_of(5500), 20));
    QVERIFY(!spy.isEmpty());
    QVERIFY2(same_range(last_range(spy), 4500, 6500), qPrintable(describe(last_range(spy))));
    QCOMPARE(s.visible_t0(), 4500.0);
    // Past the end: the window stops at the trace's end, keeping its length.
    drag(s, at(s.mapping().x_of(5000), 20), at(s.mapping().x_of(9900), 20));
    QVERIFY2(same_range(last_range(spy), 8000, 10000), qPrintable(describe(last_range(spy))));
  }

  void overviewClickCentresAndShiftDragSelects() {
    OverviewStrip s;
    s.resize(1000, 48);
    s.set_data(data_);
    s.set_visible_range(2000, 4000);
    s.show();
    QSignalSpy spy(&s, &OverviewStrip::range_requested);
    QTest::mouseClick(&s, Qt::LeftButton, Qt::NoModifier, at(s.mapping().x_of(7000), 20));
    QCOMPARE(spy.count(), 1);
    QVERIFY2(same_range(last_range(spy), 6000, 8000), qPrintable(describe(last_range(spy))));
    // Near the start: centred as far as the trace allows.
    QTest::mouseClick(&s, Qt::LeftButton, Qt::NoModifier, at(s.mapping().x_of(500), 20));
    QVERIFY2(same_range(last_range(spy), 0, 2000), qPrintable(describe(last_range(spy))));
    // A click inside the window centres it there too.
    QTest::mouseClick(&s, Qt::LeftButton, Qt::NoModifier, at(s.mapping().x_of(1500), 20));
    QVERIFY2(same_range(last_range(spy), 500, 2500), qPrintable(describe(last_range(spy))));
    // Shift-drag from 1 µs to 3.5 µs, right to left.
    drag(s, at(s.mapping().x_of(3500), 20), at(s.mapping().x_of(1000), 20), Qt::ShiftModifier);
    QVERIFY2(same_range(last_range(spy), 1000, 3500), qPrintable(describe(last_range(spy))));
    QCOMPARE(s.visible_t1(), 3500.0);
  }

  void overviewDrawsTheWindowAndTheBars() {
    OverviewStrip s;
    s.resize(1000, 48);
    s.set_data(data_);
    s.set_visible_range(2000, 4000);
    s.show();
    const QImage image = s.grab().toImage();
    QCOMPARE(image.width(), 1000);
    const OverviewMapping m = s.mapping();
    const int mid = 24;
    // Inside the window, where nothing ran (3.5 µs): the window's fill.
    const QColor inside = image.pixelColor(at(m.x_of(3500), mid));
    QVERIFY2(inside == style::kSelection, qPrintable(describe(inside)));
    // Outside it, idle (7 µs): the canvas.
    const QColor outside = image.pixelColor(at(m.x_of(7000), mid));
    QVERIFY2(outside == style::kCanvas, qPrintable(describe(outside)));
    // Its edges, two pixels each, inside the window.
    for (double x : {m.x_of(2000), m.x_of(2000) + 1, m.x_of(4000) - 1, m.x_of(4000) - 2}) {
      const QColor edge = image.pixelColor(at(x, mid));
      QVERIFY2(edge == style::kSelectedLine, qPrintable(QStringLiteral("x %1: %2").arg(x).arg(describe(edge))));
    }
    // 1 runs all of 1.5 µs: a full-height bar, pad to pad; 4 runs all of 4.5 µs.
    for (int y : {OverviewStrip::kPad, 47 - OverviewStrip::kPad}) {
      const QColor bar = image.pixelColor(at(m.x_of(1500), y));
      QVERIFY2(bar == style::kDensity, qPrintable(QStringLiteral("y %1: %2").arg(y).arg(describe(bar))));
    }
    QCOMPARE(image.pixelColor(at(m.x_of(4500), mid)), style::kDensity);
    // Above the bars' top, on the window: its fill again.
    QCOMPARE(image.pixelColor(at(m.x_of(2200), OverviewStrip::kPad - 2)), style::kSelection);
    QVERIFY(s.tooltip_at(m.x_of(1500)).contains(QStringLiteral("busy 100%")));
  }

  // The strip draws from the run time per bin the import stored, not from
  // the activations: with every activation taken out of the data, it draws
  // the same bars; without the stored histogram too, none.
  void overviewDrawsFromTheImportsHistogram() {
    QVERIFY(data_->activity.has_value());
    auto bare = std::make_shared<TimelineData>(*data_);
    for (TimelineRow& row : bare->rows) row.activations.clear();
    const auto bars_at = [](std::shared_ptr<const TimelineData> d) {
      OverviewStrip s;
      s.resize(1000, 48);
      s.set_data(std::move(d));
      s.set_visible_range(2000, 4000);
      s.show();
      const QImage image = s.grab().toImage();
      const OverviewMapping m = s.mapping();
      return std::make_pair(image.pixelColor(at(m.x_of(1500), OverviewStrip::kPad)),
                            image.pixelColor(at(m.x_of(4500), 24)));
    };
    const auto from_data = bars_at(data_);
    QCOMPARE(from_data.first, style::kDensity);
    QCOMPARE(bars_at(bare), from_data);
    bare->activity.reset();
    const auto none = bars_at(bare);
    QCOMPARE(none.first, style::kCanvas);
    QCOMPARE(none.second, style::kCanvas);
  }

  // 10 columns of 1 µs (50 rows of 20 ns) in 500 x 200 px: cells of 50 x 4.
  void heatmapSaysItsUnitAndColoursCells() {
    SubsecondHeatmapWidget w;
    w.resize(SubsecondHeatmapWidget::kLeft + 500 + SubsecondHeatmapWidget::kRight,
             SubsecondHeatmapWidget::kHeader + 200 + SubsecondHeatmapWidget::kBottom);
    w.set_data(data_);
    w.show();
    QVERIFY2(w.caption().contains(QStringLiteral("trace shorter than 50 µs: columns of 1 µs, rows of 20 ns")),
             qPrintable(w.caption()));
    const HeatmapGeometry g = w.grid();
    QCOMPARE(g.columns, 10);
    QCOMPARE(g.cell_w, 50.0);
    QCOMPARE(g.cell_h, 4.0);
    const QImage image = w.grab().toImage();
    const auto centre = [&](HeatmapCell c) { return at(g.x_of(c.column) + g.cell_w / 2, g.y_of(c.row) + g.cell_h / 2); };
    // 1 runs all of column 1; nothing runs in column 3 after 3 µs; 4 runs
    // until 4.6 µs: row 29 of column 4 is busy, row 30 is not.
    QCOMPARE(image.pixelColor(centre({1, 5})), SubsecondHeatmapWidget::cell_colour(1));
    QCOMPARE(image.pixelColor(centre({3, 5})), style::kRowStripe);
    QCOMPARE(image.pixelColor(centre({4, 29})), SubsecondHeatmapWidget::cell_colour(1));
    QCOMPARE(image.pixelColor(centre({4, 30})), style::kRowStripe);
    QVERIFY(SubsecondHeatmapWidget::cell_colour(1) != SubsecondHeatmapWidget::cell_colour(0.5));
    QVERIFY(w.tooltip_at(QPointF(centre({4, 29}))).contains(QStringLiteral("busy 100%")));
  }

  void heatmapDragSelectsFromCellToCell() {
    SubsecondHeatmapWidget w;
    w.resize(SubsecondHeatmapWidget::kLeft + 500 + SubsecondHeatmapWidget::kRight,
             SubsecondHeatmapWidget::kHeader + 200 + SubsecondHeatmapWidget::kBottom);
    w.set_data(data_);
    w.show();
    const HeatmapGeometry g = w.grid();
    const auto centre = [&](HeatmapCell c) { return at(g.x_of(c.column) + g.cell_w / 2, g.y_of(c.row) + g.cell_h / 2); };
    QSignalSpy spy(&w, &SubsecondHeatmapWidget::range_selected);
    // Cell (1, 5) starts at 1.1 µs; cell (3, 10) ends at 3.22 µs.
    drag(w, centre({1, 5}), centre({3, 10}));
    QCOMPARE(spy.count(), 1);
    QVERIFY2(same_range(last_range(spy), 1100, 3220), qPrintable(describe(last_range(spy))));
    QVERIFY(w.selection() == (HeatmapRange{1100, 3220}));
    // The other way round: the same range.
    drag(w, centre({3, 10}), centre({1, 5}));
    QCOMPARE(spy.count(), 2);
    QVERIFY2(same_range(last_range(spy), 1100, 3220), qPrintable(describe(last_range(spy))));
    // A click: one cell.
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, centre({9, 49}));
    QVERIFY2(same_range(last_range(spy), 9980, 10000), qPrintable(describe(last_range(spy))));
    // The selection is outlined: the outline crosses cell (9, 49)'s top-left corner.
    const QImage image = w.grab().toImage();
    QCOMPARE(image.pixelColor(at(g.x_of(9) + 1.5, g.y_of(49) + 1.5)), style::kSelectedLine);
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(!w.selection());
  }

  // 820 px for 4100 ns of run time: 0.2 px a ns.
  void flameGraphDrawsFramesWhereTheLayoutSays() {
    FlameGraphWidget w;
    w.resize(820, 200);
    w.set_data(data_);
    w.set_range(0, 10000);
    w.show();
    QVERIFY(w.header_text().contains(QStringLiteral("Parallel threads add up")));
    QVERIFY(w.header_text().contains(QStringLiteral("not wall time")));
    QVERIFY(w.header_text().contains(QStringLiteral("4.10 µs of run time")));
    const FlameGraph core = build_flame_graph(*data_, 0, 10000);
    QCOMPARE(w.graph().frames.size(), core.frames.size());
    const std::vector<FlameRect> rects = layout_flame_graph(core, 0, 820, FlameGraphWidget::kMinFrameWidth);
    const QImage image = w.grab().toImage();
    for (const FlameRect& r : rects) {
      const std::string& name = core.frames[static_cast<std::size_t>(r.frame)].name;
      const double y = FlameGraphWidget::kHeaderHeight + r.level * FlameGraphWidget::kRowHeight;
      // The frame's top-left corner, clear of its text; and its rectangle.
      const QColor got = image.pixelColor(at(r.x + 1, y + 1));
      QVERIFY2(got == FlameGraphWidget::frame_colour(name),
               qPrintable(QStringLiteral("%1: %2").arg(QString::fromStdString(name), describe(got))));
      QCOMPARE(w.frame_rect(r.frame), QRectF(r.x, y, r.w, FlameGraphWidget::kRowHeight));
    }
    const std::int32_t server = *core.find({"server"});
    QCOMPARE(w.frame_rect(server), QRectF(60, 58, 560, 18));
    // Under "server", right of its children: its own run time, no frame.
    QCOMPARE(image.pixelColor(at(500, 58 + 18 + 2)), style::kCanvas);
    QCOMPARE(w.frame_at(QPointF(500, 80)), -1);
    const QString tip = w.tooltip_for(*core.find({"server", "handler"}));
    QVERIFY2(tip.contains(QStringLiteral("server ▸ handler")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("run time 1.00 µs")), qPrintable(tip));
    QVERIFY2(tip.contains(QStringLiteral("24% of the run time in the range")), qPrintable(tip));
  }

  void flameGraphClickZoomsAndGoesBack() {
    FlameGraphWidget w;
    w.resize(820, 200);
    w.set_data(data_);
    w.set_range(0, 10000);
    w.show();
    const std::int32_t server = *w.graph().find({"server"});
    const std::int32_t handler = *w.graph().find({"server", "handler"});
    QSignalSpy labels(&w, &FlameGraphWidget::label_activated);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, w.frame_rect(server).center().toPoint());
    QCOMPARE(w.focus(), server);
    QCOMPARE(labels.count(), 1);
    QCOMPARE(labels.last().at(0).toString(), QStringLiteral("server"));
    QVERIFY(w.header_text().contains(QStringLiteral("zoomed into server")));
    // "server" spans the width; its children share it: db 600 / 2800, handler 1000 / 2800.
    QCOMPARE(w.frame_rect(server), QRectF(0, 58, 820, 18));
    const QRectF db = w.frame_rect(*w.graph().find({"server", "db"}));
    QVERIFY(std::fabs(db.width() - 820.0 * 600 / 2800) < 1e-9);
    QVERIFY(std::fabs(w.frame_rect(handler).x() - db.width()) < 1e-9);
    QVERIFY(w.frame_rect(*w.graph().find({"timer"})).isEmpty());  // outside the zoom
    const QImage image = w.grab().toImage();
    QCOMPARE(image.pixelColor(at(w.frame_rect(handler).x() + 1, 77)), FlameGraphWidget::frame_colour("handler"));
    QVERIFY(w.tooltip_for(handler).contains(QStringLiteral("36% of server")));

    // Zoom on into handler, then back twice.
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, w.frame_rect(handler).center().toPoint());
    QCOMPARE(w.focus(), handler);
    QTest::keyClick(&w, Qt::Key_Backspace);
    QCOMPARE(w.focus(), server);
    QTest::mouseClick(&w, Qt::RightButton, Qt::NoModifier, QPoint(400, 150));
    QCOMPARE(w.focus(), 0);
    // A click on an ancestor (the root, above the focus) zooms out to it.
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, w.frame_rect(handler).center().toPoint());
    QCOMPARE(w.focus(), handler);
    QTest::mouseClick(&w, Qt::LeftButton, Qt::NoModifier, QPoint(700, 40 + 9));
    QCOMPARE(w.focus(), 0);

    // A new range keeps a zoom whose frame ran in it, and drops one that did not.
    w.zoom_to(*w.graph().find({"server"}));
    w.set_range(2200, 6100);
    QCOMPARE(w.graph().total(), TimeNs(1500));
    QCOMPARE(w.graph().frames[static_cast<std::size_t>(w.focus())].name, std::string("server"));
    w.set_range(8000, 9000);
    QCOMPARE(w.focus(), 0);
    QCOMPARE(w.graph().frames.size(), std::size_t(2));  // all, timer
  }
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  InspectionOverviewWidgetsTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "inspection_overview_widgets_test.moc"
