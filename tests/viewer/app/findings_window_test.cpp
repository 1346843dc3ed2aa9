// findings_window_test.cpp — the lints' findings in skein-view's window,
// under QTest (offscreen), on the 2014 MirageOS trace log-x86.sexp, whose
// 16 findings are pending-at-end notes in groups that are not in time
// order (the trace stops in a snapshot: nothing is an error):
//   - one order: the Anomalies dock lists them as `skein lint` prints them
//     (the same rules, groups and numbers, #1 to #16 from the top), and
//     show_finding(N) (`skein-view --finding N`) opens the finding the
//     report numbers N, the one the `anomalies` table stores as id N;
//   - counts: the tab reads "Anomalies (16)", the status bar "16 findings:
//     16 notes", and a reload says the lints run, then the same again;
//   - a click on a note: its row's tag is drawn in the note colour, never
//     in the error colour, and reads "note #N: ..."; the Why? panel, raised
//     over the Anomalies dock, shows the finding and what to do about it.
// Exit 77 (ctest's "skipped") when the fixture folder is missing.
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <cstdio>

#include "tests/viewer/findings_outline.hpp"
#include "tests/viewer/pixel_count.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/analysis/lint_text.hpp"
#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/inspection.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/timeline_widget.hpp"
#include "viewer/app/why_dock.hpp"
#include "viewer/render/timeline_style.hpp"

using namespace skein;

namespace {

QString fixture_path() {
  const QByteArray env = qgetenv("SKEIN_FIXTURES");
  const QString folder = env.isEmpty() ? QStringLiteral(SKEIN_DEFAULT_FIXTURES) : QString::fromLocal8Bit(env);
  return folder + QStringLiteral("/log-x86.sexp");
}

}  // namespace

class FindingsWindowTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;
  QString trace_;
  LintReport report_;  // `skein lint`'s, from the cache the window made
  std::unique_ptr<MainWindow> window_;
  Inspection* inspection_ = nullptr;

  [[nodiscard]] const TimelineData& full() const { return *inspection_->full(); }
  [[nodiscard]] AnomalyDock* dock() const { return inspection_->anomalies(); }
  [[nodiscard]] QDockWidget* dock_of(QWidget* content) const {
    for (QDockWidget* d : inspection_->docks())
      if (d->widget() == content || d == content) return d;
    return nullptr;
  }
  // The finding the report numbers `n`, and the one the window holds as #n.
  [[nodiscard]] const LintFinding& reported(std::int64_t n) const {
    return report_.findings[static_cast<std::size_t>(n - 1)];
  }
  [[nodiscard]] int index_of_number(std::int64_t n) const {
    for (std::size_t i = 0; i < full().anomalies.size(); ++i)
      if (full().anomalies[i].number == n) return static_cast<int>(i);
    return -1;
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
    // A copy, so its cache database is the test's own.
    trace_ = dir_.filePath(QStringLiteral("log-x86.sexp"));
    QVERIFY(QFile::copy(fixture_path(), trace_));
    window_ = std::make_unique<MainWindow>();
    window_->resize(1600, 1000);
    window_->show();
    QVERIFY(QTest::qWaitForWindowExposed(window_.get()));
    inspection_ = window_->inspection();
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    QSignalSpy settled(inspection_, &Inspection::findings_settled);
    window_->open(trace_);
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(settled.count() == 1 || settled.wait(120000));
    QCOMPARE(full().anomalies.size(), std::size_t(16));
    // The report `skein lint` prints, from the database the window linted.
    auto store = TraceStore::open(full().source);
    QVERIFY(store.ok());
    auto report = lint_store(store.value(), LintOptions{});
    QVERIFY(report.ok());
    report_ = std::move(report).value();
    QCOMPARE(report_.findings.size(), std::size_t(16));
  }

  void theDockListsTheFindingsAsSkeinLintPrintsThem() {
    const std::string text = render_lint_text(report_, {}, [](std::uint32_t) { return std::string(); });
    const QStringList printed = test::outline_of_text(text);
    QStringList numbers;
    for (int n = 1; n <= 16; ++n) numbers << QStringLiteral("#%1").arg(n);
    // The text report numbers its lines #1 to #16 from the top, in groups
    // that are not by time (#4 is earlier than #2)...
    QStringList printed_numbers = printed.filter(QRegularExpression(QStringLiteral("^#")));
    QCOMPARE(printed_numbers, numbers);
    QVERIFY(reported(4).time < reported(2).time);
    // ...and the dock shows the same lines: rule, groups and numbers.
    QCOMPARE(test::outline_of(*dock()->model()), printed);
    QVERIFY(printed.filter(QRegularExpression(QStringLiteral("^group "))).size() >= 2);
    // Each number is the same finding in the window as in the report.
    for (std::int64_t n = 1; n <= 16; ++n) {
      const int i = index_of_number(n);
      QVERIFY(i >= 0);
      const TimelineAnomaly& a = full().anomalies[static_cast<std::size_t>(i)];
      QCOMPARE(a.time, reported(n).time);
      QCOMPARE(full().threads[static_cast<std::size_t>(a.thread)].id, reported(n).thread);
      QCOMPARE(std::string(a.group()), reported(n).group);
    }
  }

  void showFindingOpensTheFindingTheReportNumbers() {
    // skein-view --finding N, for a few N out of time order.
    for (const std::int64_t n : {2, 4, 13, 16}) {
      QVERIFY(inspection_->show_finding(n));
      QCOMPARE(inspection_->selected_id(), std::optional<ThreadId>(reported(n).thread));
    }
  }

  void theTabAndTheStatusBarCountTheFindings() {
    QCOMPARE(dock()->windowTitle(), QStringLiteral("Anomalies (16)"));
    QCOMPARE(window_->findings_label()->text(), QStringLiteral("16 findings: 16 notes"));
    QVERIFY(window_->findings_label()->isVisible());
    QVERIFY(dock()->status_label()->text().startsWith(QStringLiteral("16 findings under 1 rule,")));
    // A reload lints again (the cache holds the findings): the count says
    // so while it runs, and comes back.
    QSignalSpy finished(window_.get(), &MainWindow::load_finished);
    QSignalSpy settled(inspection_, &Inspection::findings_settled);
    QSignalSpy tally(dock(), &AnomalyDock::tally_changed);
    window_->reload();
    QVERIFY(finished.wait(120000));
    QVERIFY(settled.count() == 1 || settled.wait(120000));
    QVERIFY(tally.count() >= 2);
    QCOMPARE(tally.first().at(0).toString(), QStringLiteral("Running the lints…"));
    QCOMPARE(window_->findings_label()->text(), QStringLiteral("16 findings: 16 notes"));
    QCOMPARE(dock()->windowTitle(), QStringLiteral("Anomalies (16)"));
  }

  void aClickedNoteIsTaggedInTheNoteColourAndWhyShowsWhatToDo() {
    QDockWidget* anomalies = dock_of(dock());
    QVERIFY(anomalies);
    anomalies->raise();
    QTreeView* view = dock()->view();
    view->expandAll();
    // The first finding of the first group: #1.
    const QModelIndex rule = dock()->model()->index(0, 0);
    const QModelIndex group = dock()->model()->index(0, 0, rule);
    QVERIFY(dock()->model()->is_group(group));
    const QModelIndex first = dock()->model()->index(0, AnomalyModel::MessageColumn, group);
    view->scrollTo(first);
    QTest::qWait(20);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(first).center());
    const int index = first.data(AnomalyModel::AnomalyIndexRole).toInt();
    const TimelineAnomaly& a = full().anomalies[static_cast<std::size_t>(index)];
    QCOMPARE(a.number, std::int64_t(1));
    QCOMPARE(std::string(a.severity()), std::string("note"));

    // The tag on the acted row says what the finding is, in the note colour.
    TimelineWidget* timeline = window_->timeline();
    const TimelineViewState& v = timeline->view();
    QVERIFY(!v.notes.empty());
    QVERIFY2(QString::fromStdString(v.notes[0].text).startsWith(QStringLiteral("note #1: ")),
             v.notes[0].text.c_str());
    const QString png = dir_.filePath(QStringLiteral("note.png"));
    QVERIFY(window_->write_view(png).ok());
    const QImage image(png);
    const TimelineGeometry g = timeline->geometry_now();
    const auto slot = v.slot_of(timeline->data()->threads[v.notes[0].thread].row);
    QVERIFY(slot);
    const QRect tag(image.width() / 2, int(g.row_top(*slot, v.row_offset)), image.width() / 2,
                    TimelineGeometry::kRowHeight);
    const int note = test::count_colour(image, tag, style::kFindingNote, 30);
    const int red = test::count_colour(image, tag, style::kFindingError, 30);
    QVERIFY2(note > 40, qPrintable(QStringLiteral("note-coloured pixels in the tag: %1").arg(note)));
    QVERIFY2(red == 0, qPrintable(QStringLiteral("error-coloured pixels in a note's tag: %1").arg(red)));
    QVERIFY(test::count_colour(image, tag, style::kFindingNoteBackground, 6) > 100);

    // Why? is raised over the Anomalies dock, and says what to do.
    WhyDock* why = inspection_->why();
    // (A dock under another's tab is "visible" to Qt, with nothing of it on screen.)
    QVERIFY(!why->visibleRegion().isEmpty());
    QVERIFY(window_->tabifiedDockWidgets(anomalies).contains(dock_of(why)));
    QVERIFY(dock()->advice_label()->visibleRegion().isEmpty());  // under the Why? tab
    QLabel* finding = why->finding_label();
    QVERIFY(finding->isVisible());
    QVERIFY(!finding->visibleRegion().isEmpty());
    // #1 is a loop pending in a snapshot: expected, a note with no fix.
    QVERIFY2(!finding->text().contains(QStringLiteral("What to do:")), qPrintable(finding->text()));
    QVERIFY2(finding->text().contains(QStringLiteral("a loop, pending as a running program")), qPrintable(finding->text()));
    QVERIFY(finding->text().contains(QStringLiteral("<b>#1</b>")));
    QCOMPARE(finding->text(), dock()->explanation_html(index));
    // Another subject, chosen on the timeline, is not the finding.
    inspection_->go_to_thread(full().threads.front().id);
    QVERIFY(!finding->isVisible());
  }
};

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("Skein test"));
  QCoreApplication::setApplicationName(QStringLiteral("findings_window_test"));
  if (!QFileInfo::exists(fixture_path())) {
    std::fprintf(stderr, "skipped: no fixture at %s\n", qPrintable(fixture_path()));
    return 77;
  }
  FindingsWindowTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "findings_window_test.moc"
