// inspection_models_test.cpp — the inspection docks' models and widgets
// under QTest (offscreen platform), on the hand-built traces of
// inspection_traces.hpp:
//   - every model passes QAbstractItemModelTester while it is populated,
//     switched, reset to another trace and cleared;
//   - ThreadDetailsModel: sections, rows, the ids in ThreadIdRole, the
//     site's file URL; SummaryModel: summarize()'s rows, numeric sorting
//     through a proxy, the grouping switch, the duration filter;
//     AnomalyModel: findings in the report's order (by number), rules most
//     severe first, grouped as `skein lint` groups them, with their roles,
//     hiding a rule;
//   - the docks: a click on a related thread emits thread_activated, a
//     selected summary row emits its threads, a click on a finding emits
//     its index, the Anomalies dock counts its findings in its status, its
//     tab title and its tally, with nouns that agree, typing in the search bar emits the matches and Return /
//     Shift+Return step through them.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTest>
#include <QToolButton>
#include <QTreeView>

#include "tests/viewer/findings_outline.hpp"
#include "tests/viewer/inspection_traces.hpp"
#include "tests/viewer/timeline_from_text.hpp"
#include "viewer/app/anomaly_dock.hpp"
#include "viewer/app/search_bar.hpp"
#include "viewer/app/summary_dock.hpp"
#include "viewer/analysis/lint_text.hpp"
#include "viewer/app/thread_details_dock.hpp"
#include "viewer/models/anomaly_model.hpp"
#include "viewer/models/summary_model.hpp"
#include "viewer/models/thread_details_model.hpp"

using namespace skein;

namespace {

using Ids = std::vector<ThreadId>;
using Mode = QAbstractItemModelTester::FailureReportingMode;

// The ids a signal spy's last emission carried.
Ids last_ids(const QSignalSpy& spy) { return spy.last().at(0).value<Ids>(); }

QString text(const QAbstractItemModel& m, int row, int column, const QModelIndex& parent = {}) {
  return m.index(row, column, parent).data().toString();
}

}  // namespace

class InspectionModelsTest : public QObject {
  Q_OBJECT

 private:
  test::TempDir dir_;
  std::shared_ptr<const TimelineData> details_;  // kDetailsTrace with its findings
  std::shared_ptr<const TimelineData> groups_;   // groups_trace()
  std::shared_ptr<const TimelineData> grouped_;  // kDetailsTrace with grouped_report()'s findings

  std::uint32_t index(ThreadId id) const { return *details_->thread_index(id); }
  std::uint32_t group_index(ThreadId id) const { return *groups_->thread_index(id); }

