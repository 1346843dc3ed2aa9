// checked_arithmetic_test.cpp — recorder/format/checked_arithmetic.hpp at the ends
// of the signed 64-bit range: checked forms give nullopt exactly when the
// exact result does not fit, saturating forms the nearest end, distance()
// the exact gap for every pair. Most cases are also compile-time checks.
#include "recorder/format/checked_arithmetic.hpp"

#include <catch2/catch.hpp>

#include <limits>
#include <vector>

#include "recorder/format/record.hpp"

namespace skein {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

static_assert(checked_add(kMax, 0) == kMax);
static_assert(!checked_add(kMax, 1));
static_assert(!checked_add(kMin, -1));
static_assert(checked_add(kMin, kMax) == -1);
static_assert(!checked_sub(kMin, 1));
static_assert(!checked_sub(0, kMin));
static_assert(checked_sub(-1, kMin) == kMax);
static_assert(!checked_mul(kMin, -1));
static_assert(checked_mul(kMax, -1) == kMin + 1);
static_assert(saturating_add(kMax, kMax) == kMax);
static_assert(saturating_add(kMin, kMin) == kMin);
static_assert(saturating_sub(kMin, kMax) == kMin);
static_assert(saturating_sub(kMax, kMin) == kMax);
static_assert(saturating_mul(kMin, -1) == kMax);
static_assert(saturating_mul(kMin, 2) == kMin);
static_assert(saturating_mul(kMax, -2) == kMin);
static_assert(distance(kMin, kMax) == std::numeric_limits<std::uint64_t>::max());
static_assert(distance(kMax, kMin) == std::numeric_limits<std::uint64_t>::max());
// The format's limit: any two times add up and subtract.
static_assert(checked_add(kMaxTime, kMaxTime) == kMax - 1);
static_assert(checked_sub(0, kMaxTime) == -kMaxTime);

// The exact result, in 128 bits (a GCC and Clang extension).
__extension__ typedef __int128 Int128;
Int128 exact_add(std::int64_t a, std::int64_t b) { return static_cast<Int128>(a) + b; }
Int128 exact_sub(std::int64_t a, std::int64_t b) { return static_cast<Int128>(a) - b; }
Int128 exact_mul(std::int64_t a, std::int64_t b) { return static_cast<Int128>(a) * b; }
bool fits(Int128 v) { return v >= kMin && v <= kMax; }
std::int64_t clamp(Int128 v) { return v < kMin ? kMin : v > kMax ? kMax : static_cast<std::int64_t>(v); }

}  // namespace

TEST_CASE("checked arithmetic at ±2^63 agrees with 128-bit arithmetic", "[checked]") {
  const std::vector<std::int64_t> values = {kMin,     kMin + 1, kMin / 2, -kMaxTime - 1, -kMaxTime, -3, -2, -1, 0,
                                            1,        2,        3,        kMaxTime,      kMaxTime + 1, kMax / 2,
                                            kMax - 1, kMax};
  for (const std::int64_t a : values)
    for (const std::int64_t b : values) {
      INFO(a << " and " << b);
      const Int128 sum = exact_add(a, b), difference = exact_sub(a, b), product = exact_mul(a, b);
      CHECK(checked_add(a, b).has_value() == fits(sum));
      CHECK(checked_sub(a, b).has_value() == fits(difference));
      CHECK(checked_mul(a, b).has_value() == fits(product));
      if (fits(sum)) CHECK(*checked_add(a, b) == static_cast<std::int64_t>(sum));
      if (fits(difference)) CHECK(*checked_sub(a, b) == static_cast<std::int64_t>(difference));
      if (fits(product)) CHECK(*checked_mul(a, b) == static_cast<std::int64_t>(product));
      CHECK(saturating_add(a, b) == clamp(sum));
      CHECK(saturating_sub(a, b) == clamp(difference));
      CHECK(saturating_mul(a, b) == clamp(product));
      const Int128 gap = difference < 0 ? -difference : difference;
      CHECK(static_cast<Int128>(distance(a, b)) == gap);
    }
}

TEST_CASE("the format's limits: times 0 to 2^62 - 1, every thread id but -2^63", "[checked]") {
  CHECK(kMaxTime == (std::int64_t{1} << 62) - 1);
  CHECK(is_valid_time(0));
  CHECK(is_valid_time(kMaxTime));
  CHECK_FALSE(is_valid_time(kMaxTime + 1));
  CHECK_FALSE(is_valid_time(-1));
  CHECK_FALSE(is_valid_time(kMax));
  CHECK_FALSE(is_valid_time(kMin));
  CHECK_FALSE(is_valid_thread_id(kMin));
  CHECK(is_valid_thread_id(kMin + 1));
  CHECK(is_valid_thread_id(-1));
  CHECK(is_valid_thread_id(kMax));
}

}  // namespace skein
