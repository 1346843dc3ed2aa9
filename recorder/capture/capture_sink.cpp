// capture_sink.cpp — a capture's sink: a fresh record window and caches at
// construction, and what it says of the threads whose records it refused;
// see capture_sink.hpp.
#include "recorder/capture/capture_sink.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cstdio>

namespace skein::capture {
namespace {

std::atomic<std::uint64_t> g_generations{0};
// The capture whose refusals this thread was last counted for.
thread_local std::uint64_t t_refused_by = 0;

}  // namespace

CaptureSink::CaptureSink(CaptureBuffer& buffer, StringArena& strings, SiteTable& sites)
    : buffer_(buffer), strings_(strings), sites_(sites), generation_(++g_generations) {
  // set_sink gives the window to the thread that installs this sink.
  has_record_window_ = true;
  // Site ids are this capture's: forget the last capture's (trace_record.hpp,
  // invariant 3), and take a fresh stamp first.
  for (auto& entry : trace::detail::g_site_cache) entry = trace::detail::SiteCacheEntry{};
  for (auto& entry : trace::detail::g_string_cache) entry = trace::detail::StringCacheEntry{};
  trace::detail::g_record_window.since_stamp = trace::kStampEvery;
  trace::detail::g_record_window.last_ticks = 0;
}

void CaptureSink::refuse() noexcept {
  refused_.fetch_add(1, std::memory_order_relaxed);
  if (t_refused_by == generation_) return;
  t_refused_by = generation_;
  refused_threads_.fetch_add(1, std::memory_order_relaxed);
  int expected = kUnnamed;
  if (!first_refused_state_.compare_exchange_strong(expected, kNaming, std::memory_order_acquire)) return;
  first_refused_tid_ = static_cast<long>(gettid());
  if (pthread_getname_np(pthread_self(), first_refused_name_, sizeof first_refused_name_) != 0)
    first_refused_name_[0] = '\0';
  first_refused_state_.store(kNamed, std::memory_order_release);
}

std::string CaptureSink::refusal_line() const {
  const std::uint64_t records = refused();
  if (records == 0) return {};
  std::string thread = "an OS thread";
  if (first_refused_state_.load(std::memory_order_acquire) == kNamed) {
    thread = "OS thread " + std::to_string(first_refused_tid_);
    if (first_refused_name_[0] != '\0') thread += std::string(" (\"") + first_refused_name_ + "\")";
  }
  const std::uint64_t threads = refused_threads_.load(std::memory_order_relaxed);
  if (threads > 1) thread += " and " + std::to_string(threads - 1) + " other OS thread" + (threads > 2 ? "s" : "");
  return "skein: " + std::to_string(records) + (records == 1 ? " record" : " records") + " from " + thread +
         (records == 1 ? " was" : " were") +
         " left out of the trace: the capture takes the records of the thread that runs the loop (skein::run), "
         "and the runtime is single-threaded\n";
}

}  // namespace skein::capture
