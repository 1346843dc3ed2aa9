// writer_thread.cpp — starting the writer with the asynchronous signals
// blocked (blocked on the starting thread for the instant of the creation,
// which the new thread inherits), stopping it, and its timed wait for a stop.
#include "recorder/capture/writer_thread.hpp"

#include <signal.h>

#include <utility>

#include "recorder/capture/capture_output.hpp"

namespace skein::capture {

void WriterThread::start(std::function<void()> body) {
  const sigset_t writer_mask = writer_thread_signal_mask();
  sigset_t saved_mask;
  pthread_sigmask(SIG_BLOCK, &writer_mask, &saved_mask);
  thread_ = std::thread([this, body = std::move(body)] {
    id_.store(pthread_self());
    body();
  });
  pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
}

void WriterThread::request_stop() {
  stopping_.store(true);
  wake();
}

void WriterThread::wait_for_stop(std::chrono::milliseconds period) {
  std::unique_lock<std::mutex> lock(mutex_);
  (void)wake_.wait_for(lock, period, [&] { return stopping_.load(); });
}

}  // namespace skein::capture
