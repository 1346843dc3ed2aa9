// trace_analysis.cpp — the jobs of trace_analysis.hpp and their state per
// trace (Worker), which only the background worker's thread touches: the
// lint run on opening, the why-engine, the records kept for causal paths.
// A delivered result names the generation it was computed for and is
// dropped when another trace was opened since. Each open() has its own
// `closed` flag, which its lint polls and its queued jobs check first;
// close() sets it and posts the job that drops the store, whose end fulfils
// the future it returned.
#include "viewer/app/trace_analysis.hpp"


#include "recorder/store/trace_database.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "recorder/store/events_table.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {
namespace {

// A question asked while no trace is open: answered with that error on the
// next turn of the event loop, as every answer is.
template <class T>
void answer_with_no_trace(QObject* context, std::function<void(Result<T>)> done) {
  QMetaObject::invokeMethod(
      context, [done = std::move(done)] { done(Result<T>(file_error("", "no trace is open for questions"))); },
      Qt::QueuedConnection);
}

}  // namespace

// Touched on the worker thread only.
struct TraceAnalysis::Worker {
  quint64 generation = 0;
  std::shared_ptr<TraceDatabase> database;  // the owner of the file read (trace_database.hpp)
  std::optional<TraceStore> store;          // this worker's reader of it
  bool linted = false;  // the database (or the attached one) holds the causes
  std::optional<WhyEngine> engine;
  std::shared_ptr<const TraceEventList> events;

  void reset(quint64 g, std::shared_ptr<TraceDatabase> to) {
    engine.reset();
    events.reset();
    store.reset();
    linted = false;
    generation = g;
    database = std::move(to);
  }

  // A reader of the very file the timeline was read from: its owner
  // refuses once a re-import has replaced it.
  Status ensure_store() {
    if (store) return {};
    if (!database) return file_error("", "no trace is open");
    auto opened = database->reader();
    if (!opened) return opened.error();
    store = std::move(opened).value();
    return {};
  }

  struct LintOutcome {
    std::vector<LintFinding> findings;
    bool ran = false;
    bool stored = false;
  };
  // The lint's results in reach of the engine: there already, or made now
  // (stopping, with nothing stored, once `closed` is set).
  Result<LintOutcome> ensure_linted(const std::atomic<bool>& closed, const std::function<void()>* before_storing) {
    LintOutcome outcome;
    if (linted) return outcome;
    if (Status s = ensure_store(); !s.ok()) return s.error();
    auto present = lint_results_present(store->database());
    if (!present) return present.error();
    if (present.value().findings && present.value().causes) {
      linted = true;
      outcome.stored = true;
      return outcome;
    }
    LintOptions options;
    options.keep_transfers = true;
    options.keyed_transfers = true;  // only stored
    options.cancel = &closed;
    auto report = lint_store(*store, options);
    if (!report) return report.error();
    if (before_storing && *before_storing) (*before_storing)();
    if (closed.load()) return file_error(database->path(), "the lint was cancelled");
    // Findings stored already (by `skein lint`, maybe with its own
    // settings) stay as they are: only the causes are added.
    const bool add_causes_only = present.value().findings;
    outcome.ran = !add_causes_only;
    const Status stored = add_causes_only
                              ? store_transfers(*database, report.value().keyed_transfers, WriteDurability::rebuildable)
                              : store_lint_report(*database, report.value(), WriteDurability::rebuildable);
    if (stored.ok()) {
      outcome.stored = true;
    } else {
      // A database this user cannot write, or one replaced at its path
      // since it was read: the causes (of the file read) go to the
      // connection's temp schema, for this session. The connection is
      // read-only at the file (SQLITE_OPEN_READONLY), which also makes any
      // database it attaches read-only, but never its temp schema; lifting
      // query_only for this write lets it write there alone.
      SqliteDatabase& db = store->database();
      if (Status s = db.exec("PRAGMA query_only = OFF"); !s.ok()) return s.error();
      Status written = write_transfers(db, std::move(report.value().keyed_transfers), "temp");
      if (Status s = db.exec("PRAGMA query_only = ON"); written.ok() && !s.ok()) written = s;
      if (!written.ok()) return written.error();
    }
    // Moved, not copied, once stored: a trace's findings can number millions.
    if (!add_causes_only) outcome.findings = std::move(report.value().findings);
    linted = true;
    return outcome;
  }

  Result<WhyEngine*> ensure_engine(const std::atomic<bool>& closed) {
    if (engine) return &*engine;
    if (auto l = ensure_linted(closed, nullptr); !l) return l.error();
    auto opened = WhyEngine::open(*store);
    if (!opened) return opened.error();
    engine = std::move(opened).value();
    return &*engine;
  }

  Result<const TraceEventList*> ensure_events() {
    if (events) return events.get();
    if (Status s = ensure_store(); !s.ok()) return s.error();
    auto loaded = load_trace_events(store->database());
    if (!loaded) return loaded.error();
    events = std::make_shared<const TraceEventList>(std::move(loaded).value());
    return events.get();
  }
};

TraceAnalysis::TraceAnalysis(QObject* parent)
    : QObject(parent), worker_(std::make_shared<Worker>()), background_(std::make_unique<BackgroundWorker>()) {
  qRegisterMetaType<std::vector<skein::LintFinding>>();
  qRegisterMetaType<std::vector<skein::TimelineAnomaly>>();
  qRegisterMetaType<std::shared_ptr<const skein::ThreadLabelLists>>();
}

