// filtered_view_test.cpp — the declutter filter off the UI thread
// (viewer/app/filtered_view.hpp), under QTest (offscreen), on a hand-built
// trace imported for real. Alone:
//   - an empty filter needs no job: the trace itself, view_ready() at once;
//   - two quick requests: nothing arrives before the event loop runs, the
//     view of before is kept meanwhile, and only the last one is applied;
//     a request back to the empty filter wins over a job still running;
//   - when_idle() waits for the job in flight (a new trace's simplify-binds
//     plan is one), runs at once with none;
//   - a new trace keeps simplify binds and drops the folds and the bound.
// In the window (Inspection on MainWindow):
//   - after a toggle the timeline keeps the previous picture (its data, its
//     selection, its bands, in pixels) until the view arrives; then the
//     chosen thread and the highlights are applied to the new view, by id;
//   - two quick toggles: the timeline never shows the first one's view;
//   - an empty filter shows the loaded trace itself, with no job.
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

#include "tests/viewer/app/highlight_band.hpp"
#include "tests/viewer/inspection_traces.hpp"
#include "tests/viewer/pixel_count.hpp"
#include "recorder/store/trace_import.hpp"
#include "viewer/app/filtered_view.hpp"
#include "viewer/app/inspection.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/timeline_selection.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/render/timeline_style.hpp"

using namespace skein;

namespace {

const char* const kTrace = test::kInspectionTrace;

const std::vector<ThreadId> kAll{0, 1, 2, 3, 4, 5};
const std::vector<ThreadId> kSimplified{0, 1, 3, 4, 5};         // 2, the bind reading only 1
const std::vector<ThreadId> kSimplifiedFolded{0, 1, 3, 5};      // and 4 drawn as 3
const std::vector<ThreadId> kFolded{0, 1, 2, 3, 5};

std::vector<ThreadId> ids(const TimelineData& d) {
  std::vector<ThreadId> out;
  for (const TimelineThread& t : d.threads) out.push_back(t.id);
  return out;
}

int count_colour(const QImage& image, const QRect& area, const QColor& colour, int tolerance = 30) {
  return test::count_colour(image, area, colour, tolerance);
}

}  // namespace

class FilteredViewTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString db_;
  std::shared_ptr<const TimelineData> full_;
  std::unique_ptr<MainWindow> window_;
  Inspection* inspection_ = nullptr;
  TimelineWidget* timeline_ = nullptr;

  [[nodiscard]] QRect band(std::uint32_t thread, double from, double to) const {
    return test::highlight_band(*timeline_, thread, from, to);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
    const QString trace = dir_.filePath(QStringLiteral("filter.sexp"));
    std::ofstream(trace.toStdString()) << kTrace;
    db_ = dir_.filePath(QStringLiteral("filter.db"));
    ImportOptions options;
    options.sync = false;
    QVERIFY(import_trace(trace.toStdString(), db_.toStdString(), options).ok());
    auto store = TraceStore::open(db_.toStdString());
    QVERIFY(store.ok());
    auto loaded = load_timeline(store.value(), TimelineLoadOptions{false});
    QVERIFY(loaded.ok());
    full_ = std::make_shared<const TimelineData>(std::move(loaded).value());

    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    QSignalSpy settled(window_->inspection(), &Inspection::findings_settled);
    window_->open(db_);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(settled.count() == 1 || settled.wait(20000));
    inspection_ = window_->inspection();
    timeline_ = window_->timeline();
  }

  void init() {
    // The window's tests start from the whole trace, unfiltered and
    // unmarked, its lints done (their findings refilter a filtered view).
    QSignalSpy applied(inspection_, &Inspection::filter_applied);
    QSignalSpy settled(inspection_, &Inspection::findings_settled);
    inspection_->set_simplify_binds(false);
    inspection_->set_data(inspection_->full_data());
    QVERIFY(applied.count() >= 1);
    QVERIFY(settled.count() == 1 || settled.wait(20000));
    QVERIFY(inspection_->filter().empty());
    timeline_->set_folding(RowFolding::none);
    timeline_->show_window(0, 900000);
  }

  void an_empty_filter_needs_no_job() {
    FilteredView view;
    view.set_data(full_);
    QVERIFY(!view.pending());
    QVERIFY(!view.filtered());
    QSignalSpy ready(&view, &FilteredView::view_ready);
    view.set_filter(TimelineFilter{});
    QCOMPARE(ready.count(), 1);  // at once
    QVERIFY(!view.filtered());
    QVERIFY(!view.pending());
  }

  void the_last_filter_asked_for_wins() {
    FilteredView view;
    view.set_data(full_);
    QSignalSpy ready(&view, &FilteredView::view_ready);
    view.set_filter(TimelineFilter{true, {}, 0});
    view.set_filter(TimelineFilter{true, {3}, 0});
    // Nothing arrives before the event loop runs: the view of before stays.
    QCOMPARE(ready.count(), 0);
    QVERIFY(view.pending());
    QVERIFY(!view.filtered());
    QVERIFY(ready.wait(10000));
    QTest::qWait(200);  // room for a stale result to arrive, were it not dropped
    QCOMPARE(ready.count(), 1);
    QVERIFY(!view.pending());
    QVERIFY(view.filtered());
    QCOMPARE(ids(view.filtered()->data), kSimplifiedFolded);

    // Back to the empty filter while a fold is being filtered: the empty
    // one, at once, and the fold's result never replaces it.
    ready.clear();
    view.set_filter(TimelineFilter{false, {3}, 0});
    view.set_filter(TimelineFilter{});
    QCOMPARE(ready.count(), 1);
    QVERIFY(!view.filtered());
    QTest::qWait(300);
    QCOMPARE(ready.count(), 1);
    QVERIFY(!view.filtered());
    QVERIFY(!view.pending());
  }

  void when_idle_waits_for_the_job_in_flight() {
    FilteredView view;
    view.set_data(full_);
    int ran = 0;
    // The trace's simplify-binds plan is a job that reads it: waited for.
    view.when_idle([&] { ++ran; });
    QCOMPARE(ran, 0);
    QTRY_COMPARE(ran, 1);
    view.when_idle([&] { ++ran; });
    QCOMPARE(ran, 2);  // no job: at once
    QSignalSpy ready(&view, &FilteredView::view_ready);
    view.set_filter(TimelineFilter{true, {}, 0});
    bool saw_view = false;
    view.when_idle([&] {
      ++ran;
      saw_view = view.filtered() != nullptr;
    });
    QCOMPARE(ran, 2);
    QVERIFY(ready.wait(10000));
    QTRY_COMPARE(ran, 3);
    QVERIFY(saw_view);  // after the job's result was applied
  }

  void a_new_trace_keeps_simplify_binds_only() {
    FilteredView view;
    view.set_data(full_);
    QSignalSpy ready(&view, &FilteredView::view_ready);
    view.set_filter(TimelineFilter{true, {3}, 100});
    QVERIFY(ready.wait(10000));
    ready.clear();
    view.set_data(full_);
    QVERIFY(view.filter().simplify_binds);
    QVERIFY(view.filter().folded.empty());
    QCOMPARE(view.filter().min_duration, TimeNs(0));
    QVERIFY(!view.filtered());  // the trace as loaded, until its view arrives
    QVERIFY(view.pending());
    QVERIFY(ready.wait(10000));
    QCOMPARE(ids(view.filtered()->data), kSimplified);
  }

  void the_timeline_keeps_the_previous_picture_until_the_view_arrives() {
    inspection_->go_to_thread(4);
    inspection_->selection()->set_threads(MarkLayer::search, {4});
    timeline_->show_window(0, 900000);
    const std::uint32_t worker = *inspection_->shown_index(4);
    const std::uint32_t handler = *inspection_->shown_index(3);
    QImage image = timeline_->grab().toImage();
    QVERIFY(count_colour(image, band(worker, 60000, 380000), style::kHighlight) > 1000);
    QCOMPARE(count_colour(image, band(handler, 60000, 380000), style::kHighlight), 0);

    QSignalSpy applied(inspection_, &Inspection::filter_applied);
    inspection_->toggle_fold(3);
    // Computing: the loaded trace still shown, 4 selected and banded on its row.
    QCOMPARE(applied.count(), 0);
    QCOMPARE(timeline_->data(), inspection_->full());
    QCOMPARE(ids(*timeline_->data()), kAll);
    QCOMPARE(timeline_->view().selected, std::optional<std::uint32_t>(worker));
    QCOMPARE(timeline_->view().highlighted, std::vector<std::uint32_t>{worker});
    image = timeline_->grab().toImage();
    QVERIFY(count_colour(image, band(worker, 60000, 380000), style::kHighlight) > 1000);

    QVERIFY(applied.wait(10000));
    QVERIFY(inspection_->filtered());
    QCOMPARE(timeline_->data(), &inspection_->filtered()->data);
    QCOMPARE(ids(*timeline_->data()), kFolded);
    // The chosen thread and its band, on its stand-in.
    const std::uint32_t stand_in = *timeline_->data()->thread_index(3);
    QCOMPARE(inspection_->shown_index(4), std::optional<std::uint32_t>(stand_in));
    QCOMPARE(inspection_->selected_id(), std::optional<ThreadId>(4));
    QCOMPARE(timeline_->view().selected, std::optional<std::uint32_t>(stand_in));
    QCOMPARE(timeline_->view().highlighted, std::vector<std::uint32_t>{stand_in});
    image = timeline_->grab().toImage();
    QVERIFY(count_colour(image, band(stand_in, 60000, 380000), style::kHighlight) > 1000);

    // Unfolded: no job, 4 itself again.
    applied.clear();
    inspection_->toggle_fold(3);
    QCOMPARE(applied.count(), 1);
    QCOMPARE(timeline_->data(), inspection_->full());
    QVERIFY(!inspection_->filtered());
    QCOMPARE(timeline_->view().selected, std::optional<std::uint32_t>(worker));
    QCOMPARE(timeline_->view().highlighted, std::vector<std::uint32_t>{worker});
  }

  void two_quick_toggles_show_only_the_last_view() {
    std::vector<std::vector<ThreadId>> seen;
    const QMetaObject::Connection watch =
        connect(timeline_, &TimelineWidget::view_changed, this, [&] { seen.push_back(ids(*timeline_->data())); });
    QSignalSpy applied(inspection_, &Inspection::filter_applied);
    inspection_->set_simplify_binds(true);
    inspection_->toggle_fold(3);
    QCOMPARE(applied.count(), 0);
    QCOMPARE(ids(*timeline_->data()), kAll);
    QVERIFY(applied.wait(10000));
    QTest::qWait(200);
    disconnect(watch);
    QCOMPARE(applied.count(), 1);
    QCOMPARE(ids(*timeline_->data()), kSimplifiedFolded);
    QCOMPARE(inspection_->filter().simplify_binds, true);
    QCOMPARE(inspection_->filter().folded, std::vector<ThreadId>{3});
    QVERIFY(!seen.empty());
    for (const auto& view : seen) QVERIFY(view != kSimplified);  // the first toggle's view, never shown

    // Both off again: the fold first (a job), then simplify (none).
    applied.clear();
    inspection_->toggle_fold(3);
    inspection_->set_simplify_binds(false);
    QCOMPARE(applied.count(), 1);
    QCOMPARE(timeline_->data(), inspection_->full());
    QTest::qWait(200);
    QCOMPARE(applied.count(), 1);
    QCOMPARE(timeline_->data(), inspection_->full());
  }
};

QTEST_MAIN(FilteredViewTest)
#include "filtered_view_test.moc"
