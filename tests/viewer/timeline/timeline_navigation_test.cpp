// timeline_navigation_test.cpp — moving around skein-view's timeline under
// QTest on the offscreen platform, on a hand-built trace of 63 threads
// imported for real. Every expected window is computed from the spec of
// the move (timeline_widget.hpp, timeline_navigation.hpp) and checked at
// both edges of the canvas, t_of(0) and t_of(width):
//   - ← / → pan an eighth of the window, a half with Shift; + / − / = and
//     the keypad zoom by kKeyZoom around the centre, or the pointer;
//   - Ctrl+wheel zooms like the wheel; Shift+wheel scrolls rows;
//   - Home fits the trace and keeps the row scroll; End keeps the zoom;
//   - Backspace and Alt+← go back exactly, Alt+→ forward; wheel ticks in a
//     row are one step back; zooming out stops at the trace, panning too;
//   - the scroll bar follows row_offset, folding and keys, and moving it
//     scrolls the rows;
//   - reveal_thread brings a thread far off-screen (in time and rows) into
//     view, selects it and keeps its row shown;
//   - a 150-character label is elided on screen, whole in the tooltip;
//   - the main window's notice bar for a trace with no (end) and one with
//     lost records; View ▸ Reload (F5) keeps the window and the selection.
#include <QApplication>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStyleOptionSlider>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <sstream>

#include "recorder/store/trace_import.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/trace_notice_bar.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/render/timeline_painter.hpp"
#include "viewer/render/timeline_style.hpp"

using namespace skein;

namespace {

constexpr int kWidth = 1000;
constexpr int kHeight = 600;
constexpr ThreadId kNeedle = 61;
constexpr ThreadId kLong = 62;

const std::string& long_label() {
  static const std::string label = [] {
    std::string s;
    while (s.size() < 150) s += "handle_incoming_request_from_the_network_stack_";
    return s.substr(0, 150);
  }();
  return label;
}

// Workers 1..60 are created 1 µs apart, run 100 ns and wait until after
// 1 ms: 60 rows at once. 62 carries a 150-character label from 100 to 800
// µs; 61 "needle" lives 300 ns at 900 µs. The trace ends at 1.1 ms.
std::string navigation_trace(bool ended = true) {
  std::ostringstream t;
  t << "(skein-trace 1 (process \"navigation\"))\n";
  for (int i = 1; i <= 60; ++i)
    t << "(spawn " << i * 1000 << " " << i << " 0 task)\n(switch " << i * 1000 << " " << i << ")\n(switch "
      << i * 1000 + 100 << " -1)\n";
  t << "(spawn 100000 62 0 task)\n(label 100000 62 \"" << long_label() << "\")\n";
  t << "(resolve 800000 62 -1 ok)\n";
  t << "(spawn 900000 61 0 task)\n(label 900000 61 \"needle\")\n(resolve 900300 61 -1 ok)\n";
  for (int i = 1; i <= 60; ++i) t << "(resolve " << 1'000'000 + i * 10 << " " << i << " -1 ok)\n";
  if (ended) t << "(end 1100000)\n";
  else t << "(switch 1100000 -1)\n";
  return t.str();
}

bool close_to(QColor a, QColor b, int tolerance = 12) {
  return std::abs(a.red() - b.red()) <= tolerance && std::abs(a.green() - b.green()) <= tolerance &&
         std::abs(a.blue() - b.blue()) <= tolerance;
}

// Wheel events as a mouse sends them: `notches` of 120 (1/8 degree units).
void wheel(QWidget& w, QPointF at, int angle, Qt::KeyboardModifiers modifiers) {
  QWheelEvent e(at, w.mapToGlobal(at), QPoint(), QPoint(0, angle), Qt::NoButton, modifiers, Qt::NoScrollPhase, false);
  QApplication::sendEvent(&w, &e);
}

}  // namespace

class TimelineNavigationTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  std::shared_ptr<const TimelineData> data_;

  std::uint32_t index(ThreadId id) const { return *data_->thread_index(id); }
  static double t0(const TimelineWidget& w) { return w.view().mapping.t_of(0); }
  static double t1(const TimelineWidget& w) { return w.view().mapping.t_of(w.width()); }
  // The window's edges, to a millionth of its span.
  static bool window_is(const TimelineWidget& w, double from, double to) {
    const double tolerance = 1e-6 * (to - from);
    return std::fabs(t0(w) - from) <= tolerance && std::fabs(t1(w) - to) <= tolerance;
  }
  static QByteArray window_text(const TimelineWidget& w) {
    return QByteArray::number(t0(w), 'f', 3) + " .. " + QByteArray::number(t1(w), 'f', 3);
  }

  std::shared_ptr<const TimelineData> load(const std::string& name, const std::string& trace) {
    const QString path = dir_.filePath(QString::fromStdString(name + ".sexp"));
    std::ofstream(path.toStdString()) << trace;
    const std::string db = dir_.filePath(QString::fromStdString(name + ".db")).toStdString();
    ImportOptions options;
    options.sync = false;
    if (!import_trace(path.toStdString(), db, options).ok()) return nullptr;
    auto store = TraceStore::open(db);
    if (!store.ok()) return nullptr;
    auto loaded = load_timeline(store.value());
    if (!loaded.ok()) return nullptr;
    return std::make_shared<const TimelineData>(std::move(loaded).value());
  }

  // A shown widget on the navigation trace, showing [from, to]; every row
  // shown unless `folding` says otherwise, so that row scrolling does not
  // depend on the window.
  void show(TimelineWidget& w, double from, double to, RowFolding folding = RowFolding::none) {
    w.resize(kWidth, kHeight);
    w.set_data(data_);
    w.set_folding(folding);
    w.show();
    w.show_window(from, to);
  }

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    data_ = load("navigation", navigation_trace());
    QVERIFY(data_);
    QCOMPARE(data_->threads.size(), std::size_t(63));  // 0 (implicit), 1..62
  }

  void arrowsPanAnEighthOrWithShiftAHalf() {
    TimelineWidget w;
    show(w, 200000, 300000);
    QVERIFY2(window_is(w, 200000, 300000), window_text(w));
    QTest::keyClick(&w, Qt::Key_Right);
    QVERIFY2(window_is(w, 212500, 312500), window_text(w));
    QTest::keyClick(&w, Qt::Key_Left);
    QVERIFY2(window_is(w, 200000, 300000), window_text(w));
    QTest::keyClick(&w, Qt::Key_Right, Qt::ShiftModifier);
    QVERIFY2(window_is(w, 250000, 350000), window_text(w));
    QTest::keyClick(&w, Qt::Key_Left, Qt::ShiftModifier);
    QTest::keyClick(&w, Qt::Key_Left, Qt::ShiftModifier);
    QVERIFY2(window_is(w, 150000, 250000), window_text(w));
    // The row keys still scroll rows.
    QTest::keyClick(&w, Qt::Key_Down);
    QCOMPARE(w.view().row_offset, 1.0);
    QTest::keyClick(&w, Qt::Key_Up);
    QCOMPARE(w.view().row_offset, 0.0);
  }

  void plusAndMinusZoomAroundTheCentreOrThePointer() {
    TimelineWidget w;
    show(w, 200000, 300000);
    // Around the centre (250 µs): 100 µs / 1.6 = 62.5 µs.
    QTest::keyClick(&w, Qt::Key_Plus);
    QVERIFY2(window_is(w, 218750, 281250), window_text(w));
    QTest::keyClick(&w, Qt::Key_Minus);
    QVERIFY2(window_is(w, 200000, 300000), window_text(w));
    QTest::keyClick(&w, Qt::Key_Equal);
    QVERIFY2(window_is(w, 218750, 281250), window_text(w));
    QTest::keyClick(&w, Qt::Key_Minus, Qt::KeypadModifier);
    QVERIFY2(window_is(w, 200000, 300000), window_text(w));
    QTest::keyClick(&w, Qt::Key_Plus, Qt::KeypadModifier);
    QVERIFY2(window_is(w, 218750, 281250), window_text(w));
    QTest::keyClick(&w, Qt::Key_Minus);
    // Over the canvas, around the pointer: x = 200 is 220 µs and stays it.
    QTest::mouseMove(&w, QPoint(200, 300));
    QTest::keyClick(&w, Qt::Key_Plus);
    QVERIFY2(window_is(w, 220000 - 20000 / 1.6, 220000 + 80000 / 1.6), window_text(w));
  }

  void ctrlWheelZoomsShiftWheelScrollsRows() {
    TimelineWidget w;
    show(w, 200000, 300000);
    const QPointF at(337, 200);
    const double under = w.view().mapping.t_of(at.x());  // 233.7 µs
    wheel(w, at, 120, Qt::ControlModifier);
    const double span = 100000 / std::pow(TimelineWidget::kWheelStep, 120);
    QVERIFY2(window_is(w, under - 0.337 * span, under + 0.663 * span), window_text(w));
    // Shift+wheel: three rows down a notch back, up a notch forward; the
    // window stays.
    wheel(w, at, -120, Qt::ShiftModifier);
    QCOMPARE(w.view().row_offset, TimelineWidget::kWheelRows);
    QVERIFY2(window_is(w, under - 0.337 * span, under + 0.663 * span), window_text(w));
    wheel(w, at, 120, Qt::ShiftModifier);
    QCOMPARE(w.view().row_offset, 0.0);
    // The plain wheel still zooms.
    wheel(w, at, -120, Qt::NoModifier);
    QVERIFY2(window_is(w, 200000, 300000), window_text(w));
  }

  void homeFitsAndKeepsTheRowsEndKeepsTheZoom() {
    TimelineWidget w;
    w.resize(kWidth, kHeight);
    w.set_data(data_);
    w.set_folding(RowFolding::none);
    w.show();
    const TimeWindow fitted = fitted_window(data_->first_time, data_->end_time);
    QVERIFY2(window_is(w, fitted.from, fitted.to), window_text(w));
    QTest::keyClick(&w, Qt::Key_Down);
    QTest::keyClick(&w, Qt::Key_Down);
    const std::int32_t top_row = *w.view().row_of_slot(2);
    QTest::keyClick(&w, Qt::Key_Plus);
    QTest::keyClick(&w, Qt::Key_Home);
    QVERIFY2(window_is(w, fitted.from, fitted.to), window_text(w));
    QCOMPARE(w.view().row_offset, 2.0);
    QCOMPARE(*w.view().row_of_slot(2), top_row);
    // End: the same 100 µs, the trace's end a 1%-of-1.02 margin from the right.
    w.show_window(200000, 300000);
    QTest::keyClick(&w, Qt::Key_End);
    const double end = double(data_->end_time) + 100000 * kFitMargin / (1 + 2 * kFitMargin);
    QVERIFY2(window_is(w, end - 100000, end), window_text(w));
  }

  void backAndForwardRestoreWindowsExactly() {
    TimelineWidget w;
    w.resize(kWidth, kHeight);
    w.set_data(data_);
    w.show();
    const TimeMapping fit = w.view().mapping;
    w.show_window(200000, 300000);
    const TimeMapping range = w.view().mapping;
    QTest::keyClick(&w, Qt::Key_Right);
    const TimeMapping panned_window = w.view().mapping;
    QVERIFY(!(panned_window == range));
    QTest::keyClick(&w, Qt::Key_Backspace);
    QVERIFY2(w.view().mapping == range, window_text(w));
    QTest::keyClick(&w, Qt::Key_Left, Qt::AltModifier);
    QVERIFY2(w.view().mapping == fit, window_text(w));
    QTest::keyClick(&w, Qt::Key_Left, Qt::AltModifier);  // nothing further back
    QVERIFY(w.view().mapping == fit);
    QTest::keyClick(&w, Qt::Key_Right, Qt::AltModifier);
    QVERIFY2(w.view().mapping == range, window_text(w));
    QTest::keyClick(&w, Qt::Key_Right, Qt::AltModifier);
    QVERIFY2(w.view().mapping == panned_window, window_text(w));
    // Three wheel ticks in a row are one step back.
    const TimeMapping before_ticks = w.view().mapping;
    for (int i = 0; i < 3; ++i) wheel(w, QPointF(400, 200), 120, Qt::ControlModifier);
    QVERIFY(w.view().mapping.ns_per_px < before_ticks.ns_per_px);
    QTest::keyClick(&w, Qt::Key_Backspace);
    QVERIFY2(w.view().mapping == before_ticks, window_text(w));
    // A held key too (auto-repeat), and a drag is one step.
    const TimeMapping before_keys = w.view().mapping;
    QTest::keyClick(&w, Qt::Key_Right);
    QTest::keyClick(&w, Qt::Key_Right);
    QTest::keyClick(&w, Qt::Key_Right);
    QTest::keyClick(&w, Qt::Key_Backspace);
    QVERIFY2(w.view().mapping == before_keys, window_text(w));
    QTest::mousePress(&w, Qt::LeftButton, Qt::NoModifier, QPoint(300, 300));
    for (int x : {320, 360, 400}) {
      QMouseEvent move(QEvent::MouseMove, QPointF(x, 300), w.mapToGlobal(QPointF(x, 300)), Qt::NoButton,
                       Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(&w, &move);
    }
    QTest::mouseRelease(&w, Qt::LeftButton, Qt::NoModifier, QPoint(400, 300));
    QVERIFY(!(w.view().mapping == before_keys));
    QTest::keyClick(&w, Qt::Key_Backspace);
    QVERIFY2(w.view().mapping == before_keys, window_text(w));
  }

  void zoomingOutAndPanningStopAtTheTrace() {
    TimelineWidget w;
    show(w, 200000, 300000);
    const TimeWindow fitted = fitted_window(data_->first_time, data_->end_time);
    for (int i = 0; i < 12; ++i) QTest::keyClick(&w, Qt::Key_Minus);
    QVERIFY2(std::fabs((t1(w) - t0(w)) - fitted.span()) < 1e-6 * fitted.span(), window_text(w));
    wheel(w, QPointF(100, 200), -2400, Qt::NoModifier);
    QVERIFY2(std::fabs((t1(w) - t0(w)) - fitted.span()) < 1e-6 * fitted.span(), window_text(w));
    // Panning far: at most half the window leaves the fitted window.
    w.show_window(200000, 300000);
    for (int i = 0; i < 40; ++i) QTest::keyClick(&w, Qt::Key_Right, Qt::ShiftModifier);
    QVERIFY2(window_is(w, fitted.to - 50000, fitted.to + 50000), window_text(w));
    for (int i = 0; i < 60; ++i) QTest::keyClick(&w, Qt::Key_Left, Qt::ShiftModifier);
    QVERIFY2(window_is(w, fitted.from - 50000, fitted.from + 50000), window_text(w));
  }

  void theScrollBarFollowsTheRowsAndScrollsThem() {
    TimelineWidget w;
    w.resize(kWidth, kHeight);
    w.set_data(data_);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QScrollBar* bar = w.row_scroll_bar();
    const int row_px = TimelineGeometry::kRowHeight;
    QVERIFY(bar->isVisible());
    QCOMPARE(bar->minimum(), 0);
    QCOMPARE(bar->maximum(), (w.view().slot_count() - 1) * row_px);
    QCOMPARE(bar->value(), 0);
    // Keys and the wheel move it.
    QTest::keyClick(&w, Qt::Key_Down);
    QTest::keyClick(&w, Qt::Key_Down);
    QTest::keyClick(&w, Qt::Key_Down);
    QCOMPARE(bar->value(), 3 * row_px);
    QTest::keyClick(&w, Qt::Key_PageDown);
    QCOMPARE(bar->value(), int(std::lround(w.view().row_offset * row_px)));
    QVERIFY(w.view().row_offset > 3);
    // Dragging it scrolls the rows.
    bar->setSliderDown(true);
    bar->setSliderPosition(10 * row_px);
    bar->setSliderDown(false);
    QCOMPARE(w.view().row_offset, 10.0);
    // With the mouse on its handle: down by 100 px moves the rows down.
    QStyleOptionSlider option;
    option.initFrom(bar);
    option.orientation = Qt::Vertical;
    option.minimum = bar->minimum();
    option.maximum = bar->maximum();
    option.sliderPosition = bar->sliderPosition();
    option.sliderValue = bar->value();
    option.pageStep = bar->pageStep();
    option.singleStep = bar->singleStep();
    const QRect handle = bar->style()->subControlRect(QStyle::CC_ScrollBar, &option, QStyle::SC_ScrollBarSlider, bar);
    QVERIFY(handle.isValid());
    QTest::mousePress(bar, Qt::LeftButton, Qt::NoModifier, handle.center());
    QMouseEvent move(QEvent::MouseMove, QPointF(handle.center() + QPoint(0, 100)),
                     bar->mapToGlobal(QPointF(handle.center() + QPoint(0, 100))), Qt::NoButton, Qt::LeftButton,
                     Qt::NoModifier);
    QApplication::sendEvent(bar, &move);
    QTest::mouseRelease(bar, Qt::LeftButton, Qt::NoModifier, handle.center() + QPoint(0, 100));
    QVERIFY2(w.view().row_offset > 10.5, QByteArray::number(w.view().row_offset));
    QCOMPARE(bar->value(), int(std::lround(w.view().row_offset * row_px)));
    // Folding changes its range: a window where only a few rows have
    // anything alive; all rows shown again gives the full range.
    w.show_window(1050000, 1100000);
    QCOMPARE(bar->maximum(), std::max(0, w.view().slot_count() - 1) * row_px);
    w.set_folding(RowFolding::none);
    QCOMPARE(bar->maximum(), (int(data_->rows.size()) - 1) * row_px);
    QCOMPARE(bar->value(), int(std::lround(w.view().row_offset * row_px)));
  }

  void revealThreadBringsAnOffScreenThreadIntoViewAndKeepsIt() {
    TimelineWidget w;
    show(w, 0, 100000, RowFolding::quiet);
    QSignalSpy selected(&w, &TimelineWidget::selection_changed);
    const std::uint32_t needle = index(kNeedle);
    const TimelineThread& t = data_->threads[needle];
    QCOMPARE(t.start, TimeNs(900000));
    // Off-screen in time, and its row is below the shown rows.
    const TimelineGeometry g = w.geometry_now();
    QVERIFY(double(t.start) > t1(w));
    QVERIFY(!w.view().slot_of(t.row) || *w.view().slot_of(t.row) >= g.visible_rows());
    const TimeMapping before = w.view().mapping;
    w.reveal_thread(needle);
    QCOMPARE(w.view().selected, std::optional<std::uint32_t>(needle));
    QCOMPARE(selected.count(), 1);
    // 300 ns in a 100 µs window is too thin: zoomed to the 1 µs floor,
    // centred on it, so that it fills 30% of the width.
    QVERIFY2(window_is(w, 900150 - 500, 900150 + 500), window_text(w));
    const auto slot = w.view().slot_of(t.row);
    QVERIFY(slot);
    QVERIFY(*slot >= w.view().row_offset && *slot + 1 <= w.view().row_offset + g.visible_rows());
    // Its row stays shown in a window where nothing of it is alive.
    w.show_window(1050000, 1100000);
    QVERIFY(w.view().slot_of(t.row));
    // One step back returns to where the search started.
    QTest::keyClick(&w, Qt::Key_Backspace);
    QTest::keyClick(&w, Qt::Key_Backspace);
    QVERIFY2(w.view().mapping == before, window_text(w));
    // A thread that is in view and wide enough: nothing moves.
    const std::uint32_t worker = index(30);
    w.show_window(0, 1100000);
    const TimeMapping whole = w.view().mapping;
    w.reveal_thread(worker);
    QVERIFY(w.view().mapping == whole);
    QCOMPARE(w.view().selected, std::optional<std::uint32_t>(worker));
    // One longer than the window: zoomed out to it, with a margin.
    w.show_window(400000, 420000);
    const TimelineThread& lengthy = data_->threads[index(kLong)];
    w.reveal_thread(index(kLong));
    const double d = double(lengthy.end - lengthy.start);
    QVERIFY2(window_is(w, double(lengthy.start) - kRevealMargin * d, double(lengthy.end) + kRevealMargin * d),
             window_text(w));
  }

  void longLabelsAreElidedAndWholeInTheTooltip() {
    const std::uint32_t i = index(kLong);
    const TimelineThread& t = data_->threads[i];
    QCOMPARE(data_->text(t.label), long_label());
    // The painter's text: the label cut with an ellipsis, the id whole.
    const QFontMetricsF metrics(timeline_label_font());
    const QString shown = elided_thread_label(metrics, long_label(), t.id, 300);
    QVERIFY2(shown.endsWith(QStringLiteral("…  #62")), qPrintable(shown));
    QVERIFY(metrics.horizontalAdvance(shown) <= 300);
    QVERIFY(shown.startsWith(QStringLiteral("handle_incoming")));
    QCOMPARE(elided_thread_label(metrics, "short", 7, 300), QStringLiteral("short  #7"));
    QCOMPARE(elided_thread_label(metrics, "", 7, 300), QStringLiteral("#7"));

    // On screen: the thread is 700 µs of a 1.1 ms window, the label far
    // longer; no label ink right of the thread's end.
    TimelineWidget w;
    w.resize(kWidth, kHeight);
    w.set_data(data_);
    w.set_folding(RowFolding::none);
    w.show();
    QVERIFY(w.scroll_to_row(t.row));
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QImage image = w.grab().toImage();
    const TimelineGeometry g = w.geometry_now();
    const double y = g.line_y(*w.view().slot_of(t.row), w.view().row_offset);
    const double x0 = w.view().mapping.x_of(double(t.start)), x1 = w.view().mapping.x_of(double(t.end));
    QVERIFY(x1 - x0 < 700 && x1 < kWidth - 100);
    const auto label_ink = [&](int from_x, int to_x) {
      int ink = 0;
      for (int x = from_x; x < to_x; ++x)
        for (int dy = 8; dy <= 20; ++dy)
          if (close_to(image.pixelColor(x, int(y) - dy), style::kLabel, 40)) ++ink;
      return ink;
    };
    QVERIFY(label_ink(int(x0) + 4, int(x1) - 4) > 200);   // the label is drawn
    QCOMPARE(label_ink(int(x1) + 2, kWidth - 20), 0);     // and stops at the thread's end
    // The tooltip over the thread has the whole label.
    const QString tip = w.tooltip_at(QPointF((x0 + x1) / 2, y));
    QVERIFY2(tip.contains(QString::fromStdString(long_label())), qPrintable(tip));
  }

  void theNoticeBarSaysWhatIsMissing() {
    qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("xdg")).toUtf8());
    const auto write = [&](const QString& name, const std::string& text) {
      const QString path = dir_.filePath(name);
      std::ofstream(path.toStdString()) << text;
      return path;
    };
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QSignalSpy notices(&window, &MainWindow::notice_ready);
    window.open(write(QStringLiteral("cut.sexp"), navigation_trace(false)));
    QVERIFY(notices.wait(20000));
    const QString cut = QStringLiteral(
        "This trace has no end record: it was cut short (the program was stopped, crashed or is still running), "
        "so threads pending at its end may still have been waiting.");
    QCOMPARE(notices.last().at(0).toString(), cut);
    QCOMPARE(window.trace_notice()->notice(), cut);
    QVERIFY(window.trace_notice()->isVisible());
    // Above the timeline.
    QVERIFY(window.trace_notice()->mapTo(&window, QPoint(0, 0)).y() <
            window.timeline()->mapTo(&window, QPoint(0, 0)).y());

    window.open(write(QStringLiteral("lost.sexp"), "(skein-trace 1)\n(spawn 0 1 0 task)\n(lost 5 1234)\n(end 10)\n"));
    QVERIFY(notices.wait(20000));
    QCOMPARE(window.trace_notice()->notice(),
             QStringLiteral("The recorder dropped 1,234 records: causes and effects around the gaps may be missing."));
    QVERIFY(window.trace_notice()->isVisible());

    window.open(write(QStringLiteral("clean.sexp"), "(skein-trace 1)\n(spawn 0 1 0 task)\n(end 10)\n"));
    QVERIFY(notices.wait(20000));
    QVERIFY(window.trace_notice()->notice().isEmpty());
    QVERIFY(!window.trace_notice()->isVisible());
  }

  void reloadKeepsTheWindowAndTheSelection() {
    qputenv("XDG_CACHE_HOME", dir_.filePath(QStringLiteral("xdg-reload")).toUtf8());
    const QString path = dir_.filePath(QStringLiteral("growing.sexp"));
    std::ofstream(path.toStdString()) << navigation_trace();
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QSignalSpy finished(&window, &MainWindow::load_finished);
    window.open(path);
    QVERIFY(finished.wait(20000));
    TimelineWidget* w = window.timeline();
    w->show_window(200000, 300000);
    const double from = t0(*w), to = t1(*w);
    w->select(*w->data()->thread_index(30));
    // The trace changes on disk: one more thread (and another size, so the
    // cache's stamp differs).
    std::string changed = navigation_trace();
    changed.insert(changed.rfind("(end"), "(spawn 1050000 63 0 task)\n");
    std::ofstream(path.toStdString(), std::ios::trunc) << changed;
    // A slow load shows the progress dialog, which takes the activation
    // with it; with no window manager to give it back, give it back here
    // (F5 is a shortcut of the main window).
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_F5);
    QVERIFY(finished.wait(20000));
    QVERIFY(finished.last().at(0).toBool());
    QCOMPARE(w->data()->threads.size(), std::size_t(64));
    QVERIFY2(window_is(*w, from, to), window_text(*w));
    QVERIFY(w->view().selected);
    QCOMPARE(w->data()->threads[*w->view().selected].id, ThreadId(30));
  }
};

int main(int argc, char** argv) {
  // No display is needed: the offscreen platform renders everything.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  // Settings (Open Recent, the docks' layout) go to a test location.
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("Skein test"));
  QCoreApplication::setApplicationName(QStringLiteral("timeline_navigation_test"));
  TimelineNavigationTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "timeline_navigation_test.moc"
