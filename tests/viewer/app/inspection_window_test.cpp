// inspection_window_test.cpp — skein-view's inspection, the docks linked
// with the timeline, under QTest on the offscreen platform, on a hand-built
// trace imported and linted for real:
//   - Why?: the path the panel shows equals causal_path's why() from the
//     same record, and the timeline draws it (pixels of the path colour
//     where the core puts the link) and highlights its threads;
//   - a click on a finding in the Anomalies dock changes the visible range
//     to contain it, selects the thread it is on and names its row;
//   - collapse toggles hide exactly the expected threads, and turning them
//     off gives back every thread;
//   - search: typing finds, Return steps to the next match, which gets
//     selected; matches are highlighted;
//   - summary: selecting a row highlights its threads;
//   - details: a click on a related thread selects it on the timeline;
//   - File ▸ Export View: the SVG holds the visible labels as text, the PNG
//     has the widget's size; Copy Details puts the details on the clipboard;
//   - labels: a thread's many labels, read after the first frame, reach
//     the details and the search.
#include <QApplication>
#include <QClipboard>
#include <QLineEdit>
#include <QDockWidget>
#include <QSettings>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QTableView>
#include <fstream>

#include "tests/viewer/inspection_traces.hpp"
#include "tests/viewer/app/highlight_band.hpp"
#include "tests/viewer/pixel_count.hpp"
#include "recorder/store/trace_import.hpp"
#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/flame_graph_widget.hpp"
#include "viewer/app/overview_strip.hpp"
#include "viewer/app/subsecond_heatmap_widget.hpp"
#include "viewer/app/inspection.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/search_bar.hpp"
#include "viewer/app/summary_dock.hpp"
#include "viewer/app/thread_details_dock.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/models/thread_details_model.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/causal_path.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "recorder/store/events_table.hpp"
#include "viewer/analysis/why_answer.hpp"
#include "viewer/render/timeline_style.hpp"

using namespace skein;

namespace {

const char* const kTrace = test::kInspectionTrace;

int count_colour(const QImage& image, const QRect& area, const QColor& colour, int tolerance = 40) {
  return test::count_colour(image, area, colour, tolerance);
}

}  // namespace

class InspectionWindowTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString db_;
  std::size_t report_size_ = 0;  // the findings stored before the window opens
  std::unique_ptr<MainWindow> window_;
  Inspection* inspection_ = nullptr;
  TimelineWidget* timeline_ = nullptr;

  [[nodiscard]] const TimelineData& full() const { return *inspection_->full(); }
  [[nodiscard]] std::uint32_t shown(ThreadId id) const { return *inspection_->shown_index(id); }
  [[nodiscard]] std::vector<ThreadId> shown_ids() const {
    std::vector<ThreadId> out;
    for (const TimelineThread& t : timeline_->data()->threads) out.push_back(t.id);
    return out;
  }
  [[nodiscard]] std::vector<ThreadId> highlighted_ids() const {
    std::vector<ThreadId> out;
    for (std::uint32_t i : timeline_->view().highlighted) out.push_back(timeline_->data()->threads[i].id);
    std::sort(out.begin(), out.end());
    return out;
  }

 private slots:
  void initTestCase() {
    // Settings (the dock layout, recent files) in the test location, empty.
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
    const QString trace = dir_.filePath(QStringLiteral("inspect.sexp"));
    std::ofstream(trace.toStdString()) << kTrace;
    db_ = dir_.filePath(QStringLiteral("inspect.db"));
    ImportOptions options;
    options.sync = false;
    QVERIFY(import_trace(trace.toStdString(), db_.toStdString(), options).ok());
    {
      auto store = TraceStore::open(db_.toStdString());
      QVERIFY(store.ok());
      LintOptions lint;
      lint.keep_transfers = true;
      auto report = lint_store(store.value(), lint);
      QVERIFY(report.ok());
      QVERIFY(!report.value().findings.empty());
      report_size_ = report.value().findings.size();
      QVERIFY(store_lint_report(*store.value().owner(), report.value()).ok());
    }
    window_ = std::make_unique<MainWindow>();
    window_->resize(1400, 900);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    QSignalSpy settled(window_->inspection(), &Inspection::findings_settled);
    window_->open(db_);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().first().toBool(), true);
    inspection_ = window_->inspection();
    timeline_ = window_->timeline();
    QCOMPARE(full().threads.size(), std::size_t(6));
    // The stored findings come after the first frame, from the analysis
    // worker: none in the loaded timeline, all of them once settled.
    if (settled.count() == 0) QVERIFY(full().anomalies.empty());
    QVERIFY(settled.count() == 1 || settled.wait(20000));
    QCOMPARE(full().anomalies.size(), report_size_);
  }

  void init() {
    // Every test starts from the whole trace, nothing filtered or marked.
    inspection_->set_simplify_binds(false);
    inspection_->set_data(inspection_->full_data());
  }

  void why_answers_the_question_the_time_asks_and_offers_the_other() {
    WhyDock* why = inspection_->why();
    // Thread 2 at 250 µs waits on 1 (it first runs at 310 µs): what ended
    // the wait is its read of 1, which 1 resolved.
    why->set_subject(2, 250000);
    QSignalSpy changed(why, &WhyDock::path_changed);
    why->ask(CausalDirection::why);
    QVERIFY(changed.count() == 1 || changed.wait(10000));
    QVERIFY(why->answer().has_value());
    QCOMPARE(why->answer()->asked, WhyAsk::ended_wait);
    QVERIFY2(why->status_text().startsWith(QStringLiteral("<i>What ended the wait it was in at 250.000 µs:</i>")),
             qPrintable(why->status_text()));
    QVERIFY(!why->model()->steps().empty());
    QCOMPARE(why->model()->steps().front().kind, WhyStepKind::read);
    QCOMPARE(why->model()->steps().front().cause, ThreadId(1));
    QPushButton* other = why->other_question_button();
    QVERIFY(other->isVisible());
    QCOMPARE(other->text(), QStringLiteral("What woke its turn?"));
    // One click asks the other question about the same subject: its last
    // turn by 250 µs began at its spawn of 3 (30 µs), which nothing in the
    // trace gave it.
    changed.clear();
    QTest::mouseClick(other, Qt::LeftButton);
    QVERIFY(changed.count() == 1 || changed.wait(10000));
    QCOMPARE(why->answer()->asked, WhyAsk::woke);
    QVERIFY2(why->status_text().startsWith(QStringLiteral("<i>What woke the turn it ran in at 250.000 µs:</i>")),
             qPrintable(why->status_text()));
    QCOMPARE(why->answer()->end, WhyEnd::no_recorded_cause);
    QCOMPARE(why->answer()->stuck_event, std::int64_t(5));
    QCOMPARE(other->text(), QStringLiteral("What ended its wait?"));
    // A new subject is asked the question its time asks: 2 at 310 µs runs.
    changed.clear();
    why->set_subject(2, 310000);
    QVERIFY(changed.count() >= 1 || changed.wait(10000));
    if (why->loading()) QVERIFY(changed.wait(10000));
    QCOMPARE(why->answer()->asked, WhyAsk::woke);
    QCOMPARE(why->model()->steps().front().kind, WhyStepKind::read);
  }

  void why_path_matches_the_core_and_is_drawn() {
    inspection_->go_to_thread(2);
    QCOMPARE(inspection_->selected_id(), std::optional<ThreadId>(2));
    WhyDock* why = inspection_->why();
    // Asked at 2's read of 1 (at its end, the trace holds no cause: 2
    // resolves itself after 3's turn, which nothing gave it).
    why->set_subject(2, 310000);
    QSignalSpy changed(why, &WhyDock::path_changed);
    why->ask(CausalDirection::why);
    QVERIFY(changed.count() == 1 || changed.wait(10000));
    // The same question, thread 2 at its end, to the engine.
    auto store = TraceStore::open(db_.toStdString());
    QVERIFY(store.ok());
    auto engine = WhyEngine::open(store.value());
    QVERIFY(engine.ok());
    WhyQuestion question;
    question.thread = 2;
    question.at = 310000;
    auto answer = engine.value().answer(question);
    QVERIFY(answer.ok());
    const std::vector<WhyStep>& expected = answer.value().steps;
    QVERIFY(!expected.empty());
    const std::vector<WhyStep>& got = why->model()->steps();
    QCOMPARE(got.size(), expected.size());
    for (std::size_t k = 0; k < got.size(); ++k) {
      QCOMPARE(got[k].cause_event, expected[k].cause_event);
      QCOMPARE(got[k].effect_event, expected[k].effect_event);
      QCOMPARE(got[k].cause, expected[k].cause);
    }
    // 2 went on because 1 resolved (a read), and 1 because the timer woke it.
    QCOMPARE(got.front().kind, WhyStepKind::read);
    QCOMPARE(got.front().cause, ThreadId(1));
    QCOMPARE(got.back().cause, ThreadId(-1));
    QVERIFY(why->answer().has_value());
    QCOMPARE(why->answer()->end, WhyEnd::root);
    QCOMPARE(why->model()->rowCount(), int(expected.size()));
    // On the timeline: one link per step, its threads highlighted.
    QCOMPARE(timeline_->view().path.size(), expected.size());
    const std::vector<ThreadId> marks = highlighted_ids();
    QVERIFY(std::find(marks.begin(), marks.end(), 1) != marks.end());
    QVERIFY(std::find(marks.begin(), marks.end(), 2) != marks.end());
    // The read link 1 -> 2 at 310 µs, in the path colour.
    timeline_->show_window(double(full().first_time), double(full().end_time));
    QTest::qWait(50);
    const TimelineGeometry g = timeline_->geometry_now();
    const TimelinePathLink& link = timeline_->view().path.front();
    const double x = timeline_->view().mapping.x_of(double(link.effect_time));
    const auto s1 = timeline_->view().slot_of(timeline_->data()->threads[std::size_t(link.cause)].row);
    const auto s2 = timeline_->view().slot_of(timeline_->data()->threads[std::size_t(link.effect)].row);
    QVERIFY(s1 && s2);
    const double y0 = g.line_y(std::min(*s1, *s2), timeline_->view().row_offset);
    const double y1 = g.line_y(std::max(*s1, *s2), timeline_->view().row_offset);
    const QImage image = timeline_->grab().toImage();
    const QRect area(int(x) - 6, int(y0), 12, int(y1 - y0));
    QVERIFY2(count_colour(image, area, style::kCausalPath) > 10, "the Why? link is not drawn");
    // A click on a step selects its effect on the timeline and shows the
    // step's span (the panel follows the selection: keep a copy).
    const WhyStep first = got.front();
    timeline_->select(std::nullopt);
    emit why->step_activated(first.effect, first.cause_time, first.effect_time);
    QCOMPARE(inspection_->selected_id(), std::optional<ThreadId>(first.effect));
    const double t0 = timeline_->view().mapping.t_of(0), t1 = timeline_->view().mapping.t_of(timeline_->width());
    QVERIFY(t0 <= double(first.cause_time) && double(first.effect_time) <= t1);
    QVERIFY(t1 - t0 < 100e3);  // zoomed to the step, not the whole trace
  }

  void collapse_toggles_hide_exactly_the_expected_threads() {
    QCOMPARE(shown_ids(), (std::vector<ThreadId>{0, 1, 2, 3, 4, 5}));
    QSignalSpy applied(inspection_, &Inspection::filter_applied);
    inspection_->set_simplify_binds(true);
    QVERIFY(applied.count() == 1 || applied.wait(10000));
    applied.clear();
    QCOMPARE(shown_ids(), (std::vector<ThreadId>{0, 1, 3, 4, 5}));  // 2, the bind reading only 1
    QCOMPARE(timeline_->data()->threads[shown(3)].parent, ThreadId(1));
    inspection_->toggle_fold(3);
    QVERIFY(applied.count() == 1 || applied.wait(10000));
    applied.clear();
    QCOMPARE(shown_ids(), (std::vector<ThreadId>{0, 1, 3, 5}));  // 4 drawn as 3
    QCOMPARE(inspection_->shown_index(4), inspection_->shown_index(3));
    inspection_->set_simplify_binds(false);
    QVERIFY(applied.count() == 1 || applied.wait(10000));
    applied.clear();
    QCOMPARE(shown_ids(), (std::vector<ThreadId>{0, 1, 2, 3, 5}));
    inspection_->toggle_fold(3);
    QVERIFY(applied.count() == 1 || applied.wait(10000));
    QCOMPARE(shown_ids(), (std::vector<ThreadId>{0, 1, 2, 3, 4, 5}));
    QVERIFY(inspection_->filter().empty());
    // The database is untouched: the same trace loads with every thread.
    auto store = TraceStore::open(db_.toStdString());
    QVERIFY(store.ok());
    auto threads = store.value().threads();
    QVERIFY(threads.ok());
    QCOMPARE(threads.value().size(), std::size_t(6));
  }

  void anomaly_click_zooms_to_the_finding() {
    const TimelineAnomaly& a = full().anomalies.front();
    // A window away from the finding: the 50 µs after a point 100 µs past it.
    timeline_->show_window(double(a.time + 100'000), double(a.time + 150'000));
    double t0 = timeline_->view().mapping.t_of(0), t1 = timeline_->view().mapping.t_of(timeline_->width());
    QVERIFY(double(a.time) < t0);
    AnomalyDock* dock = inspection_->anomalies();
    dock->raise();  // its tab is behind the thread details
    QTreeView* view = dock->findChild<QTreeView*>();
    QVERIFY(view);
    view->expandAll();
    QTest::qWait(20);
    QVERIFY(view->isVisible());
    // The first finding row under the first rule.
    const QModelIndex rule = view->model()->index(0, 0);
    const QModelIndex finding = view->model()->index(0, 0, rule);
    QVERIFY(finding.isValid());
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(finding).center());
    t0 = timeline_->view().mapping.t_of(0);
    t1 = timeline_->view().mapping.t_of(timeline_->width());
    const int index = finding.data(AnomalyModel::AnomalyIndexRole).toInt();
    const TimelineAnomaly& clicked = full().anomalies[std::size_t(index)];
    QVERIFY(double(clicked.time) >= t0 && double(clicked.time) <= t1);
    // The thread the finding is on is selected, alone, and its row named.
    const ThreadId on = full().threads[std::size_t(clicked.thread)].id;
    QCOMPARE(inspection_->selected_id(), std::optional<ThreadId>(on));
    QCOMPARE(timeline_->view().selected_chain.size(), std::size_t(1));
    QVERIFY(!timeline_->view().notes.empty());
    QCOMPARE(timeline_->view().notes.front().thread, shown(on));
  }

  void search_finds_steps_and_highlights() {
    inspection_->show_search();
    SearchBar* bar = inspection_->search();
    QVERIFY(bar->isVisible());
    QLineEdit* edit = bar->findChild<QLineEdit*>();
    QVERIFY(edit);
    edit->clear();
    QTest::keyClicks(edit, QStringLiteral("er"));  // serv-er, handl-er, work-er
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{1, 3, 4}));
    QTest::keyClick(edit, Qt::Key_Return);
    const auto first = inspection_->selected_id();
    QVERIFY(first.has_value());
    QTest::keyClick(edit, Qt::Key_Return);
    const auto second = inspection_->selected_id();
    QVERIFY(second.has_value() && *second != *first);
    QVERIFY(timeline_->view().current_match.has_value());
    QCOMPARE(timeline_->data()->threads[*timeline_->view().current_match].id, *second);
    edit->clear();
  }

  void summary_row_highlights_its_threads() {
    SummaryDock* dock = inspection_->summary();
    QTableView* view = dock->findChild<QTableView*>();
    QVERIFY(view);
    // The row of label "handler".
    int row = -1;
    for (int r = 0; r < view->model()->rowCount(); ++r)
      for (int c = 0; c < view->model()->columnCount(); ++c)
        if (view->model()->index(r, c).data().toString() == QStringLiteral("handler")) row = r;
    QVERIFY(row >= 0);
    view->selectRow(row);
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{3}));
  }

  void details_link_selects_the_thread() {
    inspection_->go_to_thread(3);
    ThreadDetailsDock* dock = inspection_->details();
    QSignalSpy activated(dock, &ThreadDetailsDock::thread_activated);
    emit dock->thread_activated(4);
    QCOMPARE(inspection_->selected_id(), std::optional<ThreadId>(4));
  }

  void overview_heat_map_and_flame_graph_follow_the_view() {
    // The overview's drag and the heat map's selection move the timeline.
    emit inspection_->overview()->range_requested(200'000, 300'000);
    QVERIFY(std::abs(timeline_->view().mapping.t_of(0) - 200'000.0) < 1);
    QVERIFY(std::abs(timeline_->view().mapping.t_of(timeline_->width()) - 300'000.0) < 1);
    QVERIFY(std::abs(inspection_->overview()->visible_t0() - 200'000.0) < 1);
    emit inspection_->heatmap()->range_selected(100'000, 500'000);
    QVERIFY(std::abs(timeline_->view().mapping.t_of(0) - 100'000.0) < 1);
    QVERIFY(std::abs(timeline_->view().mapping.t_of(timeline_->width()) - 500'000.0) < 1);
    // The flame graph follows the window once it stops moving: 1 ("server")
    // ran from 100 to 200 µs and from 260 to 300 µs.
    timeline_->show_window(100'000, 200'000);
    QTRY_COMPARE(inspection_->flame_graph()->graph().t1 - inspection_->flame_graph()->graph().t0, TimeNs(100'000));
    const FlameGraph& g = inspection_->flame_graph()->graph();
    QCOMPARE(g.total(), TimeNs(100'000));
    const auto server = g.find({"server"});
    QVERIFY(server.has_value());
    QCOMPARE(g.frames[std::size_t(*server)].total, TimeNs(100'000));
  }

  void dock_layout_is_kept_between_sessions() {
    const auto summary_of = [](MainWindow& w) -> QDockWidget* {
      for (QDockWidget* d : w.inspection()->docks())
        if (d->objectName() == QStringLiteral("dock-summary")) return d;
      return nullptr;
    };
    {
      MainWindow first;
      first.show();
      QVERIFY(QTest::qWaitForWindowExposed(&first));
      QDockWidget* summary = summary_of(first);
      QVERIFY(summary && summary->isVisible());
      summary->toggleViewAction()->trigger();  // View ▸ Panels ▸ Summary off
      QVERIFY(!summary->isVisible());
      first.close();
    }
    MainWindow second;
    second.show();
    QVERIFY(QTest::qWaitForWindowExposed(&second));
    QDockWidget* summary = summary_of(second);
    QVERIFY(summary);
    QVERIFY(!summary->isVisible());
    QVERIFY(!summary->toggleViewAction()->isChecked());
    second.reset_layout();
    QVERIFY(summary->isVisible());
    second.close();
  }

  void export_and_copy() {
    timeline_->show_window(double(full().first_time), double(full().end_time));
    inspection_->go_to_thread(3);
    const QString svg = dir_.filePath(QStringLiteral("view.svg"));
    QVERIFY(window_->export_view(svg, true));
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(file.readAll());
    for (const char* label : {"server", "handler", "worker", "orphan"})
      QVERIFY2(text.contains(QString::fromLatin1(label)), label);
    const QString png = dir_.filePath(QStringLiteral("view.png"));
    QVERIFY(window_->export_view(png, true));
    const QImage image(png);
    QCOMPARE(image.size(), timeline_->size());
    QVERIFY(!window_->export_view(dir_.filePath(QStringLiteral("no/such/folder/view.png")), true));
    window_->copy_details();
    const QString copied = QGuiApplication::clipboard()->text();
    QVERIFY2(copied.contains(QStringLiteral("handler")), qPrintable(copied));
    QVERIFY2(copied.startsWith(QStringLiteral("thread 3 (handler)")), qPrintable(copied));
  }

  // Last, as it opens another trace and comes back.
  void reopen_last_opens_the_trace_before_this_one() {
    const QString other = dir_.filePath(QStringLiteral("other.db"));
    QVERIFY(QFile::copy(db_, other));
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    window_->open(other);
    QVERIFY(finished.wait(20000));
    QCOMPARE(QFileInfo(window_->current_path()).absoluteFilePath(), QFileInfo(other).absoluteFilePath());
    // Not the trace shown (that is View ▸ Reload): the one before it.
    window_->reopen_last();
    QVERIFY(finished.wait(20000));
    QCOMPARE(QFileInfo(window_->current_path()).absoluteFilePath(), QFileInfo(db_).absoluteFilePath());
    window_->reopen_last();
    QVERIFY(finished.wait(20000));
    QCOMPARE(QFileInfo(window_->current_path()).absoluteFilePath(), QFileInfo(other).absoluteFilePath());
  }

  // After the last: another trace, whose thread 2 has six labels. The
  // timeline comes without their texts; once the analysis worker has read
  // them, the details list all six and the search finds the thread by its
  // fifth, which its row does not show, and bands its row.
  void a_thread_with_six_labels_shows_them_all_once_read() {
    std::string trace = "(skein-trace 1)\n(spawn 1000 1 0 task)\n(label 2000 1 \"plain\")\n"
                        "(spawn 3000 2 0 task)\n";
    const std::vector<std::string> six = {"accept", "parse", "route", "render", "compress", "reply"};
    for (std::size_t k = 0; k < six.size(); ++k)
      trace += "(label " + std::to_string(4000 + 1000 * k) + " 2 \"" + six[k] + "\")\n";
    trace += "(label 20000 2 \"parse\")\n(switch 30000 2)\n(resolve 900000 2 2 ok)\n(end 1000000)\n";
    const QString path = dir_.filePath(QStringLiteral("labelled.sexp"));
    std::ofstream(path.toStdString()) << trace;
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    QSignalSpy labels(inspection_, &Inspection::labels_settled);
    window_->open(path);
    QVERIFY(finished.wait(20000));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(labels.count() == 1 || labels.wait(20000));
    const std::uint32_t two = *full().thread_index(2);
    QCOMPARE(full().text(full().threads[two].label), std::string("accept · parse · route · +3 more"));
    QCOMPARE(full().labels_of(two), six);

    inspection_->go_to_thread(2);
    ThreadDetailsModel* model = inspection_->details()->model();
    const QModelIndex section = model->section_index(ThreadDetailsModel::Section::labels);
    QVERIFY(section.isValid());
    QCOMPARE(model->rowCount(section), 6);
    for (int k = 0; k < 6; ++k)
      QCOMPARE(model->index(k, ThreadDetailsModel::ValueColumn, section).data().toString(),
               QString::fromStdString(six[static_cast<std::size_t>(k)]));

    inspection_->show_search();
    QLineEdit* edit = inspection_->search()->line_edit();
    edit->clear();
    QTest::keyClicks(edit, QStringLiteral("compress"));
    QCOMPARE(highlighted_ids(), (std::vector<ThreadId>{2}));
    timeline_->show_window(0, 1000000);
    const QImage image = timeline_->grab().toImage();
    QVERIFY(count_colour(image, test::highlight_band(*timeline_, shown(2), 100000, 800000), style::kHighlight) > 500);
    QCOMPARE(count_colour(image, test::highlight_band(*timeline_, shown(1), 100000, 800000), style::kHighlight), 0);
    edit->clear();
  }
};

QTEST_MAIN(InspectionWindowTest)
#include "inspection_window_test.moc"
