// checked_arithmetic.hpp — +, - and * on signed 64-bit times, durations
// and ids that cannot overflow, in two forms: checked (nullopt when the
// exact result does not fit) and saturating (the exact result clamped to
// [INT64_MIN, INT64_MAX]), plus the exact distance between any two values.
//
// Where they are needed: values that entered through the reader, the
// importers or the store's open lie within the limits of record.hpp
// (times in [0, kMaxTime], ids other than kReservedThreadId), so one sum or
// difference of two of them always fits; sums of many (run time over
// thousands of threads, a histogram's prefix sums) and products (bins times
// bin width) may not, and take these. Built on the compiler's
// __builtin_*_overflow, which computes the exact result and says whether it
// fits, with no undefined behaviour for any input.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace skein {

[[nodiscard]] constexpr std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

[[nodiscard]] constexpr std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

[[nodiscard]] constexpr std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// An overflowing sum has the sign of b (a and b had the same sign).
[[nodiscard]] constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return r;
}

// An overflowing difference has the sign opposite to b's.
[[nodiscard]] constexpr std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r))
    return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
  return r;
}

// An overflowing product is negative exactly when one factor is.
[[nodiscard]] constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
  return r;
}

// |b - a|, exact for every pair: up to 2^64 - 1, which an unsigned 64-bit
// value holds (INT64_MIN to INT64_MAX is 2^64 - 1 apart).
[[nodiscard]] constexpr std::uint64_t distance(std::int64_t a, std::int64_t b) {
  const auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  return a <= b ? ub - ua : ua - ub;
}

}  // namespace skein
