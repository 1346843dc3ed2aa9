// trace_analysis_test.cpp — the viewer's analysis worker (TraceAnalysis)
// against a database that changes under it: a reload that re-imports a
// changed trace into the same cache file while the last trace's lint is
// about to store its results, and a database replaced at its path by
// someone else between the lint's read and its write; and the label
// lists, read after the load and delivered before the lint is done.
//
// The traces' findings are worked out from LINTS.md's pending-at-end rule,
// not from the code under test: every spawned thread that is never resolved
// is one promise pending when the trace ends, so a trace that spawns N
// threads and resolves none has N pending-at-end findings.
//
// The lint is held right before it stores (set_before_storing), for longer
// than the 2 s a replacement gives a writer (database_replacement.cpp), so
// only a load that really waits for the analysis to let go passes.
#include <QCoreApplication>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <optional>
#include <string>

#include "recorder/store/sqlite_database.hpp"
#include "recorder/store/trace_import.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/app/trace_analysis.hpp"
#include "viewer/app/trace_loader.hpp"
#include "viewer/timeline/thread_details.hpp"

using namespace skein;

namespace {

// A trace whose main thread spawns `threads` tasks and resolves none.
std::string spawning_trace(int threads) {
  std::string t = "(skein-trace 1)\n";
  for (int i = 1; i <= threads; ++i) t += "(spawn " + std::to_string(i * 1000) + " " + std::to_string(i) + " 0 task)\n";
  t += "(end 100000)\n";
  return t;
}

std::size_t pending_at_end(const std::vector<LintFinding>& findings) {
  std::size_t n = 0;
  for (const LintFinding& f : findings) n += f.rule == LintRuleId::pending_at_end;
  return n;
}

// Holds the first caller until release(); later callers pass.
class StoreGate {
 public:
  StoreGate() : reached_future_(reached_.get_future()), released_(release_.get_future().share()) {}
  std::function<void()> hook() {
    return [this] {
      if (calls_.fetch_add(1) != 0) return;
      reached_.set_value();
      released_.wait();
    };
  }
  bool wait_reached() { return reached_future_.wait_for(std::chrono::seconds(20)) == std::future_status::ready; }
  void release() { release_.set_value(); }

 private:
  std::atomic<int> calls_{0};
  std::promise<void> reached_;
  std::future<void> reached_future_;
  std::promise<void> release_;
  std::shared_future<void> released_;
};

}  // namespace

