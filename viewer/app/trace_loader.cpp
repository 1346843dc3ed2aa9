// trace_loader.cpp — each load() cancels the previous job and posts the new
// one to the loader's worker, where it runs once the cancelled one has
// stopped: a wait for the `released` future (polled, so a cancel ends it),
// open_store() (import through the cache, progress mapped to
// stages), a cancellation check, the first frame from the stored levels
// when the caller gave a canvas, then load_timeline() without the stored
// findings, which the analysis worker adds after the first frame. Every
// signal is emitted from a function delivered to the UI thread. Each job has
// its own cancel flag; the destructor cancels the running job and waits for
// it.
#include "viewer/app/trace_loader.hpp"

#include <chrono>

#include "recorder/store/opened_store.hpp"
#include "viewer/analysis/units.hpp"

namespace skein {

TraceLoader::TraceLoader(QObject* parent) : QObject(parent), background_(std::make_unique<BackgroundWorker>()) {
  qRegisterMetaType<std::shared_ptr<const skein::TimelineData>>();
  qRegisterMetaType<std::shared_ptr<const skein::TimelineFirstFrame>>();
}

TraceLoader::~TraceLoader() { cancel(); }

void TraceLoader::cancel() {
  if (cancel_) cancel_->store(true);
}

quint64 TraceLoader::load(const QString& path, const QString& cache_dir, std::shared_future<void> released,
                          QSize canvas) {
  cancel();
  const quint64 job = ++next_job_;
  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  cancel_ = cancelled;
  const std::string file = path.toStdString();
  const std::string cache = cache_dir.toStdString();
  BackgroundWorker* background = background_.get();
  background->post([this, background, job, file, cache, cancelled, canvas, released = std::move(released)] {
    // Every signal below is emitted on the UI thread.
    const auto report = [this, background, job](double fraction, const QString& stage) {
      background->deliver([this, job, fraction, stage] { emit progress(job, fraction, stage); });
    };
    QString replaced;
    const auto fail = [this, background, job, &replaced](const QString& message, bool was_cancelled) {
      background->deliver(
          [this, job, message, was_cancelled, replaced] { emit failed(job, message, was_cancelled, replaced); });
    };
    if (released.valid()) {
      report(-1, QStringLiteral("Waiting for the last trace's analysis…"));
      while (released.wait_for(std::chrono::milliseconds(20)) != std::future_status::ready)
        if (cancelled->load()) {
          fail(QStringLiteral("cancelled"), true);
          return;
        }
    }
    StoreOpenOptions options;
    options.cache_dir = cache;
    options.import.sync = false;
    options.import.cancel = cancelled.get();
    options.import.progress = [&report](const ImportProgress& p) {
      if (p.finishing) report(-1, QStringLiteral("Writing the trace database…"));
      else if (p.bytes_total > 0)
        report(double(p.bytes_done) / double(p.bytes_total),
               QStringLiteral("Importing %1…").arg(QString::fromStdString(counted(p.records, "record"))));
      else report(-1, QStringLiteral("Importing %1…").arg(QString::fromStdString(counted(p.records, "record"))));
    };
    report(-1, QStringLiteral("Opening…"));
    OpenedStore opened = open_store(file, options);
    if (!opened.ok()) {
      fail(QString::fromStdString(opened.error.to_string()), cancelled->load());
      return;
    }
    if (opened.imported) replaced = QString::fromStdString(opened.database_path);
    if (cancelled->load()) {
      fail(QStringLiteral("cancelled"), true);
      return;
    }
    if (!canvas.isEmpty()) {
      // No frame (an older Skein's database, say) or an error reading one:
      // the whole load below draws the first, or says what is wrong.
      report(-1, QStringLiteral("Reading the first frame…"));
      auto frame = load_timeline_first_frame(*opened.store, canvas.width(), canvas.height());
      if (frame && frame.value()) {
        auto shared = std::make_shared<const TimelineFirstFrame>(std::move(*frame.value()));
        background->deliver([this, job, shared] { emit first_frame(job, shared); });
      }
      if (cancelled->load()) {
        fail(QStringLiteral("cancelled"), true);
        return;
      }
    }
    report(-1, QStringLiteral("Reading the timeline…"));
    // The stored findings come after the first frame, from the analysis
    // worker (trace_analysis.hpp): a trace with millions of them draws as
    // soon as one without.
    TimelineLoadOptions load_options;
    load_options.findings = false;
    load_options.label_lists = false;
    load_options.activity = true;  // the overview strip's and the heat map's
    auto data = load_timeline(*opened.store, load_options);
    if (!data) {
      fail(QString::fromStdString(data.error().to_string()), false);
      return;
    }
    auto shared = std::make_shared<const TimelineData>(std::move(data).value());
    background->deliver([this, job, shared] { emit loaded(job, shared); });
  });
  return job;
}

}  // namespace skein
