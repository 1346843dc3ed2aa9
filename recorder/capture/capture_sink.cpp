// capture_sink.cpp — ownership of the capture by one OS thread; see
// capture_sink.hpp.
#include "recorder/capture/capture_sink.hpp"

#include <cstdio>

namespace skein::capture {
namespace {
std::atomic<std::uint64_t> g_generations{0};
}  // namespace

CaptureSink::CaptureSink(CaptureBuffer& buffer, StringArena& strings, SiteTable& sites)
    : buffer_(buffer), strings_(strings), sites_(sites), generation_(++g_generations) {
  // The window opens to this sink when set_sink installs it.
  record_owner_ = generation_;
  // Site ids are this capture's: forget the last capture's (trace_record.hpp,
  // invariant 3), and take a fresh stamp first.
  for (auto& entry : trace::detail::g_site_cache) entry = trace::detail::SiteCacheEntry{};
  for (auto& entry : trace::detail::g_string_cache) entry = trace::detail::StringCacheEntry{};
  trace::detail::g_record_window.since_stamp = trace::kStampEvery;
  trace::detail::g_record_window.last_ticks = 0;
}

bool CaptureSink::claim() noexcept {
  bool expected = false;
  if (!claimed_.compare_exchange_strong(expected, true)) return false;
  trace::detail::t_record_owner = generation_;
  return true;
}

void CaptureSink::refuse() noexcept {
  if (refused_.fetch_add(1, std::memory_order_relaxed) == 0)
    std::fprintf(stderr,
                 "skein: the runtime was called from an OS thread that is not its own; the runtime is "
                 "single-threaded, so the call was left out of the trace (and further ones are counted)\n");
}

}  // namespace skein::capture
