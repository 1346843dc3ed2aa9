// ring_snapshots.cpp — a snapshot's round trip: the waiter reads the count of
// answers under the mutex, asks, wakes the writer, and sleeps until the
// count passes what it read; the writer's answer bumps it under the same
// mutex. The waiter holds the mutex from the read to the wait, so no answer
// is missed; it takes the writer's own mutex only inside wake(), and the
// writer never holds that one while it answers, so the two cannot deadlock.
#include "recorder/capture/ring_snapshots.hpp"

#include <cstdio>
#include <utility>

namespace skein::capture {

Status RingSnapshots::request_and_wait(WriterThread& writer) {
  std::unique_lock<std::mutex> lock(mutex_);
  const std::uint64_t before = answered_;
  request();
  writer.wake();
  answered_cv_.wait(lock, [&] { return answered_ > before; });
  return last_status_;
}

void RingSnapshots::answer(Status written) {
  if (!written.ok()) std::fprintf(stderr, "skein: ring trace not written: %s\n", written.error().to_string().c_str());
  if (!written.ok() && first_error_.ok()) first_error_ = written;
  std::lock_guard<std::mutex> lock(mutex_);
  last_status_ = std::move(written);
  ++answered_;
  answered_cv_.notify_all();
}

}  // namespace skein::capture
