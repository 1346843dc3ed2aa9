// tsc_clock.hpp — time stamps for the capture: the CPU's time-stamp counter
// on the hot path, turned into nanoseconds later, in the writer.
//
// Reading the TSC costs a few ns where steady_clock::now() costs ~20, so the
// scheduler thread stamps records with raw ticks and never converts. The
// writer calibrates ticks against CLOCK_MONOTONIC over the longest interval
// it has (from the start of the capture to the moment it converts its first
// records, at least kMinCalibrationNs when the program runs that long), and
// then converts every record with that one rate, so converted times are
// monotonic in ticks. Assumes an invariant TSC (constant_tsc and nonstop_tsc
// on x86-64 Linux, the norm for a decade); elsewhere the "ticks" are
// CLOCK_MONOTONIC nanoseconds and the rate is 1.
#pragma once

#include <cstdint>
#include <ctime>

#include "runtime/trace_record.hpp"

namespace skein::capture {

inline constexpr std::int64_t kMinCalibrationNs = 20'000'000;  // 20 ms

[[nodiscard]] inline std::int64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

// The runtime's hooks stamp records themselves (runtime/trace_record.hpp);
// this is the same counter.
[[nodiscard]] inline std::uint64_t read_ticks() noexcept { return trace::read_ticks(); }

// A linear map from ticks to nanoseconds since the capture's origin.
struct TickCalibration {
  std::uint64_t ticks0 = 0;
  std::int64_t ns0 = 0;        // CLOCK_MONOTONIC at ticks0
  double ns_per_tick = 1.0;

  [[nodiscard]] std::int64_t to_ns(std::uint64_t ticks) const noexcept {
    if (ticks <= ticks0) return 0;
    return static_cast<std::int64_t>(static_cast<double>(ticks - ticks0) * ns_per_tick);
  }
};

// The origin: a tick count and the monotonic time that goes with it.
[[nodiscard]] TickCalibration tick_origin() noexcept;
// Measures the rate between `origin` and now (waiting, if needed, until
// `min_interval_ns` have passed since the origin, at most that long).
[[nodiscard]] TickCalibration calibrate(const TickCalibration& origin,
                                        std::int64_t min_interval_ns = kMinCalibrationNs) noexcept;

}  // namespace skein::capture
