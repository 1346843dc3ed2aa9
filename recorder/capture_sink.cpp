// capture_sink.cpp — ownership of the capture by one OS thread; see
// capture_sink.hpp.
#include "recorder/capture_sink.hpp"

#include <cstdio>

namespace skein::capture {
namespace {
std::atomic<std::uint64_t> g_generations{0};
}  // namespace

constinit thread_local std::uint64_t CaptureSink::t_owner_generation = 0;

CaptureSink::CaptureSink(CaptureBuffer& buffer, StringArena& strings, SiteTable& sites)
    : buffer_(buffer), strings_(strings), sites_(sites), generation_(++g_generations) {}

bool CaptureSink::claim() noexcept {
  bool expected = false;
  if (!claimed_.compare_exchange_strong(expected, true)) return false;
  t_owner_generation = generation_;
  return true;
}

void CaptureSink::refuse() noexcept {
  if (refused_.fetch_add(1, std::memory_order_relaxed) == 0)
    std::fprintf(stderr,
                 "skein: the runtime was called from an OS thread that is not its own; the runtime is "
                 "single-threaded, so the call was left out of the trace (and further ones are counted)\n");
}

}  // namespace skein::capture