  // The row of a summary proxy (or model) whose name column reads `name`; -1 if none.
  static int row_named(const QAbstractItemModel& m, const QString& name) {
    for (int r = 0; r < m.rowCount(); ++r)
      if (text(m, r, SummaryModel::NameColumn) == name) return r;
    return -1;
  }
  static QStringList names(const QAbstractItemModel& m) {
    QStringList out;
    for (int r = 0; r < m.rowCount(); ++r) out << text(m, r, 0);
    return out;
  }
  // The children of a section (details) or rule (anomalies), column 0 texts.
  static QStringList child_texts(const QAbstractItemModel& m, const QModelIndex& parent, int column = 0) {
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) out << text(m, r, column, parent);
    return out;
  }
  static QList<qlonglong> child_ids(const QAbstractItemModel& m, const QModelIndex& parent, int role) {
    QList<qlonglong> out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
      const QVariant v = m.index(r, 0, parent).data(role);
      out << (v.isValid() ? v.toLongLong() : -100);
    }
    return out;
  }

 private slots:
  void initTestCase() {
    std::string error;
    details_ = test::timeline_from_text(test::kDetailsTrace, dir_, &error, test::details_findings(), "details");
    QVERIFY2(details_, error.c_str());
    groups_ = test::timeline_from_text(test::groups_trace(), dir_, &error, {}, "groups");
    QVERIFY2(groups_, error.c_str());
    grouped_ = test::timeline_from_text(test::kDetailsTrace, dir_, &error, test::grouped_report().findings, "grouped");
    QVERIFY2(grouped_, error.c_str());
    QCOMPARE(details_->threads.size(), std::size_t(6));
    QCOMPARE(details_->anomalies.size(), std::size_t(5));
    QCOMPARE(groups_->threads.size(), std::size_t(22));
  }

  // ---- QAbstractItemModelTester over each model's whole life ----

  void threadDetailsModelPassesTheTester() {
    ThreadDetailsModel m;
    QAbstractItemModelTester tester(&m, Mode::QtTest);
    QCOMPARE(m.rowCount(), 0);
    m.set_data(details_);
    QCOMPARE(m.rowCount(), 0);  // no thread yet
    for (ThreadId id : {1, 3, 0, 4, 5}) {
      m.show_thread(index(id));
      QCOMPARE(m.rowCount(), ThreadDetailsModel::kSectionCount);
    }
    m.show_thread(std::uint32_t(99));  // out of range: nothing
    QCOMPARE(m.rowCount(), 0);
    m.show_thread(index(2));
    m.set_data(groups_);  // another trace: cleared
    QCOMPARE(m.rowCount(), 0);
    m.show_thread(group_index(20));
    QCOMPARE(m.rowCount(), ThreadDetailsModel::kSectionCount);
    m.show_thread(std::nullopt);
    m.set_data(nullptr);
    m.show_thread(0);
    QCOMPARE(m.rowCount(), 0);
  }

  void summaryModelPassesTheTester() {
    SummaryModel m;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&m);
    proxy.setSortRole(SummaryModel::SortRole);
    proxy.sort(SummaryModel::ThreadsColumn);
    QAbstractItemModelTester tester(&m, Mode::QtTest);
    QAbstractItemModelTester proxy_tester(&proxy, Mode::QtTest);
    m.set_data(details_);
    QCOMPARE(m.rowCount(), 3);  // labels poll, reader, (no label)
    m.set_grouping(SummaryGrouping::kind);
    QCOMPARE(m.rowCount(), 4);
    m.set_grouping(SummaryGrouping::site);
    QCOMPARE(m.rowCount(), 2);
    m.set_duration_filter(2400);
    m.set_data(groups_);
    m.set_grouping(SummaryGrouping::label);
    QCOMPARE(m.rowCount(), 2);  // gamma and (no label): alpha's and beta's threads live under 2400 ns
    m.set_duration_filter(0);
    QCOMPARE(m.rowCount(), 4);
    m.set_data(nullptr);
    QCOMPARE(m.rowCount(), 0);
    QCOMPARE(proxy.rowCount(), 0);
  }

  void anomalyModelPassesTheTester() {
    AnomalyModel m;
    QAbstractItemModelTester tester(&m, Mode::QtTest);
    m.set_data(details_);
    QCOMPARE(m.rowCount(), 4);
    m.set_rule_hidden(QStringLiteral("late-notify"), true);
    QVERIFY(m.setData(m.rule_index(QStringLiteral("self-wake")), Qt::Unchecked, Qt::CheckStateRole));
    m.set_rule_hidden(QStringLiteral("unread-failure"), true);  // the first row, greyed
    m.set_data(details_);  // a reset with hidden rules
    m.set_hidden_rules({});
    m.set_data(groups_);  // no findings
    QCOMPARE(m.rowCount(), 0);
    m.set_data(details_);
    m.set_data(grouped_);  // three levels: rule, group, finding
    QCOMPARE(m.rowCount(), 3);
    m.set_rule_hidden(QStringLiteral("pending-at-end"), true);
    m.set_rule_hidden(QStringLiteral("pending-at-end"), false);
    m.set_data(nullptr);
    QCOMPARE(m.rowCount(), 0);
  }

  // ---- model contents ----

  void threadDetailsModelRowsAndRoles() {
    ThreadDetailsModel m;
    m.set_data(details_);
    m.show_thread(index(1));
    QCOMPARE(names(m), (QStringList{"Thread", "Labels", "Timing", "Parent chain", "Children", "Waits on", "Read by",
                                    "Resolved by", "Notified by", "Edges"}));
    using S = ThreadDetailsModel::Section;
    // Every label, numbered (thread 1 has one).
    const QModelIndex labels = m.section_index(S::labels);
    QCOMPARE(child_texts(m, labels), (QStringList{"1"}));
    QCOMPARE(child_texts(m, labels, 1), (QStringList{"poll"}));
    const QModelIndex thread = m.section_index(S::thread);
    QCOMPARE(child_texts(m, thread), (QStringList{"id", "label", "kind", "site", "outcome", "parent"}));
    QCOMPARE(child_texts(m, thread, 1),
             (QStringList{"1", "poll", "task", "src/poll.cpp:41 (poll_loop)", "fail: boom", "thread 0"}));
    // The site row: the file's URL and line, for "Open in editor".
    const QModelIndex site = m.index(3, 0, thread);
    QCOMPARE(site.data(ThreadDetailsModel::FileUrlRole).toUrl(),
             QUrl::fromLocalFile(QDir::current().absoluteFilePath(QStringLiteral("src/poll.cpp"))));
    QCOMPARE(site.data(ThreadDetailsModel::SiteLineRole).toInt(), 41);
    QVERIFY(!m.index(0, 0, thread).data(ThreadDetailsModel::FileUrlRole).isValid());
    // The parent row is clickable, in both columns.
    QCOMPARE(m.index(5, 0, thread).data(ThreadDetailsModel::ThreadIdRole).toLongLong(), 0);
    QCOMPARE(m.index(5, 1, thread).data(ThreadDetailsModel::ThreadIdRole).toLongLong(), 0);
    QVERIFY(!m.index(0, 1, thread).data(ThreadDetailsModel::ThreadIdRole).isValid());

    const QModelIndex timing = m.section_index(S::timing);
    // Record times from the origin (FORMAT.md, "Times as Skein shows them"):
    // thread 1 is spawned by the trace's first record, at 1000 ns.
    QCOMPARE(child_texts(m, timing, 1), (QStringList{"1.00 µs", "1.20 µs", "2.00 µs", "1.00 µs", "500 ns"}));

    const QModelIndex read_by = m.section_index(S::read_by);
    QCOMPARE(text(m, read_by.row(), 1), QStringLiteral("2"));
    QCOMPARE(child_texts(m, read_by), (QStringList{"thread 2 (reader)", "thread 3"}));
    QCOMPARE(child_texts(m, read_by, 1), (QStringList{"at 2.10 µs", "at 2.20 µs"}));
    QCOMPARE(child_ids(m, read_by, ThreadDetailsModel::ThreadIdRole), (QList<qlonglong>{2, 3}));
    QCOMPARE(m.index(0, 0, read_by).data(ThreadDetailsModel::ThreadIndexRole).toUInt(), index(2));
    QCOMPARE(child_ids(m, m.section_index(S::resolved_by), ThreadDetailsModel::ThreadIdRole),
             (QList<qlonglong>{1}));
    // The scheduler is not a thread: no id to click.
    const QModelIndex notified = m.section_index(S::notified_by);
    QCOMPARE(child_texts(m, notified), (QStringList{"the scheduler"}));
    QCOMPARE(child_ids(m, notified, ThreadDetailsModel::ThreadIdRole), (QList<qlonglong>{-100}));
    QCOMPARE(m.rowCount(m.section_index(S::waits_on)), 0);
    QCOMPARE(text(m, m.section_index(S::waits_on).row(), 1), QStringLiteral("none"));
    QCOMPARE(child_ids(m, m.section_index(S::children), ThreadDetailsModel::ThreadIdRole), (QList<qlonglong>{2}));

    const QModelIndex edges = m.section_index(S::edges);
    QCOMPARE(child_texts(m, edges),
             (QStringList{"1.00 µs", "1.30 µs", "1.50 µs", "1.70 µs", "2.00 µs", "2.10 µs", "2.20 µs"}));
    QCOMPARE(text(m, 1, 1, edges), QStringLiteral("spawn: created thread 2 (reader)"));
    QCOMPARE(text(m, 3, 1, edges), QStringLiteral("notify: notified by the scheduler (io)"));
    QCOMPARE(child_ids(m, edges, ThreadDetailsModel::ThreadIdRole), (QList<qlonglong>{0, 2, 2, -100, 1, 2, 3}));

    QCOMPARE(m.details_text(), QString::fromStdString(thread_details_text(*details_, index(1))));

    // Thread 3: the parent chain, root first, each clickable.
    m.show_thread(index(3));
    const QModelIndex chain = m.section_index(S::parent_chain);
    QCOMPARE(child_texts(m, chain), (QStringList{"thread 0", "thread 1 (poll)", "thread 2 (reader)"}));
    QCOMPARE(child_texts(m, chain, 1), (QStringList{"", "task", "bind"}));
    QCOMPARE(child_ids(m, chain, ThreadDetailsModel::ThreadIdRole), (QList<qlonglong>{0, 1, 2}));
    // Thread 4: merged into 5 (clickable), never resolved, no site.
    m.show_thread(index(4));
    const QModelIndex four = m.section_index(S::thread);
    QCOMPARE(child_texts(m, four), (QStringList{"id", "label", "kind", "site", "outcome", "parent", "merged into"}));
    QCOMPARE(m.index(6, 1, four).data().toString(), QStringLiteral("thread 5"));
    QCOMPARE(m.index(6, 1, four).data(ThreadDetailsModel::ThreadIdRole).toLongLong(), 5);
    QVERIFY(m.site_url().isEmpty());
    QCOMPARE(text(m, 2, 1, m.section_index(S::timing)), QStringLiteral("pending at the end"));
  }

  void threadDetailsModelCapsLongSections() {
    // Thread 0 creates 5002 threads: the Children section shows the first
    // kMaxRowsPerSection and a "… 2 more" row; the copied text has them all.
    std::string trace = "(skein-trace 1 (process \"many\"))\n";
    for (int i = 1; i <= 5002; ++i) trace += "(spawn " + std::to_string(i) + " " + std::to_string(i) + " 0 task)\n";
    trace += "(end 6000)\n";
    test::TempDir dir;
    std::string error;
    const auto many = test::timeline_from_text(trace, dir, &error);
    QVERIFY2(many, error.c_str());
    ThreadDetailsModel m;
    QAbstractItemModelTester tester(&m, Mode::QtTest);
    m.set_data(many);
    m.show_thread(*many->thread_index(0));
    const QModelIndex children = m.section_index(ThreadDetailsModel::Section::children);
    QCOMPARE(text(m, children.row(), 1), QStringLiteral("5002"));
    QCOMPARE(m.rowCount(children), int(ThreadDetailsModel::kMaxRowsPerSection) + 1);
    const int last = m.rowCount(children) - 1;
    QCOMPARE(text(m, last, 0, children), QStringLiteral("… 2 more"));
    QVERIFY(!m.index(last, 0, children).data(ThreadDetailsModel::ThreadIdRole).isValid());
    QCOMPARE(m.index(last - 1, 0, children).data(ThreadDetailsModel::ThreadIdRole).toLongLong(), 5000);
    QVERIFY(m.details_text().contains(QStringLiteral(", thread 5002\n")));
  }

  void summaryModelMatchesSummarize() {
    auto store = TraceStore::open(dir_.file("details.db"));
    QVERIFY(store.ok());
    auto stored = store.value().threads();
    QVERIFY(stored.ok());
    SummaryModel m;
    m.set_data(details_);
    for (SummaryGrouping by : {SummaryGrouping::label, SummaryGrouping::kind, SummaryGrouping::site}) {
      m.set_grouping(by);
      const Summary expected = summarize(stored.value(), details_->sites, details_->end_time, by);
      QCOMPARE(m.rowCount(), static_cast<int>(expected.rows.size()));
      for (int r = 0; r < m.rowCount(); ++r) {
        const SummaryRow& e = expected.rows[static_cast<std::size_t>(r)];
        QCOMPARE(text(m, r, SummaryModel::NameColumn), QString::fromStdString(e.name));
        QCOMPARE(m.index(r, SummaryModel::PercentColumn).data(SummaryModel::SortRole).toDouble(), e.percent_time);
        QCOMPARE(m.index(r, SummaryModel::RunTimeColumn).data(SummaryModel::SortRole).toDouble(),
                 static_cast<double>(e.run_time));
        QCOMPARE(m.index(r, SummaryModel::ThreadsColumn).data(SummaryModel::SortRole).toDouble(),
                 static_cast<double>(e.threads));
        QCOMPARE(m.index(r, SummaryModel::FailuresColumn).data(SummaryModel::SortRole).toDouble(),
                 static_cast<double>(e.failures));
        QCOMPARE(m.index(r, SummaryModel::LifeMaxColumn).data(SummaryModel::SortRole).toDouble(), e.lifetime.max);
        QCOMPARE(m.index(r, SummaryModel::LifeStddevColumn).data(SummaryModel::SortRole).toDouble(),
                 e.lifetime.stddev);
        QCOMPARE(m.index(r, SummaryModel::RunAvgColumn).data(SummaryModel::SortRole).toDouble(), e.run.avg);
        QCOMPARE(m.thread_ids(r).size(), static_cast<std::size_t>(e.threads));
      }
    }
    // By kind, exactly: task (1, 4), bind (2, 5), map (3), (no kind) (0).
    m.set_grouping(SummaryGrouping::kind);
    QCOMPARE(names(m), (QStringList{"task", "bind", "map", "(no kind)"}));
    QCOMPARE(text(m, 0, SummaryModel::RunTimeColumn), QStringLiteral("520 ns"));
    QCOMPARE(text(m, 0, SummaryModel::PercentColumn), QStringLiteral("37.14"));  // 520 / 1400
    QCOMPARE(text(m, 0, SummaryModel::FailuresColumn), QStringLiteral("1"));
    QCOMPARE(m.index(0, SummaryModel::NameColumn).data(SummaryModel::ThreadIdsRole).value<Ids>(), (Ids{1, 4}));
    QCOMPARE(m.index(1, SummaryModel::LifeAvgColumn).data(SummaryModel::ThreadIdsRole).value<Ids>(), (Ids{2, 5}));
    QCOMPARE(m.index(3, 0).data(SummaryModel::ThreadCountRole).toULongLong(), 1ull);
    QCOMPARE(m.headerData(SummaryModel::NameColumn, Qt::Horizontal).toString(), QStringLiteral("Kind"));
    // By site: the five threads without one (900 ns of run time), then poll_loop's (500 ns).
    m.set_grouping(SummaryGrouping::site);
    QCOMPARE(names(m), (QStringList{"(no site)", "poll_loop (src/poll.cpp:41)"}));
    QCOMPARE(m.thread_ids(0), (Ids{0, 2, 3, 4, 5}));
  }

  void summarySortsNumerically() {
    SummaryModel m;
    m.set_data(groups_);
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&m);
    proxy.setSortRole(SummaryModel::SortRole);
    QCOMPARE(names(m), (QStringList{"gamma", "alpha", "beta", "(no label)"}));
    proxy.sort(SummaryModel::RunTimeColumn, Qt::AscendingOrder);
    QCOMPARE(names(proxy), (QStringList{"(no label)", "beta", "alpha", "gamma"}));
    QCOMPARE(text(proxy, 3, SummaryModel::RunTimeColumn), QStringLiteral("10.0 µs"));
    QCOMPARE(text(proxy, 2, SummaryModel::RunTimeColumn), QStringLiteral("2.00 µs"));
    QCOMPARE(text(proxy, 1, SummaryModel::RunTimeColumn), QStringLiteral("900 ns"));
    proxy.sort(SummaryModel::ThreadsColumn, Qt::AscendingOrder);
    QCOMPARE(names(proxy), (QStringList{"(no label)", "gamma", "beta", "alpha"}));
    proxy.sort(SummaryModel::ThreadsColumn, Qt::DescendingOrder);
    QCOMPARE(names(proxy), (QStringList{"alpha", "beta", "gamma", "(no label)"}));
    proxy.sort(SummaryModel::NameColumn, Qt::AscendingOrder);
    QCOMPARE(names(proxy), (QStringList{"(no label)", "alpha", "beta", "gamma"}));
  }

  void summaryDurationFilterHidesExactlyTheShortThreads() {
    SummaryModel m;
    m.set_data(groups_);
    QVERIFY(m.hidden_thread_ids().empty());
    m.set_duration_filter(200);  // beta's threads live 120 ns; alpha's 220
    QCOMPARE(m.hidden_thread_ids(), (Ids{11, 12, 13, 14, 15, 16, 17, 18, 19}));
    QCOMPARE(m.hidden_count(), 9ull);
    QCOMPARE(names(m), (QStringList{"gamma", "alpha", "(no label)"}));
    QCOMPARE(m.total().threads, 13ull);
    QVERIFY(m.hidden_threads()[group_index(11)]);
    QVERIFY(!m.hidden_threads()[group_index(10)]);
    m.set_duration_filter(221);  // alpha too
    QCOMPARE(m.hidden_thread_ids().size(), std::size_t(19));
    QCOMPARE(names(m), (QStringList{"gamma", "(no label)"}));
    m.set_duration_filter(0);
    QVERIFY(m.hidden_thread_ids().empty());
    QCOMPARE(m.rowCount(), 4);
  }

  void anomaliesInReportOrderMostSevereRuleFirst() {
    AnomalyModel m;
    m.set_data(details_);
    QCOMPARE(m.rules(), (QStringList{"unread-failure", "pending-at-end", "late-notify", "self-wake"}));
    // pending-at-end takes its most severe finding's severity.
    QCOMPARE(text(m, 1, AnomalyModel::ThreadColumn), QStringLiteral("error"));
    QCOMPARE(text(m, 2, AnomalyModel::ThreadColumn), QStringLiteral("warning"));
    QCOMPARE(text(m, 3, AnomalyModel::ThreadColumn), QStringLiteral("note"));
    QCOMPARE(text(m, 1, AnomalyModel::MessageColumn), QStringLiteral("2 findings"));
    QCOMPARE(text(m, 0, AnomalyModel::MessageColumn), QStringLiteral("1 finding"));
    const QModelIndex pending = m.rule_index(QStringLiteral("pending-at-end"));
    // Each finding's number (its place in the stored report) and its time
    // in µs since the origin: in the report's order, #2 before #3, though
    // #3 is the earlier.
    QCOMPARE(child_texts(m, pending), (QStringList{"#2  5.000 µs", "#3  4.900 µs"}));
    QCOMPARE(child_texts(m, pending, AnomalyModel::ThreadColumn), (QStringList{"thread 4", "thread 5"}));
    QCOMPARE(child_ids(m, pending, AnomalyModel::AnomalyIndexRole), (QList<qlonglong>{4, 3}));
    QCOMPARE(child_ids(m, pending, AnomalyModel::ThreadIdRole), (QList<qlonglong>{4, 5}));
    QCOMPARE(child_ids(m, pending, AnomalyModel::TimeRole), (QList<qlonglong>{5000, 4900}));
    QCOMPARE(child_ids(m, pending, AnomalyModel::FromIdRole), (QList<qlonglong>{-100, -100}));
    // Top to bottom, the rows read #1 to #5.
    QCOMPARE(test::outline_of(m), (QStringList{"rule unread-failure", "#1", "rule pending-at-end", "#2", "#3",
                                              "rule late-notify", "#4", "rule self-wake", "#5"}));
    QCOMPARE(m.display_order(), (std::vector<int>{1, 4, 3, 0, 2}));
    const QModelIndex late = m.rule_index(QStringLiteral("late-notify"));
    QCOMPARE(child_ids(m, late, AnomalyModel::AnomalyIndexRole), (QList<qlonglong>{0}));
    QCOMPARE(child_ids(m, late, AnomalyModel::ThreadIdRole), (QList<qlonglong>{1}));
    QCOMPARE(child_ids(m, late, AnomalyModel::FromIdRole), (QList<qlonglong>{0}));
    QCOMPARE(child_ids(m, late, AnomalyModel::SuspectIdRole), (QList<qlonglong>{2}));
    QCOMPARE(text(m, 0, AnomalyModel::MessageColumn, late), QStringLiteral("thread 1 was notified late"));
    QCOMPARE(m.index(0, 0, late).data(AnomalyModel::RuleRole).toString(), QStringLiteral("late-notify"));
    QCOMPARE(m.index(0, 0, late).data(AnomalyModel::SeverityRole).toString(), QStringLiteral("warning"));
  }

  void anomaliesGroupedAsTheTextReport() {
    // The same findings, stored, in the dock and printed by `skein lint`:
    // one outline, rows #1 to #5 from the top, pending-at-end's groups as
    // the text's sub-headings (not by time: #4 is the earliest).
    AnomalyModel m;
    m.set_data(grouped_);
    const std::string report = render_lint_text(test::grouped_report(), {}, [](std::uint32_t) { return std::string(); });
    const QStringList expected{"rule missing-notification",
                               "#1",
                               "rule pending-at-end",
                               "group created by thread 0: 2 promises pending since 0.002650 ms",
                               "#2",
                               "#3",
                               "group reader loop: 1 promise pending since 0.001300 ms",
                               "#4",
                               "rule self-wake",
                               "#5"};
    QCOMPARE(test::outline_of_text(report), expected);
    QCOMPARE(test::outline_of(m), expected);
    // The group rows: a heading, the severity of their worst finding, no
    // finding of their own; their findings carry the group too.
    const QModelIndex pending = m.rule_index(QStringLiteral("pending-at-end"));
    QCOMPARE(m.rowCount(pending), 2);
    const QModelIndex first = m.index(0, 0, pending);
    QVERIFY(m.is_group(first));
    QVERIFY(!first.data(AnomalyModel::AnomalyIndexRole).isValid());
    QCOMPARE(first.data(AnomalyModel::SeverityRole).toString(), QStringLiteral("warning"));
    QCOMPARE(m.index(1, 0, pending).data(AnomalyModel::SeverityRole).toString(), QStringLiteral("note"));
    QCOMPARE(m.index(0, AnomalyModel::MessageColumn, pending).data().toString(), QString());
    QCOMPARE(child_ids(m, first, AnomalyModel::ThreadIdRole), (QList<qlonglong>{4, 5}));
    QCOMPARE(m.index(1, 0, first).data(AnomalyModel::GroupRole).toString(), first.data().toString());
    QVERIFY(!m.flags(first).testFlag(Qt::ItemIsUserCheckable));
    QVERIFY(!m.flags(first).testFlag(Qt::ItemNeverHasChildren));
    QVERIFY(m.flags(m.index(0, 0, first)).testFlag(Qt::ItemNeverHasChildren));
    QCOMPARE(text(m, pending.row(), AnomalyModel::MessageColumn), QStringLiteral("3 findings"));
    // Hiding the rule greys its groups' findings too.
    QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
    m.set_rule_hidden(QStringLiteral("pending-at-end"), true);
    QVERIFY(m.index(1, 0, first).data(Qt::ForegroundRole).isValid());
    bool grey_under_group = false;
    for (const QList<QVariant>& args : changed)
      if (args.at(0).value<QModelIndex>().parent() == first) grey_under_group = true;
    QVERIFY(grey_under_group);
  }

  void hidingARule() {
    AnomalyModel m;
    m.set_data(details_);
    QSignalSpy hidden(&m, &AnomalyModel::hidden_rules_changed);
    QSignalSpy changed(&m, &QAbstractItemModel::dataChanged);
    const QModelIndex late = m.rule_index(QStringLiteral("late-notify"));
    QVERIFY(m.flags(late).testFlag(Qt::ItemIsUserCheckable));
    QCOMPARE(late.data(Qt::CheckStateRole).toInt(), int(Qt::Checked));
    QVERIFY(m.setData(late, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(late.data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    QCOMPARE(hidden.count(), 1);
    QCOMPARE(hidden.last().at(0).toStringList(), QStringList{"late-notify"});
    QVERIFY(changed.count() >= 1);
    QCOMPARE(m.visible_anomalies(), (std::vector<int>{1, 2, 3, 4}));
    QCOMPARE(m.rowCount(), 4);  // the rule stays, unchecked
    m.set_rule_hidden(QStringLiteral("pending-at-end"), true);
    QCOMPARE(m.hidden_rules(), (QStringList{"late-notify", "pending-at-end"}));
    QCOMPARE(m.visible_anomalies(), (std::vector<int>{1, 2}));
    // Kept across traces, like a preference.
    m.set_data(details_);
    QCOMPARE(m.hidden_rules(), (QStringList{"late-notify", "pending-at-end"}));
    QCOMPARE(m.rule_index(QStringLiteral("late-notify")).data(Qt::CheckStateRole).toInt(), int(Qt::Unchecked));
    m.set_hidden_rules({});
    QCOMPARE(m.visible_anomalies(), (std::vector<int>{0, 1, 2, 3, 4}));
    QCOMPARE(hidden.count(), 3);
    QVERIFY(!m.setData(m.index(0, 0, late), Qt::Unchecked, Qt::CheckStateRole));  // findings are not checkable
  }

  // ---- the docks ----

  void detailsDockEmitsTheClickedThread() {
    ThreadDetailsDock dock;
    dock.resize(500, 900);
    dock.set_data(details_);
    dock.show_thread(index(3));
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    QSignalSpy activated(&dock, &ThreadDetailsDock::thread_activated);
    QTreeView* view = dock.view();
    const QModelIndex chain = dock.model()->section_index(ThreadDetailsModel::Section::parent_chain);
    const QModelIndex one = dock.model()->index(1, ThreadDetailsModel::ValueColumn, chain);  // thread 1 (poll)
    view->scrollTo(one);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(one).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.last().at(0).value<ThreadId>(), ThreadId(1));
    // A row about no thread (the id) emits nothing.
    const QModelIndex id_row = dock.model()->index(0, 0, dock.model()->section_index(ThreadDetailsModel::Section::thread));
    view->scrollTo(id_row);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(id_row).center());
    QCOMPARE(activated.count(), 1);
    // Read by of thread 1: the second reader is thread 3.
    dock.show_thread(index(1));
    const QModelIndex read_by = dock.model()->section_index(ThreadDetailsModel::Section::read_by);
    const QModelIndex three = dock.model()->index(1, 0, read_by);
    view->scrollTo(three);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(three).center());
    QCOMPARE(activated.count(), 2);
    QCOMPARE(activated.last().at(0).value<ThreadId>(), ThreadId(3));
  }

  void detailsDockCopiesAndOpensTheSite() {
    ThreadDetailsDock dock;
    QList<QUrl> opened;
    dock.set_url_opener([&](const QUrl& url) {
      opened << url;
      return true;
    });
    dock.set_data(details_);
    QVERIFY(!dock.copy_button()->isEnabled());
    dock.show_thread(index(1));
    QVERIFY(dock.copy_button()->isEnabled());
    QVERIFY(dock.open_button()->isEnabled());
    QApplication::clipboard()->clear();
    QTest::mouseClick(dock.copy_button(), Qt::LeftButton);
    QCOMPARE(QApplication::clipboard()->text(), QString::fromStdString(thread_details_text(*details_, index(1))));
    QTest::mouseClick(dock.open_button(), Qt::LeftButton);
    QCOMPARE(opened,
             (QList<QUrl>{QUrl::fromLocalFile(QDir::current().absoluteFilePath(QStringLiteral("src/poll.cpp")))}));
    dock.show_thread(index(4));  // no site
    QVERIFY(!dock.open_button()->isEnabled());
    QVERIFY(!dock.open_in_editor());
    QCOMPARE(opened.size(), 1);
  }

  void summaryDockHighlightsTheSelectedGroups() {
    SummaryDock dock;
    dock.resize(900, 400);
    dock.set_data(groups_);
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    QSignalSpy highlighted(&dock, &SummaryDock::threads_highlighted);
    QTableView* view = dock.view();
    const int gamma = row_named(*dock.proxy(), QStringLiteral("gamma"));
    QVERIFY(gamma >= 0);
    const QModelIndex cell = dock.proxy()->index(gamma, SummaryModel::ThreadsColumn);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(cell).center());
    QCOMPARE(highlighted.count(), 1);
    QCOMPARE(last_ids(highlighted), (Ids{20, 21}));
    // Ctrl-click adds beta's.
    const QModelIndex beta = dock.proxy()->index(row_named(*dock.proxy(), QStringLiteral("beta")), 0);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::ControlModifier, view->visualRect(beta).center());
    QCOMPARE(last_ids(highlighted), (Ids{11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21}));
    // Switching the grouping resets the table: the highlight is dropped.
    const int before = highlighted.count();
    dock.grouping_box()->setCurrentIndex(1);  // kind
    QCOMPARE(dock.model()->grouping(), SummaryGrouping::kind);
    QCOMPARE(names(*dock.proxy()), (QStringList{"task", "(no kind)"}));
    QCOMPARE(highlighted.count(), before + 1);
    QVERIFY(last_ids(highlighted).empty());
  }

  void summaryDockElidesALongLabel() {
    // A merge chain's label, as net.ctf's poll loop has: 30 labels joined.
    std::string label;
    for (int i = 0; i < 30; ++i) label += (i ? " \xc2\xb7 " : "") + std::string("Netif.rx_poll");
    const std::string trace = "(skein-trace 1)\n(spawn 0 1 0 task)\n(label 1 1 \"" + label +
                              "\")\n(switch 2 1)\n(resolve 3 1 1 ok)\n(switch 4 -1)\n(end 5)\n";
    std::string error;
    const auto data = test::timeline_from_text(trace, dir_, &error, {}, "long-label");
    QVERIFY2(data, error.c_str());
    SummaryDock dock;
    dock.resize(1500, 400);  // the dock's width in a 1600-pixel window
    dock.set_data(data);
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    QTableView* view = dock.view();
    const QString full = QString::fromStdString(label);
    const int row = row_named(*dock.proxy(), full);
    QVERIFY(row >= 0);
    // Sized by its contents, then capped: the numbers stay on screen.
    QVERIFY(view->fontMetrics().horizontalAdvance(full) > SummaryDock::kMaxNameWidth);
    QCOMPARE(view->columnWidth(SummaryModel::NameColumn), SummaryDock::kMaxNameWidth);
    QVERIFY(view->columnViewportPosition(SummaryModel::RunStddevColumn) +
                view->columnWidth(SummaryModel::RunStddevColumn) <=
            view->viewport()->width());
    QCOMPARE(dock.proxy()->index(row, SummaryModel::NameColumn).data(Qt::ToolTipRole).toString(), full);
  }

  void summaryDockDurationFilter() {
    SummaryDock dock;
    dock.set_data(groups_);
    QSignalSpy filter(&dock, &SummaryDock::duration_filter_changed);
    QLineEdit* edit = dock.duration_edit();
    QTest::keyClicks(edit, QStringLiteral("200ns"));
    QTest::keyClick(edit, Qt::Key_Return);
    QCOMPARE(filter.count(), 1);
    QCOMPARE(filter.last().at(0).value<TimeNs>(), TimeNs(200));
    QCOMPARE(dock.model()->hidden_thread_ids(), (Ids{11, 12, 13, 14, 15, 16, 17, 18, 19}));
    QCOMPARE(dock.proxy()->rowCount(), 3);
    QVERIFY(dock.status_label()->text().contains(QStringLiteral("9 shorter than 200 ns hidden")));
    // Not a duration: no change, and a message.
    QVERIFY(!dock.set_duration_filter_text(QStringLiteral("soon")));
    QCOMPARE(filter.count(), 1);
    QCOMPARE(dock.model()->duration_filter(), TimeNs(200));
    QVERIFY(dock.status_label()->text().contains(QStringLiteral("'soon' is not a duration")));
    QVERIFY(dock.set_duration_filter_text(QStringLiteral("1 us")));
    QCOMPARE(filter.last().at(0).value<TimeNs>(), TimeNs(1000));
    QCOMPARE(dock.model()->hidden_thread_ids().size(), std::size_t(19));
    QVERIFY(dock.set_duration_filter_text(QString()));
    QCOMPARE(filter.last().at(0).value<TimeNs>(), TimeNs(0));
    QVERIFY(dock.model()->hidden_thread_ids().empty());
  }

  void anomalyDockEmitsTheClickedFinding() {
    AnomalyDock dock;
    dock.resize(700, 500);
    dock.set_data(details_);
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    QSignalSpy activated(&dock, &AnomalyDock::anomaly_activated);
    QSignalSpy hidden(&dock, &AnomalyDock::hidden_rules_changed);
    QTreeView* view = dock.view();
    const QModelIndex pending = dock.model()->rule_index(QStringLiteral("pending-at-end"));
    const QModelIndex second = dock.model()->index(1, AnomalyModel::MessageColumn, pending);  // #3, thread 5's
    view->scrollTo(second);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(second).center());
    QCOMPARE(activated.count(), 1);
    QCOMPARE(activated.last().at(0).toInt(), 3);
    // A click on a rule row (its message column) only selects it.
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {},
                      view->visualRect(dock.model()->index(pending.row(), AnomalyModel::MessageColumn)).center());
    QCOMPARE(activated.count(), 1);
    // Unchecking the rule is reported by the dock.
    QVERIFY(dock.model()->setData(pending, Qt::Unchecked, Qt::CheckStateRole));
    QCOMPARE(hidden.count(), 1);
    QCOMPARE(hidden.last().at(0).toStringList(), QStringList{"pending-at-end"});
    QVERIFY(dock.status_label()->text().startsWith(QStringLiteral("5 findings under 4 rules")));
    // The click stated the finding, its severity and what to do about it.
    QVERIFY(dock.advice_label()->isVisible() || !dock.isVisible());
    QVERIFY(dock.advice_label()->text().contains(QStringLiteral("<b>#3</b>")));
    QVERIFY(dock.advice_label()->text().contains(QStringLiteral(">error</b>")));
    QVERIFY(dock.advice_label()->text().contains(QStringLiteral("What to do:</i> resolve thread 5")));
    dock.set_linting(true);
    dock.set_data(groups_);
    QVERIFY(dock.status_label()->text().startsWith(QStringLiteral("Running the lints")));
    dock.set_linting(false);
    QVERIFY(dock.status_label()->text().startsWith(QStringLiteral("The lints found nothing")));
    dock.set_error(QStringLiteral("t.db: disk I/O error"));
    QVERIFY(dock.status_label()->text().contains(QStringLiteral("could not run: t.db: disk I/O error")));
  }

  void anomalyDockCountsItsFindings() {
    // The status line, the tab's title and the tally (the status bar's
    // text), with nouns that agree with their counts.
    AnomalyDock dock;
    QSignalSpy tally(&dock, &AnomalyDock::tally_changed);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies"));
    QCOMPARE(dock.tally(), QString());
    dock.set_data(details_);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies (5)"));
    QVERIFY(dock.status_label()->text().startsWith(QStringLiteral("5 findings under 4 rules")));
    QCOMPARE(dock.tally(), QStringLiteral("5 findings: 2 errors, 2 warnings, 1 note"));
    QCOMPARE(tally.last().at(0).toString(), dock.tally());

    // One finding under one rule.
    test::TempDir dir;
    std::string error;
    const auto one = test::timeline_from_text(test::kDetailsTrace, dir, &error, {test::details_findings().back()});
    QVERIFY2(one, error.c_str());
    dock.set_data(one);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies (1)"));
    QVERIFY2(dock.status_label()->text().startsWith(QStringLiteral("1 finding under 1 rule,")),
             qPrintable(dock.status_label()->text()));
    QCOMPARE(dock.tally(), QStringLiteral("1 finding: 1 note"));

    // Sixteen notes under one rule, as on the 2014 MirageOS x86 trace.
    std::vector<LintFinding> notes;
    for (int k = 0; k < 16; ++k) {
      LintFinding f = test::details_findings().back();
      f.time += k;
      notes.push_back(f);
    }
    const auto sixteen = test::timeline_from_text(test::kDetailsTrace, dir, &error, notes, "sixteen");
    QVERIFY2(sixteen, error.c_str());
    dock.set_data(sixteen);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies (16)"));
    QVERIFY(dock.status_label()->text().startsWith(QStringLiteral("16 findings under 1 rule,")));
    QCOMPARE(dock.tally(), QStringLiteral("16 findings: 16 notes"));

    // While the lints run, once they found nothing, when they failed.
    dock.set_data(groups_);
    dock.set_linting(true);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies"));
    QCOMPARE(dock.tally(), QStringLiteral("Running the lints…"));
    dock.set_linting(false);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies (0)"));
    QCOMPARE(dock.tally(), QStringLiteral("No findings"));
    QCOMPARE(tally.last().at(0).toString(), QStringLiteral("No findings"));
    dock.set_error(QStringLiteral("t.db: disk I/O error"));
    QCOMPARE(dock.tally(), QStringLiteral("The lints could not run"));
    dock.set_data(nullptr);
    QCOMPARE(dock.windowTitle(), QStringLiteral("Anomalies"));
    QCOMPARE(dock.tally(), QString());
  }

  void anomalyDockSpansItsGroupHeadings() {
    AnomalyDock dock;
    dock.resize(700, 500);
    dock.set_data(grouped_);
    dock.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dock));
    QTreeView* view = dock.view();
    const QModelIndex pending = dock.model()->rule_index(QStringLiteral("pending-at-end"));
    QVERIFY(view->isFirstColumnSpanned(0, pending));
    QVERIFY(view->isFirstColumnSpanned(1, pending));
    QVERIFY(!view->isFirstColumnSpanned(0, dock.model()->index(0, 0, pending)));
    QVERIFY(view->isExpanded(dock.model()->index(0, 0, pending)));
    // A click on a group's heading explains nothing and activates nothing.
    QSignalSpy activated(&dock, &AnomalyDock::anomaly_activated);
    const QModelIndex heading = dock.model()->index(0, 0, pending);
    view->scrollTo(heading);
    QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, view->visualRect(heading).center());
    QCOMPARE(activated.count(), 0);
    QVERIFY(!dock.advice_label()->isVisible());
  }

  void searchBarFindsAndSteps() {
    SearchBar bar;
    bar.set_data(details_);
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    QSignalSpy matches(&bar, &SearchBar::matches_changed);
    QSignalSpy current(&bar, &SearchBar::current_changed);
    QSignalSpy closed(&bar, &SearchBar::closed);
    bar.activate();
    QTest::keyClicks(bar.line_edit(), QStringLiteral("task"));
    QCOMPARE(matches.count(), 4);  // one search a keystroke
    QCOMPARE(last_ids(matches), (Ids{1, 4}));
    QCOMPARE(bar.count_label()->text(), QStringLiteral("2 matches"));
    QTest::keyClick(bar.line_edit(), Qt::Key_Return);
    QCOMPARE(current.count(), 1);
    QCOMPARE(current.last().at(0).value<ThreadId>(), ThreadId(1));
    QCOMPARE(bar.count_label()->text(), QStringLiteral("1 of 2"));
    QTest::keyClick(bar.line_edit(), Qt::Key_Return);
    QCOMPARE(current.last().at(0).value<ThreadId>(), ThreadId(4));
    QTest::keyClick(bar.line_edit(), Qt::Key_Return);  // wraps
    QCOMPARE(current.last().at(0).value<ThreadId>(), ThreadId(1));
    QTest::keyClick(bar.line_edit(), Qt::Key_Return, Qt::ShiftModifier);  // back, wrapping
    QCOMPARE(current.last().at(0).value<ThreadId>(), ThreadId(4));
    QCOMPARE(bar.count_label()->text(), QStringLiteral("2 of 2"));
    QTest::mouseClick(bar.previous_button(), Qt::LeftButton);
    QCOMPARE(current.last().at(0).value<ThreadId>(), ThreadId(1));
    QCOMPARE(current.count(), 5);

    // A regular expression: labels poll and reader exactly.
    bar.line_edit()->setText(QStringLiteral("^(poll|reader)$"));
    QCOMPARE(last_ids(matches), Ids{});  // as a substring, nothing
    bar.regex_box()->setChecked(true);
    QCOMPARE(last_ids(matches), (Ids{1, 2}));
    // An invalid one: no matches and the message, no exception.
    bar.line_edit()->setText(QStringLiteral("(poll"));
    QVERIFY(last_ids(matches).empty());
    QVERIFY(bar.count_label()->text().startsWith(QStringLiteral("invalid regular expression: ")));
    QVERIFY(!bar.next_button()->isEnabled());
    QTest::keyClick(bar.line_edit(), Qt::Key_Return);
    QCOMPARE(current.count(), 5);
    // An id.
    bar.regex_box()->setChecked(false);
    bar.line_edit()->setText(QStringLiteral("#5"));
    QCOMPARE(last_ids(matches), Ids{5});

    // Esc hides the bar.
    QTest::keyClick(bar.line_edit(), Qt::Key_Escape);
    QCOMPARE(closed.count(), 1);
    QVERIFY(!bar.isVisible());
    bar.activate();
    QVERIFY(bar.isVisible());
    // Another trace: searched again.
    bar.set_data(groups_);
    QCOMPARE(last_ids(matches), Ids{5});
    bar.line_edit()->setText(QStringLiteral("gamma"));
    QCOMPARE(last_ids(matches), (Ids{20, 21}));
  }
};

QTEST_MAIN(InspectionModelsTest)
#include "inspection_models_test.moc"
