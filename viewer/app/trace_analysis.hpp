// trace_analysis.hpp — what skein-view works out about an opened trace off
// the UI thread, after the first frame: the lints (their findings, for the
// markers and the Anomalies dock) and the answers of the Why? panel.
//
// One BackgroundWorker (background_worker.hpp): every job runs on its
// thread in the order it was asked, and only there are the trace's
// database, the why-engine and the records it keeps touched. Results come
// back to the UI thread by the worker's deliver(), each tagged with the
// trace it was for, so a result for a trace replaced meanwhile is dropped.
//
// Opening a trace (open()) starts the lints at once: a database that
// holds a lint's results already (anomaly_table.hpp: `anomalies` and
// `transfer_blocks`) is used as it is; otherwise every rule runs, with the
// replay's verdicts kept, and the results are stored in the database, or,
// when it cannot be written, kept for the session in the connection's temp
// schema. findings_ready() then carries the findings: the ones the
// lint made now, or the ones the database held, read on the worker (the
// timeline is loaded without them, so they never delay its first frame).
// Before the lint, the same job reads the label lists of the threads that
// have several (thread_label_lists.hpp), which the timeline is loaded
// without too, and labels_ready() carries them: a list of a million labels
// never delays the first frame, and the lint never delays the lists.
//
// Letting go (close()): a load that may replace the database (a reload
// re-imports a changed trace into the same cache file) first closes the
// analysis and waits for the future close() gives. Until it is ready the
// worker may still read the old database or write the lint's results into
// it; once it is, nothing here holds or writes it. A running lint stops at
// its next batch of records and stores nothing; questions still queued are
// dropped. The worker reads and writes only through the database's owner
// (recorder/store/trace_database.hpp), so results are only ever written into
// the very file the timeline and the lint read, whoever else replaces it.
// The owner holds no connection itself: the timeline may keep it.
#pragma once

#include <QObject>
#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "viewer/analysis/lint_finding.hpp"
#include "viewer/app/background_worker.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/analysis/why_answer.hpp"

namespace skein {

class TraceAnalysis : public QObject {
  Q_OBJECT

 public:
  explicit TraceAnalysis(QObject* parent = nullptr);
  ~TraceAnalysis() override;

  // A new trace database, by its owner: drops what was kept for the last,
  // and lints. `timeline` is the trace as loaded from it, whose thread
  // index maps stored findings; the worker only reads it.
  void open(std::shared_ptr<TraceDatabase> database, std::shared_ptr<const TimelineData> timeline);
  // Drops the open trace, as described above; ready at once when none is
  // open. Results still to come for it are never delivered.
  std::shared_future<void> close();
  [[nodiscard]] quint64 generation() const { return generation_; }
  [[nodiscard]] bool linting() const { return linting_; }

  // Runs on the worker right before a lint made on open() stores its
  // results: lets a test hold the worker there (nullptr: nothing runs).
  void set_before_storing(std::function<void()> hook);

  // Runs `job` on the worker with the trace's why-engine (opened, and the
  // lint run, first when needed), then `done` on the UI thread with its
  // result, unless another trace was opened meanwhile.
  using WhyJob = std::function<Result<WhyAnswer>(WhyEngine&)>;
  void ask_why(WhyJob job, std::function<void(Result<WhyAnswer>)> done);
  // The same with the trace's records in order (read once, then kept).
  using EventsJob = std::function<std::vector<WhyStep>(const std::vector<TraceEvent>&)>;
  void ask_events(EventsJob job, std::function<void(Result<std::vector<WhyStep>>)> done);

 signals:
  // The lint of the trace of `generation` is done: `findings` when it ran
  // now (numbered as `skein lint` numbers them), else `stored_findings`,
  // read from the database; `stored` when they are in the database;
  // `error` is empty unless it could not run.
  void findings_ready(quint64 generation, std::vector<skein::LintFinding> findings,
                      std::vector<skein::TimelineAnomaly> stored_findings, bool ran, bool stored,
                      const QString& error);
  // The label lists of the trace of `generation` (of every thread with
  // several labels), or `error` when they could not be read. Sent only
  // for a trace that has such threads.
  void labels_ready(quint64 generation, std::shared_ptr<const skein::ThreadLabelLists> lists, const QString& error);

 private:
  struct Worker;

  std::shared_ptr<Worker> worker_;  // jobs' state; touched on the worker thread only
  quint64 generation_ = 0;
  // Set by close(): the jobs of the open trace stop or are skipped.
  std::shared_ptr<std::atomic<bool>> closed_;
  std::shared_ptr<const std::function<void()>> before_storing_;
  bool linting_ = false;
  // Last, so it goes first: the running job finishes and nothing queued is
  // delivered once the members above are gone.
  std::unique_ptr<BackgroundWorker> background_;
};

}  // namespace skein

Q_DECLARE_METATYPE(std::vector<skein::LintFinding>)
Q_DECLARE_METATYPE(std::shared_ptr<const skein::ThreadLabelLists>)