class TraceAnalysisTest : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir dir_;

  QString write(const QString& name, const std::string& text) {
    const QString path = dir_.filePath(name);
    std::ofstream(path.toStdString(), std::ios::trunc) << text;
    return path;
  }

 private slots:
  void aReloadWaitsForTheLastLintAndShowsTheNewTracesFindings() {
    const QString trace = write(QStringLiteral("growing.sexp"), spawning_trace(1));
    const QString cache = dir_.filePath(QStringLiteral("cache"));
    TraceLoader loader;
    TraceAnalysis analysis;
    StoreGate gate;
    analysis.set_before_storing(gate.hook());
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy failed(&loader, &TraceLoader::failed);
    QSignalSpy ready(&analysis, &TraceAnalysis::findings_ready);

    loader.load(trace, cache);
    QVERIFY(loaded.wait(20000));
    auto first = loaded.takeFirst().at(1).value<std::shared_ptr<const TimelineData>>();
    analysis.open(first->database, first);
    QVERIFY(gate.wait_reached());  // the first lint is done and about to store

    // The trace grows (another size, so the cache is stale) and is
    // reloaded as the window reloads: the analysis is closed first.
    write(QStringLiteral("growing.sexp"), spawning_trace(3));
    const quint64 job = loader.load(trace, cache, analysis.close());
    // The load waits for the held lint, longer than any replacement would.
    QVERIFY(!loaded.wait(2500));
    QCOMPARE(failed.count(), 0);
    gate.release();
    QVERIFY2(loaded.wait(20000), failed.isEmpty() ? "" : qPrintable(failed.first().at(1).toString()));
    QCOMPARE(loaded.first().at(0).value<quint64>(), job);
    auto second = loaded.first().at(1).value<std::shared_ptr<const TimelineData>>();
    QCOMPARE(second->source, first->source);  // the same cache file, replaced

    analysis.open(second->database, second);
    QVERIFY(ready.wait(20000));
    // Only the new trace's lint reported: the closed one delivered nothing.
    QCOMPARE(ready.count(), 1);
    const QList<QVariant> got = ready.first();
    QCOMPARE(got.at(0).value<quint64>(), analysis.generation());
    QVERIFY2(got.at(5).toString().isEmpty(), qPrintable(got.at(5).toString()));
    // It ran on the new database (the closed lint stored nothing there) and
    // found the three pending promises of the new trace.
    QVERIFY(got.at(3).toBool());
    QCOMPARE(pending_at_end(got.at(1).value<std::vector<LintFinding>>()), std::size_t(3));
  }

  void aLintNeverStoresIntoTheDatabaseThatReplacedTheOneItRead() {
    const QString one = write(QStringLiteral("one.sexp"), spawning_trace(1));
    const QString two = write(QStringLiteral("two.sexp"), spawning_trace(2));
    const std::string db = dir_.filePath(QStringLiteral("replaced.db")).toStdString();
    ImportOptions options;
    options.sync = false;
    QVERIFY(import_trace(one.toStdString(), db, options).ok());
    TraceAnalysis analysis;
    StoreGate gate;
    analysis.set_before_storing(gate.hook());
    QSignalSpy ready(&analysis, &TraceAnalysis::findings_ready);
    auto first = TraceStore::open(db);
    QVERIFY(first.ok());
    analysis.open(first.value().owner(), nullptr);
    QVERIFY(gate.wait_reached());
    // Someone else imports another trace to the same path meanwhile.
    QVERIFY(import_trace(two.toStdString(), db, options).ok());
    gate.release();
    QVERIFY(ready.wait(20000));
    const QList<QVariant> got = ready.first();
    QVERIFY2(got.at(5).toString().isEmpty(), qPrintable(got.at(5).toString()));
    // The lint reports what it read (trace one's single pending promise),
    // kept for the session, not stored...
    QVERIFY(got.at(3).toBool());
    QVERIFY(!got.at(4).toBool());
    QCOMPARE(pending_at_end(got.at(1).value<std::vector<LintFinding>>()), std::size_t(1));
    // ...and trace two's database holds no findings.
    auto opened = SqliteDatabase::open_untrusted(db);
    QVERIFY(opened.ok());
    auto present = lint_results_present(opened.value());
    QVERIFY(present.ok());
    QVERIFY(!present.value().findings);
    QVERIFY(!present.value().causes);
    // Why? still answers from the causes kept for the session: thread 1 of
    // trace one, asked at its end, goes back to its spawn by the main thread.
    std::optional<Result<WhyAnswer>> answer;
    WhyQuestion q;
    q.thread = 1;
    analysis.ask_why([q](WhyEngine& engine) { return engine.answer(q); },
                     [&](Result<WhyAnswer> a) { answer.emplace(std::move(a)); });
    QTRY_VERIFY_WITH_TIMEOUT(answer.has_value(), 20000);
    QVERIFY2(answer->ok(), answer->ok() ? "" : answer->error().to_string().c_str());
    QCOMPARE(answer->value().subject, ThreadId(1));
    QCOMPARE(answer->value().start_time, TimeNs(1000));
  }

  void theLabelListsComeAfterTheLoadAndBeforeTheLint() {
    // Thread 1 is labelled a, b, a, c, d, e (five distinct, in that order);
    // thread 2 once; both pending at the end.
    const std::string trace =
        "(skein-trace 1)\n(spawn 10 1 0 task)\n(spawn 20 2 0 task)\n(label 30 2 \"only\")\n"
        "(label 40 1 \"a\")\n(label 50 1 \"b\")\n(label 60 1 \"a\")\n(label 70 1 \"c\")\n"
        "(label 80 1 \"d\")\n(label 90 1 \"e\")\n(end 1000)\n";
    const QString path = write(QStringLiteral("labelled.sexp"), trace);
    TraceLoader loader;
    TraceAnalysis analysis;
    StoreGate gate;
    analysis.set_before_storing(gate.hook());
    QSignalSpy loaded(&loader, &TraceLoader::loaded);
    QSignalSpy labels(&analysis, &TraceAnalysis::labels_ready);
    QSignalSpy ready(&analysis, &TraceAnalysis::findings_ready);
    loader.load(path, dir_.filePath(QStringLiteral("labels-cache")));
    QVERIFY(loaded.wait(20000));
    auto data = loaded.first().at(1).value<std::shared_ptr<const TimelineData>>();
    // Loaded with the counts and the row texts, not the lists.
    const std::uint32_t one = *data->thread_index(1), two = *data->thread_index(2);
    QCOMPARE(data->text(data->threads[one].label), std::string("a · b · c · +2 more"));
    QCOMPARE(data->label_count(one), std::size_t(5));
    QVERIFY(data->labels_pending(one));
    QVERIFY(data->labels_of(one).empty());
    QVERIFY(!data->labels_pending(two));
    QCOMPARE(data->labels_of(two), std::vector<std::string>{"only"});
    QVERIFY(thread_details_text(*data, one).find("  labels (5): still being read\n") != std::string::npos);

    analysis.open(data->database, data);
    // The lists arrive while the lint is held before it stores.
    QVERIFY(gate.wait_reached());
    QVERIFY(labels.count() == 1 || labels.wait(20000));
    QCOMPARE(ready.count(), 0);
    const QList<QVariant> got = labels.first();
    QCOMPARE(got.at(0).value<quint64>(), analysis.generation());
    QVERIFY2(got.at(2).toString().isEmpty(), qPrintable(got.at(2).toString()));
    const auto lists = got.at(1).value<std::shared_ptr<const ThreadLabelLists>>();
    QVERIFY(lists);
    QCOMPARE(lists->size(), std::size_t(1));
    QCOMPARE(lists->at(1), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
    gate.release();
    QVERIFY(ready.wait(20000));

    // A trace with no thread of several labels gets no lists to wait for.
    const QString plain = write(QStringLiteral("plain.sexp"), spawning_trace(2));
    loader.load(plain, dir_.filePath(QStringLiteral("labels-cache")), analysis.close());
    QVERIFY(loaded.wait(20000));
    auto second = loaded.last().at(1).value<std::shared_ptr<const TimelineData>>();
    QVERIFY(!second->label_counts);
    analysis.open(second->database, second);
    QVERIFY(ready.wait(20000));
    QCOMPARE(labels.count(), 1);
  }

  void closingWithNoTraceOpenIsReadyAndQuestionsGetAnError() {
    TraceAnalysis analysis;
    const std::shared_future<void> released = analysis.close();
    QVERIFY(released.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
    bool answered = false;
    QString error;
    analysis.ask_why([](WhyEngine&) -> Result<WhyAnswer> { return WhyAnswer{}; },
                     [&](Result<WhyAnswer> got) {
                       answered = true;
                       if (!got) error = QString::fromStdString(got.error().to_string());
                     });
    QVERIFY(!answered);  // answers come on a later turn of the event loop
    QTRY_VERIFY(answered);
    QVERIFY2(error.contains(QStringLiteral("no trace is open")), qPrintable(error));
  }
};

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  TraceAnalysisTest test;
  return QTest::qExec(&test, argc, argv);
}

#include "trace_analysis_test.moc"
