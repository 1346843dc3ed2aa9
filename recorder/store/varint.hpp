// varint.hpp — the integers of the store's packed blobs (SCHEMA.md:
// event_blocks.records, transfer_blocks.verdicts): LEB128 varints, seven
// bits a byte, least significant first, the high bit set on every byte but
// the last, at most ten bytes; and zigzag, which maps a signed n to
// (n << 1) ^ (n >> 63) so that small magnitudes of either sign take one
// byte.
//
// Reading never goes past the blob's end and says why it stopped, so each
// decoder can name the byte in its own words.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace skein {

[[nodiscard]] inline std::uint64_t zigzag(std::int64_t n) {
  return (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63);
}
[[nodiscard]] inline std::int64_t unzigzag(std::uint64_t z) {
  return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
}

inline void put_varint(std::string& out, std::uint64_t v) {
  char bytes[10];
  int n = 0;
  while (v >= 0x80) {
    bytes[n++] = static_cast<char>(static_cast<std::uint8_t>(v) | 0x80);
    v >>= 7;
  }
  bytes[n++] = static_cast<char>(v);
  out.append(bytes, static_cast<std::size_t>(n));
}

enum class VarintRead { ok, past_end, over_64_bits, over_ten_bytes };

// Reads the varint at `at` into `out` and moves `at` past it; on failure
// `at` is left anywhere within the blob.
[[nodiscard]] inline VarintRead read_varint(std::string_view blob, std::size_t& at, std::uint64_t& out) {
  std::uint64_t v = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (at >= blob.size()) return VarintRead::past_end;
    const auto b = static_cast<std::uint8_t>(blob[at++]);
    // The tenth byte holds bit 63 only.
    if (shift == 63 && b > 1) return VarintRead::over_64_bits;
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      out = v;
      return VarintRead::ok;
    }
  }
  return VarintRead::over_ten_bytes;
}

}  // namespace skein
