// trace_loader.hpp — opens traces off the UI thread. A load is a job with
// an id: it imports the trace through its cache when needed
// (recorder/store/opened_store.hpp), then reads the first frame from the
// levels the import stored (viewer/timeline/timeline_first_frame.hpp) and
// the whole timeline (viewer/timeline/timeline_data.hpp), all on the loader's
// BackgroundWorker (background_worker.hpp), and reports back by signals
// emitted on the UI thread, so no parsing and no SQL ever runs there. Whoever listens keeps the id of the job it wants and drops
// results of any other (a stale job: the user opened something else
// meanwhile). cancel() asks the running import to stop; its job then
// fails with `cancelled` set.
//
// A load may replace a database someone reads: reloading a changed trace
// re-imports it into the same cache file. load() takes a future (from
// TraceAnalysis::close()) that says when the last trace's analysis has let
// go of its database; the job waits for it, still cancellable, before it
// opens anything.
#pragma once

#include <QObject>
#include <QSize>
#include <QString>
#include <atomic>
#include <future>
#include <memory>

#include "viewer/app/background_worker.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_first_frame.hpp"

namespace skein {

class TraceLoader : public QObject {
  Q_OBJECT

 public:
  explicit TraceLoader(QObject* parent = nullptr);
  ~TraceLoader() override;

  // Starts loading `path` (a trace of any format or a trace database);
  // returns the job's id. Cancels the job before it, if still running.
  // `released`, when valid, is waited for first (see above).
  // `canvas`, when not empty, is the timeline's size: the first frame is
  // read for it from the stored levels and delivered (first_frame) before
  // the whole trace is read.
  quint64 load(const QString& path, const QString& cache_dir = QString(),
               std::shared_future<void> released = {}, QSize canvas = {});
  void cancel();

 signals:
  // fraction in [0, 1], or -1 when unknown; stage says what is being done.
  void progress(quint64 job, double fraction, const QString& stage);
  // The first frame, read from the levels the import stored
  // (timeline_first_frame.hpp), when the store gives one; `loaded` follows.
  void first_frame(quint64 job, std::shared_ptr<const skein::TimelineFirstFrame> frame);
  void loaded(quint64 job, std::shared_ptr<const skein::TimelineData> data);
  // message is the diagnostic as `skein` prints it: FILE:LINE:COL: message.
  // `replaced` names the database this job imported anew before it failed
  // (empty when it replaced none): whatever was read from that path before
  // is gone.
  void failed(quint64 job, const QString& message, bool cancelled, const QString& replaced);

 private:
  quint64 next_job_ = 0;
  std::shared_ptr<std::atomic<bool>> cancel_;
  // Last, so it goes first (after the destructor's cancel): the running
  // job finishes, queued ones are dropped, nothing more is delivered.
  std::unique_ptr<BackgroundWorker> background_;
};

}  // namespace skein

Q_DECLARE_METATYPE(std::shared_ptr<const skein::TimelineData>)
Q_DECLARE_METATYPE(std::shared_ptr<const skein::TimelineFirstFrame>)
