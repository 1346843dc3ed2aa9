// finding_task_test.cpp — the task skein-view exists for, done in the
// window under QTest (offscreen) as a user does it, on a real run of
// `blockread --missing-notify`: open the trace, never linted; the lints
// run by themselves and their findings arrive in the Anomalies dock; a
// click on the first missing notification opens it.
//
// What the sample guarantees, and so what is asserted (samples/blockread:
// the backend fiber, labelled "backend", completes a request by setting a
// flag the runtime cannot see; the "blkfront.poll" thread finds it set and
// resolves the waiting B.read):
//   - the finding is on a thread of the poll row, the thread that resolved
//     a B.read, and names the backend as suspect;
//   - the window is a few tens of µs around that turn, the turn alone is
//     selected with only its edges, and the rows read "error #1: ..." and
//     "suspect: backend #ID";
//   - the Anomalies tab and the status bar count the findings by severity;
//     the Why? panel, raised over the Anomalies dock by the click, states
//     the finding and what to do about it;
//   - Why? at the finding ends at "no recorded cause" naming the backend;
//   - Why? at the resolved B.read's completion passes through
//     blkfront.poll (the resolve that completed it);
//   - the exported view holds, in pixels, the suspect's tag on the
//     backend's row, the outline of the turn and the marker.
// The ids of the backend and of the B.read come from the trace's labels,
// not from the lints.
#include <QDockWidget>
#include <QLabel>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "tests/viewer/pixel_count.hpp"
#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/inspection.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/trace_analysis.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/models/anomaly_model.hpp"
#include "viewer/render/timeline_style.hpp"

using namespace skein;

namespace {

int count_colour(const QImage& image, const QRect& area, const QColor& colour, int tolerance = 30) {
  return test::count_colour(image, area, colour, tolerance);
}

}  // namespace

class FindingTaskTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString trace_;
  std::unique_ptr<MainWindow> window_;
  Inspection* inspection_ = nullptr;
  TimelineWidget* timeline_ = nullptr;
  ThreadId backend_ = -1;

  [[nodiscard]] const TimelineData& full() const { return *inspection_->full(); }
  [[nodiscard]] std::string label_of(ThreadId id) const {
    const auto i = full().thread_index(id);
    return i ? full().text(full().threads[*i].label) : std::string();
  }
  [[nodiscard]] ThreadId id_of(std::int32_t index) const {
    return index >= 0 ? full().threads[std::size_t(index)].id : ThreadId(-1);
  }
  // The first finding of the first rule in the Anomalies dock, clicked.
  const TimelineAnomaly* click_first_finding() {
    AnomalyDock* dock = inspection_->anomalies();
    dock->raise();
    QTreeView* view = dock->findChild<QTreeView*>();
    if (!view) return nullptr;
    view->expandAll();
    QTest::qWait(20);
    const QModelIndex rule = view->model()->index(0, 0);
    const QModelIndex finding = view->model()->index(0, 0, rule);
    if (!finding.isValid()) return nullptr;
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(finding).center());
    const int index = finding.data(AnomalyModel::AnomalyIndexRole).toInt();
    return &full().anomalies[std::size_t(index)];
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
    trace_ = dir_.filePath(QStringLiteral("blockread.sexp"));
    QProcess run;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("SKEIN_TRACE"), trace_);
    run.setProcessEnvironment(env);
    run.start(QStringLiteral(SKEIN_BLOCKREAD_PATH),
              {QStringLiteral("--missing-notify"), QStringLiteral("--requests"), QStringLiteral("4"),
               QStringLiteral("--latency-us"), QStringLiteral("1000")});
    QVERIFY(run.waitForFinished(60000));
    QCOMPARE(run.exitCode(), 0);

    window_ = std::make_unique<MainWindow>();
    window_->resize(1500, 950);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    inspection_ = window_->inspection();
    timeline_ = window_->timeline();
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    QSignalSpy settled(inspection_, &Inspection::findings_settled);
    window_->open(trace_);
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toBool(), true);
    // The first frame comes before the lints: a trace never linted has no
    // finding yet, and its database no lint results.
    QVERIFY(full().anomalies.empty());
    QVERIFY(settled.count() == 1 || settled.wait(60000));
    QVERIFY(!full().anomalies.empty());
    for (const TimelineThread& t : full().threads)
      if (full().text(t.label) == "backend") backend_ = t.id;
    QVERIFY(backend_ >= 0);
  }

  void the_findings_arrive_numbered_with_the_backend_as_suspect() {
    int missing = 0;
    for (const TimelineAnomaly& a : full().anomalies) {
      QVERIFY(a.number > 0);
      if (a.rule() != "missing-notification") continue;
      ++missing;
      QCOMPARE(id_of(a.suspect), backend_);
      QCOMPARE(label_of(id_of(a.thread)), std::string("blkfront.poll"));
    }
    // --requests 4: every read is completed through the flag; the poll
    // thread's first turn after each completion is a finding. Reads can
    // share a turn, so at least one and at most four.
    QVERIFY(missing >= 1 && missing <= 4);
  }

  void a_click_opens_the_turn_that_acted() {
    const TimelineAnomaly* a = click_first_finding();
    QVERIFY(a);
    QCOMPARE(std::string(a->rule()), std::string("missing-notification"));
    const TimelineViewState& v = timeline_->view();
    // The window: a few tens of µs, around the finding.
    const double t0 = v.mapping.t_of(0), t1 = v.mapping.t_of(timeline_->width());
    QVERIFY2(t0 <= double(a->time) && double(a->time) <= t1, "the finding is out of the window");
    QVERIFY2(t1 - t0 >= 20e3 && t1 - t0 <= 150e3, qPrintable(QString::number(t1 - t0)));
    // The selection: the thread that acted, one turn of it, its edges only.
    const std::uint32_t acted = *inspection_->shown_index(id_of(a->thread));
    QCOMPARE(v.selected, std::optional<std::uint32_t>(acted));
    QCOMPARE(v.selected_chain, std::vector<std::uint32_t>{acted});
    QVERIFY(v.selected_turn.has_value());
    QVERIFY(v.selected_turn->start <= a->time && a->time <= v.selected_turn->end);
    QVERIFY(!v.selected_edges.empty());
    for (std::uint32_t e : v.selected_edges) {
      const TimelineEdge& edge = timeline_->data()->edges[e];
      QVERIFY(edge.time >= v.selected_turn->start && edge.time <= v.selected_turn->end);
    }
    // The poll row's chain has thousands of edges; the turn a handful.
    QVERIFY(v.selected_edges.size() < 50);
    // The rows named.
    QVERIFY(v.notes.size() >= 2);
    QCOMPARE(v.notes[0].thread, acted);
    QCOMPARE(v.notes[0].text, "error #" + std::to_string(a->number) + ": blkfront.poll #" +
                                  std::to_string(id_of(a->thread)));
    QCOMPARE(v.notes[1].thread, *inspection_->shown_index(backend_));
    QCOMPARE(v.notes[1].text, "suspect: backend #" + std::to_string(backend_));
    // Both rows are on screen.
    const TimelineGeometry g = timeline_->geometry_now();
    for (const FocusLabel& n : v.notes) {
      const auto slot = v.slot_of(timeline_->data()->threads[n.thread].row);
      QVERIFY(slot);
      QVERIFY(*slot >= v.row_offset && *slot + 1 <= v.row_offset + g.visible_rows());
    }
  }

  void the_tab_and_the_status_bar_count_the_findings() {
    // "5 findings: 4 errors, 1 note": the missing notifications, and what
    // else the run left; nouns agreeing with their counts.
    const auto phrase = [](std::size_t n, const char* noun) {
      return QStringLiteral("%1 %2%3").arg(n).arg(QLatin1String(noun)).arg(n == 1 ? "" : "s");
    };
    QStringList by_severity;
    for (const char* severity : {"error", "warning", "note"}) {
      const auto n = static_cast<std::size_t>(
          std::count_if(full().anomalies.begin(), full().anomalies.end(),
                        [&](const TimelineAnomaly& a) { return a.severity() == severity; }));
      if (n > 0) by_severity << phrase(n, severity);
    }
    const std::size_t n = full().anomalies.size();
    QCOMPARE(inspection_->anomalies()->windowTitle(), QStringLiteral("Anomalies (%1)").arg(n));
    QCOMPARE(window_->findings_label()->text(), phrase(n, "finding") + QStringLiteral(": ") + by_severity.join(", "));
  }

  void why_states_the_clicked_finding_and_what_to_do() {
    const TimelineAnomaly* a = click_first_finding();
    QVERIFY(a);
    WhyDock* why = inspection_->why();
    // Why? is in front (the Anomalies dock, tabbed with it, is not).
    QVERIFY(!why->visibleRegion().isEmpty());
    QVERIFY(inspection_->anomalies()->advice_label()->visibleRegion().isEmpty());
    QLabel* finding = why->finding_label();
    QVERIFY(finding->isVisible());
    QVERIFY(!finding->visibleRegion().isEmpty());
    const QString text = finding->text();
    QVERIFY2(text.contains(QStringLiteral("<b>#%1</b>").arg(a->number)), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("What to do:</i> record skein::notify(")), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("backend")), qPrintable(text));
    // It stays while the answer comes in.
    QTRY_VERIFY_WITH_TIMEOUT(!why->loading(), 30000);
    QVERIFY(finding->isVisible());
  }

  void why_ends_at_no_recorded_cause_naming_the_backend() {
    const TimelineAnomaly* a = click_first_finding();
    QVERIFY(a);
    WhyDock* why = inspection_->why();
    QTRY_VERIFY_WITH_TIMEOUT(!why->loading() && why->answer().has_value(), 30000);
    QCOMPARE(why->answer()->end, WhyEnd::no_recorded_cause);
    QCOMPARE(why->answer()->suspect, backend_);
    QCOMPARE(why->answer()->stuck, id_of(a->thread));
    const QString text = why->status_text();
    QVERIFY2(text.contains(QStringLiteral("no recorded cause"), Qt::CaseInsensitive), qPrintable(text));
    QVERIFY2(text.contains(QStringLiteral("backend")), qPrintable(text));
  }

  void the_b_read_chain_passes_through_the_poll_thread() {
    // The B.read the poll thread resolved at the finding: the resolve edge
    // of the turn, from the thread that acted.
    const TimelineAnomaly* a = click_first_finding();
    QVERIFY(a);
    const TimelineViewState& v = timeline_->view();
    std::optional<TimelineEdge> resolve;
    for (std::uint32_t e : v.selected_edges) {
      const TimelineEdge& edge = timeline_->data()->edges[e];
      if (edge.kind == EdgeKind::resolve && edge.dst >= 0 &&
          timeline_->data()->text(timeline_->data()->threads[std::size_t(edge.dst)].label) == "B.read")
        resolve = edge;
    }
    QVERIFY2(resolve, "the turn resolves no B.read");
    const ThreadId read = timeline_->data()->threads[std::size_t(resolve->dst)].id;
    WhyDock* why = inspection_->why();
    QSignalSpy changed(why, &WhyDock::path_changed);
    why->set_subject(read, resolve->time);
    why->ask(CausalDirection::why);
    QTRY_VERIFY_WITH_TIMEOUT(!why->loading() && why->answer().has_value(), 30000);
    bool through_poll = false;
    for (const WhyStep& s : why->model()->steps())
      if (s.cause >= 0 && label_of(s.cause) == "blkfront.poll") through_poll = true;
    QVERIFY2(through_poll, "the B.read's chain does not pass through blkfront.poll");
  }

  void the_exported_view_shows_the_finding() {
    const TimelineAnomaly* a = click_first_finding();
    QVERIFY(a);
    QTRY_VERIFY_WITH_TIMEOUT(!inspection_->why()->loading(), 30000);
    const QString png = dir_.filePath(QStringLiteral("finding.png"));
    QVERIFY(window_->write_view(png).ok());
    const QImage image(png);
    QCOMPARE(image.size(), timeline_->size());
    const TimelineViewState& v = timeline_->view();
    const TimelineGeometry g = timeline_->geometry_now();
    const auto row_band = [&](std::uint32_t thread, int x0, int x1) {
      const auto slot = v.slot_of(timeline_->data()->threads[thread].row);
      const int top = int(g.row_top(*slot, v.row_offset));
      return QRect(x0, top, x1 - x0, TimelineGeometry::kRowHeight);
    };
    // The suspect's tag, at the right end of the backend's row: its red
    // border and text.
    const std::uint32_t backend = *inspection_->shown_index(backend_);
    const QRect tag = row_band(backend, image.width() - 320, image.width());
    QVERIFY2(count_colour(image, tag, style::kFindingError) > 40, "no suspect tag on the backend's row");
    // The same colour does not fill the row's left part, where nothing red is drawn.
    QVERIFY(count_colour(image, row_band(backend, 0, 200), style::kFindingError) <
            count_colour(image, tag, style::kFindingError));
    // The outline of the turn that acted: dark pixels above its span.
    const double x0 = v.mapping.x_of(double(v.selected_turn->start));
    const double x1 = v.mapping.x_of(double(v.selected_turn->end));
    const auto slot = v.slot_of(timeline_->data()->threads[*v.selected].row);
    const int y = int(g.line_y(*slot, v.row_offset));
    const QRect above(int(x0) + 2, y - 9, std::max(4, int(x1 - x0) - 4), 3);
    QVERIFY2(count_colour(image, above, style::kSelectedLine, 60) >= std::max(2, above.width() / 2),
             "the turn is not outlined");
    // The marker at the finding's time on the poll row.
    const int xm = int(v.mapping.x_of(double(a->time)));
    QVERIFY2(count_colour(image, QRect(xm - 8, y - 8, 16, 16), style::kFindingError) > 10,
             "no missing-notification marker");
  }
};

QTEST_MAIN(FindingTaskTest)
#include "finding_task_test.moc"
