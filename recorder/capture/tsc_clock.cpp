// tsc_clock.cpp — pairs a tick reading with a CLOCK_MONOTONIC reading by
// bracketing the clock call between two tick reads, keeping the narrowest of
// five brackets and its midpoint. calibrate() sleeps out what remains of the
// minimum interval, then takes the rate from the two pairs; if either
// reading failed to advance it keeps the origin's rate. Off x86 the origin
// is returned unchanged (rate 1, ticks being nanoseconds).
#include "recorder/capture/tsc_clock.hpp"

#include <thread>

namespace skein::capture {
namespace {

// A tick reading and a monotonic reading taken as close together as the
// machine allows: the pair with the shortest bracket out of a few tries.
void paired_reading(std::uint64_t& ticks, std::int64_t& ns) noexcept {
  std::uint64_t best_width = ~std::uint64_t{0};
  for (int i = 0; i < 5; ++i) {
    const std::uint64_t before = read_ticks();
    const std::int64_t now = monotonic_ns();
    const std::uint64_t after = read_ticks();
    if (after - before < best_width) {
      best_width = after - before;
      ticks = before + (after - before) / 2;
      ns = now;
    }
  }
}

}  // namespace

TickCalibration tick_origin() noexcept {
  TickCalibration origin;
  paired_reading(origin.ticks0, origin.ns0);
  return origin;
}

TickCalibration calibrate(const TickCalibration& origin, std::int64_t min_interval_ns) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  const std::int64_t elapsed = monotonic_ns() - origin.ns0;
  if (elapsed < min_interval_ns)
    std::this_thread::sleep_for(std::chrono::nanoseconds(min_interval_ns - elapsed));
  std::uint64_t ticks = 0;
  std::int64_t ns = 0;
  paired_reading(ticks, ns);
  TickCalibration result = origin;
  if (ticks > origin.ticks0 && ns > origin.ns0)
    result.ns_per_tick = static_cast<double>(ns - origin.ns0) / static_cast<double>(ticks - origin.ticks0);
  return result;
#else
  (void)min_interval_ns;
  return origin;  // ticks are nanoseconds already
#endif
}

}  // namespace skein::capture
