// trace_analysis.cpp — the jobs of trace_analysis.hpp and their state per
// trace (Worker), which only the background worker's thread touches: the
// lint run on opening, the why-engine, the records kept for causal paths.
// A delivered result names the generation it was computed for and is
// dropped when another trace was opened since.
#include "viewer/app/trace_analysis.hpp"


#include "recorder/store/trace_store.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "recorder/store/events_table.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {

// Touched on the worker thread only.
struct TraceAnalysis::Worker {
  quint64 generation = 0;
  std::string path;
  std::optional<TraceStore> store;
  bool linted = false;  // the database (or the attached one) holds the causes
  std::optional<WhyEngine> engine;
  std::shared_ptr<const TraceEventList> events;

  void reset(quint64 g, const std::string& to) {
    engine.reset();
    events.reset();
    store.reset();
    linted = false;
    generation = g;
    path = to;
  }

  Status ensure_store() {
    if (store) return {};
    auto opened = TraceStore::open(path);
    if (!opened) return opened.error();
    store = std::move(opened).value();
    return {};
  }

  struct LintOutcome {
    std::vector<LintFinding> findings;
    bool ran = false;
    bool stored = false;
  };
  // The lint's results in reach of the engine: there already, or made now.
  Result<LintOutcome> ensure_linted() {
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
    auto report = lint_store(*store, options);
    if (!report) return report.error();
    // Findings stored already (by `skein lint`, maybe with its own
    // settings) stay as they are: only the causes are added.
    const bool add_causes_only = present.value().findings;
    outcome.ran = !add_causes_only;
    if (!add_causes_only) outcome.findings = report.value().findings;
    const Status stored = add_causes_only
                              ? store_transfers(path, report.value().transfers, AnomalyDurability::rebuildable)
                              : store_lint_report(path, report.value(), AnomalyDurability::rebuildable);
    if (stored.ok()) {
      outcome.stored = true;
    } else {
      // A database this user cannot write: the causes go to an attached
      // database in memory, for this session.
      SqliteDatabase& db = store->database();
      if (Status s = db.exec("ATTACH DATABASE ':memory:' AS lint_results"); !s.ok()) return s.error();
      if (Status s = write_transfers(db, std::move(report.value().transfers), "lint_results"); !s.ok())
        return s.error();
    }
    linted = true;
    return outcome;
  }

  Result<WhyEngine*> ensure_engine() {
    if (engine) return &*engine;
    if (auto l = ensure_linted(); !l) return l.error();
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
}

TraceAnalysis::~TraceAnalysis() = default;

void TraceAnalysis::open(const std::string& database, std::shared_ptr<const TimelineData> timeline) {
  const quint64 g = ++generation_;
  linting_ = true;
  std::shared_ptr<Worker> worker = worker_;
  BackgroundWorker* background = background_.get();
  background->post([this, worker, background, g, database, timeline = std::move(timeline)] {
    worker->reset(g, database);
    auto outcome = worker->ensure_linted();
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
  std::shared_ptr<Worker> worker = worker_;
  BackgroundWorker* background = background_.get();
  background->post([this, worker, background, g, job = std::move(job), done = std::move(done)]() mutable {
    std::optional<Result<WhyAnswer>> result;
    if (worker->generation != g) return;  // another trace since
    auto engine = worker->ensure_engine();
    if (!engine) result.emplace(engine.error());
    else result.emplace(job(*engine.value()));
    background->deliver([this, g, done = std::move(done), result = std::move(*result)]() mutable {
      if (g == generation_) done(std::move(result));
    });
  });
}

void TraceAnalysis::ask_events(EventsJob job, std::function<void(Result<std::vector<WhyStep>>)> done) {
  const quint64 g = generation_;
  std::shared_ptr<Worker> worker = worker_;
  BackgroundWorker* background = background_.get();
  background->post([this, worker, background, g, job = std::move(job), done = std::move(done)]() mutable {
    if (worker->generation != g) return;
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
