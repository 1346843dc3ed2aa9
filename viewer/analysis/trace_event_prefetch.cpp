// trace_event_prefetch.cpp — start() launches a thread that steps a
// TraceEventCursor and fills batches of kPrefetchBatchSize events. Texts
// are appended to the batch's buffer by offset while it grows; the events'
// views are pointed into it only once the batch is full. The reader waits
// while kPrefetchBatches are queued, stores the error before setting
// finished_, and leaves early when the destructor sets stop_ (then joins).
// next() hands over one batch and frees the previous one.
#include "viewer/analysis/trace_event_prefetch.hpp"

#include "viewer/analysis/trace_event_reader.hpp"

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
    auto batch = std::make_unique<TraceEventBatch>();
    batch->events.reserve(kPrefetchBatchSize);
    // Texts go in by offset first (the buffer may grow), views are set once
    // the batch is full.
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    spans.reserve(kPrefetchBatchSize);
    bool more = true;
    while (batch->events.size() < kPrefetchBatchSize) {
      auto row = cursor.value().next();
      if (!row) {
        failure = row.error();
        break;
      }
      if (!row.value()) {
        more = false;
        break;
      }
      TraceEvent e = cursor.value().event();
      spans.emplace_back(batch->texts.size(), e.text.size());
      batch->texts.append(e.text);
      batch->events.push_back(e);
    }
    for (std::size_t i = 0; i < batch->events.size(); ++i)
      batch->events[i].text = std::string_view(batch->texts).substr(spans[i].first, spans[i].second);
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stop_ || ready_.size() < kPrefetchBatches; });
    if (stop_) return;
    if (!batch->events.empty()) ready_.push_back(std::move(batch));
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

const TraceEventBatch* TraceEventPrefetch::next() {
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