TraceAnalysis::~TraceAnalysis() = default;

std::shared_future<void> TraceAnalysis::close() {
  ++generation_;
  linting_ = false;
  if (closed_) closed_->store(true);
  closed_.reset();
  auto released = std::make_shared<std::promise<void>>();
  std::shared_future<void> done = released->get_future().share();
  std::shared_ptr<Worker> worker = worker_;
  const quint64 g = generation_;
  // Runs after the job in progress, which stops soon (its flag is set);
  // should the worker go first, the promise is broken, which is ready too.
  background_->post([worker, g, released] {
    worker->reset(g, nullptr);
    released->set_value();
  });
  return done;
}

void TraceAnalysis::set_before_storing(std::function<void()> hook) {
  before_storing_ = hook ? std::make_shared<const std::function<void()>>(std::move(hook)) : nullptr;
}

void TraceAnalysis::open(std::shared_ptr<TraceDatabase> database, std::shared_ptr<const TimelineData> timeline) {
  (void)close();
  const quint64 g = ++generation_;
  linting_ = true;
  closed_ = std::make_shared<std::atomic<bool>>(false);
  std::shared_ptr<std::atomic<bool>> closed = closed_;
  std::shared_ptr<const std::function<void()>> before_storing = before_storing_;
  std::shared_ptr<Worker> worker = worker_;
  BackgroundWorker* background = background_.get();
  background->post([this, worker, background, g, closed, before_storing, database, timeline = std::move(timeline)] {
    if (closed->load()) return;
    worker->reset(g, database);
    if (timeline && timeline->label_counts && !timeline->label_lists) {
      Result<ThreadLabelLists> lists = ThreadLabelLists{};
      if (Status s = worker->ensure_store(); !s.ok()) lists = s.error();
      else lists = read_thread_label_lists(worker->store->database());
      if (closed->load()) return;
      std::shared_ptr<const ThreadLabelLists> read;
      QString failed;
      if (lists) read = std::make_shared<const ThreadLabelLists>(std::move(lists).value());
      else failed = QString::fromStdString(lists.error().to_string());
      background->deliver([this, g, read = std::move(read), failed]() mutable {
        if (g == generation_) emit labels_ready(g, std::move(read), failed);
      });
    }
    auto outcome = worker->ensure_linted(*closed, before_storing.get());
    if (closed->load()) return;  // nothing is delivered for a closed trace
    std::vector<LintFinding> findings;
    std::vector<TimelineAnomaly> stored_findings;
    bool ran = false;
    bool stored = false;
    QString error;
    if (outcome) {
      findings = std::move(outcome.value().findings);
      ran = outcome.value().ran;
      stored = outcome.value().stored;
      // Findings the database held (stored by `skein lint`, or by an
      // earlier open): read here, off the UI thread.
      if (!ran && timeline && worker->store)
        stored_findings = load_stored_findings(worker->store->database(), *timeline);
    } else {
      error = QString::fromStdString(outcome.error().to_string());
    }
    // Delivered only while the worker, and so this object, exists.
    background->deliver([this, g, findings = std::move(findings), stored_findings = std::move(stored_findings), ran,
                         stored, error]() mutable {
      if (g != generation_) return;
      linting_ = false;
      emit findings_ready(g, std::move(findings), std::move(stored_findings), ran, stored, error);
    });
  });
}

void TraceAnalysis::ask_why(WhyJob job, std::function<void(Result<WhyAnswer>)> done) {
  const quint64 g = generation_;
  if (!closed_) {
    answer_with_no_trace(this, std::move(done));
    return;
  }
  std::shared_ptr<std::atomic<bool>> closed = closed_;
  std::shared_ptr<Worker> worker = worker_;
  BackgroundWorker* background = background_.get();
  background->post([this, worker, background, g, closed, job = std::move(job), done = std::move(done)]() mutable {
    std::optional<Result<WhyAnswer>> result;
    if (closed->load() || worker->generation != g) return;  // another trace since
    auto engine = worker->ensure_engine(*closed);
    if (!engine) result.emplace(engine.error());
    else result.emplace(job(*engine.value()));
    background->deliver([this, g, done = std::move(done), result = std::move(*result)]() mutable {
      if (g == generation_) done(std::move(result));
    });
  });
}

void TraceAnalysis::ask_events(EventsJob job, std::function<void(Result<std::vector<WhyStep>>)> done) {
  const quint64 g = generation_;
  if (!closed_) {
    answer_with_no_trace(this, std::move(done));
    return;
  }
  std::shared_ptr<std::atomic<bool>> closed = closed_;
  std::shared_ptr<Worker> worker = worker_;
  BackgroundWorker* background = background_.get();
  background->post([this, worker, background, g, closed, job = std::move(job), done = std::move(done)]() mutable {
    if (closed->load() || worker->generation != g) return;
    std::optional<Result<std::vector<WhyStep>>> result;
    auto events = worker->ensure_events();
    if (!events) result.emplace(events.error());
    else result.emplace(job(events.value()->events()));
    background->deliver([this, g, done = std::move(done), result = std::move(*result)]() mutable {
      if (g == generation_) done(std::move(result));
    });
  });
}

}  // namespace skein
