// filtered_view.cpp — a request bumps generation_ and publishes it in
// latest_; the job captures the trace, the filter and its generation, skips
// the filtering when latest_ has moved on, and always delivers, so that
// in_flight_ counts down exactly once per job. The delivery applies the
// result only when its generation is still generation_. when_idle()
// functions wait in on_idle_ until in_flight_ is back to zero. The plan
// job of a trace is posted before its first filtering job, so a filter of
// simplify binds alone finds the plan made. Dropping or
// replacing a filtered copy gives its memory back (freed_memory.hpp).
#include "viewer/app/filtered_view.hpp"

#include "viewer/app/background_worker.hpp"
#include "viewer/timeline/freed_memory.hpp"

namespace skein {
namespace {

const TimelineFilter kSimplifyBinds{true, {}, 0};

}  // namespace

FilteredView::FilteredView(QObject* parent) : QObject(parent), worker_(new BackgroundWorker(this)) {}

FilteredView::~FilteredView() {
  latest_->store(0);  // a job still queued does not start filtering
  closing_->store(true);
  delete worker_;     // joins the running job, drops its delivery
}

void FilteredView::set_data(std::shared_ptr<const TimelineData> full) {
  full_ = std::move(full);
  filter_.folded.clear();  // ids of another trace
  filter_.min_duration = 0;
  filtered_.reset();
  plans_ = std::make_shared<Plans>();
  if (full_) {
    // A job like the filtering ones for when_idle(): it reads the trace.
    ++in_flight_;
    worker_->post([this, worker = worker_, full = full_, plans = plans_, closing = closing_] {
      if (!closing->load()) plans->simplify = std::make_shared<const FilterPlan>(plan_filter(*full, kSimplifyBinds));
      worker->deliver([this] { job_done(); });
    });
  }
  post_filter();
}

void FilteredView::set_filter(TimelineFilter filter) {
  filter_ = std::move(filter);
  post_filter();
  if (!pending_) emit view_ready();
}

void FilteredView::refilter() {
  if (!filter_.empty()) post_filter();
}

void FilteredView::post_filter() {
  const quint64 generation = ++generation_;
  latest_->store(generation);
  if (!full_ || filter_.empty()) {
    // A filtered copy of a whole trace, dropped (when no one else holds it).
    if (filtered_) {
      filtered_.reset();
      release_freed_memory();
    }
    pending_ = false;
    return;
  }
  pending_ = true;
  ++in_flight_;
  worker_->post([this, worker = worker_, full = full_, filter = filter_, generation, latest = latest_,
                 plans = plans_] {
    std::shared_ptr<const FilteredTimeline> result;
    if (latest->load() == generation) {
      const bool planned =
          plans && plans->simplify && filter.simplify_binds && filter.folded.empty() && filter.min_duration <= 0;
      result = std::make_shared<const FilteredTimeline>(planned ? filter_timeline(*full, *plans->simplify)
                                                                : filter_timeline(*full, filter));
    }
    worker->deliver([this, generation, result = std::move(result)]() mutable {
      if (generation == generation_ && result) {
        const bool replaced = filtered_ != nullptr;
        filtered_ = std::move(result);
        pending_ = false;
        emit view_ready();
        if (replaced) release_freed_memory();
      }
      job_done();
    });
  });
}

void FilteredView::job_done() {
  if (--in_flight_ > 0) return;
  std::vector<std::function<void()>> ready;
  ready.swap(on_idle_);
  for (auto& fn : ready) fn();
}

void FilteredView::when_idle(std::function<void()> fn) {
  if (in_flight_ == 0) fn();
  else on_idle_.push_back(std::move(fn));
}

}  // namespace skein
