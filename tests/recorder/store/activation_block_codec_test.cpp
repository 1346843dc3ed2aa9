// activation_block_codec_test.cpp — the activations' blob
// (recorder/store/activation_block_codec.hpp): what the encoder writes
// decodes to what it was given, at the edges of every field; it is the
// encoding SCHEMA.md describes, read by the tests' own decoder
// (tests/support/packed_activations.hpp) and written by its encoder; and
// the decoder refuses each fault, naming the block and the byte.
#include "recorder/store/activation_block_codec.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/support/packed_activations.hpp"

using namespace skein;

namespace {

// Edges of every field: the scheduler and the largest thread id, times at
// 0 and kMaxTime, a start going back, an end before its start (a trace
// whose time went back), events far apart.
std::vector<StoredActivation> sample() {
  return {
      {1, 1, -1, 0, 0},
      {2, 2, 0, 5, 9},
      {3, 9'000'000'000, 9'223'372'036'854'775'807, 3, 2},
      {4, 9'000'000'001, 42, kMaxTime, kMaxTime},
      {5, 9'000'000'002, -9'223'372'036'854'775'807, 0, kMaxTime},
      {6, 9'000'000'002, 7, 1'000, 1'000},
  };
}

std::string encode(const std::vector<StoredActivation>& in) {
  ActivationBlockEncoder e;
  for (const StoredActivation& a : in) e.add(a.event, a.thread, a.start, a.end);
  return e.take();
}

// The decoder's error for `blob` as block 1 of `count` activations, "" when
// it decodes.
std::string decode_error(const std::string& blob, std::int64_t count) {
  std::vector<StoredActivation> out;
  const Status s = decode_activation_block(blob, ActivationBlockPlace{"t.db", 1, 1, count}, out);
  return s.ok() ? std::string() : s.error().to_string();
}

}  // namespace

TEST_CASE("activation blocks: what is encoded decodes as given, at the edges of every field") {
  const std::vector<StoredActivation> in = sample();
  std::vector<StoredActivation> out;
  REQUIRE(decode_activation_block(encode(in), ActivationBlockPlace{"t.db", 1, 1, 6}, out).ok());
  REQUIRE(out.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("activation " << i);
    CHECK(out[i].id == in[i].id);
    CHECK(out[i].event == in[i].event);
    CHECK(out[i].thread == in[i].thread);
    CHECK(out[i].start == in[i].start);
    CHECK(out[i].end == in[i].end);
  }
  // A second block numbers its activations from its own first.
  REQUIRE(decode_activation_block(encode(in), ActivationBlockPlace{"t.db", 3, 2 * kActivationBlockSize + 1,
                                                                   2 * kActivationBlockSize + 6},
                                  out)
              .ok());
  CHECK(out.front().id == 2 * kActivationBlockSize + 1);
  CHECK(out.back().id == 2 * kActivationBlockSize + 6);
}

TEST_CASE("activation blocks: the store's blob is the encoding SCHEMA.md describes") {
  const std::vector<StoredActivation> in = sample();
  const std::vector<test::PackedActivation> read = test::unpack_activations(encode(in), 1);
  REQUIRE(read.size() == in.size());
  std::vector<test::PackedActivation> packed;
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("activation " << i);
    CHECK(read[i].event == in[i].event);
    CHECK(read[i].thread == in[i].thread);
    CHECK(read[i].start == in[i].start);
    CHECK(read[i].end == in[i].end);
    packed.push_back({in[i].id, in[i].event, in[i].thread, in[i].start, in[i].end});
  }
  // The tests' encoder writes the same bytes.
  CHECK(test::pack_activations(packed) == encode(in));
  // The small case byte by byte: event 2 (zigzag 4), thread -1 (zigzag 1),
  // start 5 (zigzag 10), a run of 3 (zigzag 6); then event 3 (+1: 2),
  // thread 1 (2), start 4 (-1: 1), a run of 0 (0).
  CHECK(encode({{1, 2, -1, 5, 8}, {2, 3, 1, 4, 4}}) == std::string("\x04\x01\x0a\x06\x02\x02\x01\x00", 8));
}

TEST_CASE("activation blocks: the decoder refuses each fault of a block, and accepts its neighbour") {
  const std::string good = encode({{1, 2, 1, 5, 8}});
  REQUIRE(decode_error(good, 1).empty());
  const std::string row = "t.db: damaged Skein database: activation_blocks row 1: ";

  SECTION("fewer or more activations than the block's range, or a range not the block's") {
    CHECK(decode_error(good, 2) == row + "byte 4: holds 1 activations, and its range 2");
    CHECK(decode_error(good + good, 1) == row + "byte 4: 4 bytes after its last activation");
    CHECK(decode_error(good + good, 2).empty());
    CHECK(decode_error(good, 0).find("are not the block's") != std::string::npos);
    CHECK(decode_error(good, kActivationBlockSize + 1).find("are not the block's") != std::string::npos);
    std::vector<StoredActivation> out;
    CHECK_FALSE(decode_activation_block(good, ActivationBlockPlace{"t.db", 2, 1, 1}, out).ok());
    CHECK_FALSE(decode_activation_block(good, ActivationBlockPlace{"t.db", 0, 1, 1}, out).ok());
  }
  SECTION("an activation cut short, anywhere") {
    for (std::size_t n = 1; n < good.size(); ++n)
      CHECK(decode_error(good.substr(0, n), 1) ==
            row + "byte " + std::to_string(n) + ": the activations end in the middle of a number");
    CHECK(decode_error(std::string("\x84", 1), 1) == row + "byte 0: the activations end in the middle of a number");
  }
  SECTION("values out of range, and their limits") {
    const auto one = [](std::int64_t event, std::int64_t thread, std::int64_t start, std::int64_t end) {
      return test::pack_activations({{1, event, thread, start, end}});
    };
    CHECK(decode_error(one(0, 1, 5, 8), 1) == row + "byte 0: event id 0 (ids start at 1)");
    CHECK(decode_error(one(-3, 1, 5, 8), 1) == row + "byte 0: event id -3 (ids start at 1)");
    CHECK(decode_error(one(2, INT64_MIN, 5, 8), 1) ==
          row + "byte 1: thread id -9223372036854775808, which no record may name");
    CHECK(decode_error(one(2, 1, -1, 8), 1) == row + "byte 2: a start outside 0 to 4611686018427387903 ns");
    CHECK(decode_error(one(2, 1, kMaxTime + 1, kMaxTime + 1), 1).find("byte 2: a start outside") !=
          std::string::npos);
    CHECK(decode_error(one(2, 1, 5, kMaxTime + 1), 1) == row + "byte 3: an end outside 0 to 4611686018427387903 ns");
    CHECK(decode_error(one(2, 1, 5, -1), 1) == row + "byte 3: an end outside 0 to 4611686018427387903 ns");
    CHECK(decode_error(one(1, INT64_MAX, 0, kMaxTime), 1).empty());
    CHECK(decode_error(one(INT64_MAX, 1, kMaxTime, 0), 1).empty());
    // A varint past 64 bits.
    CHECK(decode_error(std::string(11, '\xff'), 1) == row + "byte 0: a number longer than 64 bits");
  }
}
