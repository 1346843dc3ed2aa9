// trace_event_prefetch.cpp — start() launches a thread that steps a
// TraceEventCursor and fills batches (TraceEventList, which owns the texts)
// of kPrefetchBatchSize events. The reader waits while kPrefetchBatches are
// queued, stores the error before setting finished_, and leaves early when
// the destructor sets stop_ (then joins).
// next() hands over one batch and frees the previous one.
#include "viewer/analysis/trace_event_prefetch.hpp"

#include "recorder/store/events_table.hpp"

namespace skein {

TraceEventPrefetch::~TraceEventPrefetch() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  if (reader_.joinable()) reader_.join();
}

void TraceEventPrefetch::start() { reader_ = std::thread([this] { read_all(); }); }

void TraceEventPrefetch::read_all() {
  std::optional<Diagnostic> failure;
  auto cursor = TraceEventCursor::open(db_);
  if (!cursor) failure = cursor.error();
  while (!failure) {
    auto batch = std::make_unique<TraceEventList>();
    batch->reserve(kPrefetchBatchSize);
    bool more = true;
    while (batch->size() < kPrefetchBatchSize) {
      auto row = cursor.value().next();
      if (!row) {
        failure = row.error();
        break;
      }
      if (!row.value()) {
        more = false;
        break;
      }
      batch->push_back(cursor.value().event());
    }
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stop_ || ready_.size() < kPrefetchBatches; });
    if (stop_) return;
    if (!batch->empty()) ready_.push_back(std::move(batch));
    if (!more) break;
    lock.unlock();
    changed_.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    error_ = std::move(failure);
    finished_ = true;
  }
  changed_.notify_all();
}

const TraceEventList* TraceEventPrefetch::next() {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !ready_.empty() || finished_; });
  if (ready_.empty()) {
    current_.reset();
    return nullptr;
  }
  current_ = std::move(ready_.front());
  ready_.pop_front();
  lock.unlock();
  changed_.notify_all();
  return current_.get();
}

}  // namespace skein
