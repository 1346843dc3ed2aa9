// trace_event_prefetch.hpp — reads the records (events_table.hpp) on a
// second thread, in batches, while the caller works on the previous batch:
// reading and decoding the blocks overlaps with the rules (the import overlaps its parser and
// writer the same way, SCHEMA.md).
//
// A batch owns its events' texts, so it outlives the row it came from. The
// queue between the threads holds at most kPrefetchBatches batches, so
// memory stays bounded whatever the trace's size. The database connection
// is used by the reading thread only, from start() to the end of the
// stream (or the prefetcher's destruction): the caller must not touch it
// meanwhile.
#pragma once

#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {

inline constexpr std::size_t kPrefetchBatchSize = 8192;
inline constexpr std::size_t kPrefetchBatches = 4;

class TraceEventPrefetch {
 public:
  explicit TraceEventPrefetch(SqliteDatabase& db) : db_(db) {}
  TraceEventPrefetch(const TraceEventPrefetch&) = delete;
  TraceEventPrefetch& operator=(const TraceEventPrefetch&) = delete;
  ~TraceEventPrefetch();

  void start();
  // The next batch, or nullptr at the end of the events or after an error
  // (see error()). The batch stays valid until the next call.
  [[nodiscard]] const TraceEventList* next();
  // Set when reading failed; the stream ends there.
  [[nodiscard]] const std::optional<Diagnostic>& error() const { return error_; }

 private:
  void read_all();

  SqliteDatabase& db_;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<TraceEventList>> ready_;  // guarded by mutex_
  bool finished_ = false;                                // guarded by mutex_
  bool stop_ = false;                                    // guarded by mutex_
  std::optional<Diagnostic> error_;                      // written before finished_
  std::unique_ptr<TraceEventList> current_;             // the caller's batch
};

}  // namespace skein
