// filtered_view.hpp — the loaded trace through the declutter filter
// (viewer/timeline/timeline_filter.hpp), derived off the UI thread: the
// filter asked for last, and the filtered view of the trace the timeline
// is to show. filter_timeline runs on a worker of its own
// (background_worker.hpp); on a 10M-record trace it takes long enough to
// be felt.
//
// Invariants:
//   1. filter() is the filter asked for last; filtered() is the view
//      derived for the filter of the last result applied (null: the trace
//      as loaded). An empty filter needs no job: filtered() is null at once.
//   2. Every request takes a new generation. A job whose generation is no
//      longer the latest does not start filtering when it comes up, and its
//      result is dropped when it arrives: the last filter asked for wins,
//      whatever order the requests came in.
//   3. view_ready() is emitted when filtered() becomes the view of filter():
//      at once for an empty filter, else when that job's result arrives.
//      Until then filtered() keeps the view of before, so the timeline goes
//      on showing the previous picture.
//   4. Jobs read the loaded trace while they run. The UI thread changes it
//      in place only through when_idle(), which runs once no job runs or
//      waits (set_data's trace gets its findings that way).
//   5. A new trace's first job derives its simplify-binds plan
//      (timeline_filter.hpp: which threads hide, where the rest go, the
//      layout run again), which only jobs then read: simplify binds asked
//      for alone, then or later, moves the trace's data by it instead of
//      deriving it again, so the toggle costs the move alone. The plan
//      holds about 8 bytes a thread and 16 a shown thread, for as long as
//      the trace is shown.
#pragma once

#include <QObject>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

#include "viewer/timeline/timeline_filter.hpp"

namespace skein {

class BackgroundWorker;

class FilteredView : public QObject {
  Q_OBJECT

 public:
  explicit FilteredView(QObject* parent = nullptr);
  ~FilteredView() override;

  // A newly loaded trace, shown as it is for now: the folds and the
  // duration bound (of another trace) are dropped, simplify binds is kept
  // and, when on, filtered for it (view_ready() follows).
  void set_data(std::shared_ptr<const TimelineData> full);
  // Asks for `filter` (view_ready() follows, at once when it is empty).
  void set_filter(TimelineFilter filter);
  // Filters the trace again with filter() (it changed in place); nothing
  // for an empty filter.
  void refilter();

  [[nodiscard]] const std::shared_ptr<const TimelineData>& full() const { return full_; }
  [[nodiscard]] const TimelineFilter& filter() const { return filter_; }
  [[nodiscard]] const std::shared_ptr<const FilteredTimeline>& filtered() const { return filtered_; }
  // True while filtered() is not yet the view of filter().
  [[nodiscard]] bool pending() const { return pending_; }
  // Runs `fn` on this thread once no filtering job runs or waits: at once
  // when none does.
  void when_idle(std::function<void()> fn);

 signals:
  void view_ready();

 private:
  void post_filter();
  void job_done();

  BackgroundWorker* worker_;
  std::shared_ptr<const TimelineData> full_;
  TimelineFilter filter_;
  std::shared_ptr<const FilteredTimeline> filtered_;
  bool pending_ = false;
  quint64 generation_ = 0;
  // The latest generation, read by the jobs to skip stale ones.
  std::shared_ptr<std::atomic<quint64>> latest_ = std::make_shared<std::atomic<quint64>>(0);
  // The simplify-binds plan of full_, read and written by jobs alone
  // (invariant 5); a new one for each trace. `closing` stops a queued
  // plan from starting once the view is going.
  struct Plans {
    std::shared_ptr<const FilterPlan> simplify;
  };
  std::shared_ptr<Plans> plans_;
  std::shared_ptr<std::atomic<bool>> closing_ = std::make_shared<std::atomic<bool>>(false);
  int in_flight_ = 0;  // jobs posted whose delivery has not run yet
  std::vector<std::function<void()>> on_idle_;
};

}  // namespace skein
