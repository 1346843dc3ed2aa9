// The packed records of a block: what the store's encoder writes is what
// SCHEMA.md describes (read back by the independent decoder of
// tests/support/packed_events.hpp), the store's decoder gives back every
// field, and each fault the decoder refuses is refused, with its neighbour
// on the accepted side passing.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "recorder/store/event_block_codec.hpp"
#include "tests/support/packed_events.hpp"

using namespace skein;
using skein::test::PackedEvent;

namespace {

TraceEvent event(RecordHead head, std::optional<TimeNs> time, ThreadId actor = kNoThread, ThreadId target = kNoThread,
                 std::optional<std::int64_t> value = {}, std::optional<std::string_view> text = {}) {
  TraceEvent e;
  e.head = head;
  e.has_time = time.has_value();
  e.time = time.value_or(0);
  e.actor = actor;
  e.target = target;
  e.has_value = value.has_value();
  e.value = value.value_or(0);
  e.has_text = text.has_value();
  e.text = text.value_or(std::string_view());
  return e;
}

// Every head, every field present and absent, the extremes of each range,
// time going backwards, an empty text and one with a NUL.
std::vector<TraceEvent> sample() {
  static const std::string nul("a\0b", 3);
  return {
      event(RecordHead::site, std::nullopt, kNoThread, kNoThread, 7),
      event(RecordHead::spawn, 0, -1, 1, 7, "task"),
      event(RecordHead::label, 5, 1, kNoThread, {}, ""),
      event(RecordHead::switch_, 5, 1),
      event(RecordHead::wait, 4, 1, INT64_MAX),                         // time goes backwards
      event(RecordHead::read, kMaxTime, kReservedThreadId + 1, 2),    // the extremes
      event(RecordHead::notify, 0, 2, 1, {}, nul),
      event(RecordHead::resolve, 9, 2, 1, 2, "failed: x"),
      event(RecordHead::merge, 9, 1, 3),
      event(RecordHead::counter, 10, kNoThread, kNoThread, INT64_MIN, "queue"),
      event(RecordHead::idle, 11),
      event(RecordHead::gc, 12, kNoThread, kNoThread, kMaxTime),
      event(RecordHead::lost, 12, kNoThread, kNoThread, INT64_MAX),
      event(RecordHead::return_, 13, 3),
      event(RecordHead::should_resolve, 13, kNoThread, 3),
      event(RecordHead::snapshot, 14),
      event(RecordHead::drop, 15, 3, 4),
      event(RecordHead::no_waiter, 15, 3, kNoThread, 1, "condition"),
      event(RecordHead::queued, 16, kNoThread, 4, 1),
      event(RecordHead::end, 17),
  };
}

EventBlockPlace place(std::int64_t records, std::int64_t block = 1) {
  const std::int64_t first = (block - 1) * kEventBlockSize + 1;
  return EventBlockPlace{"t.db", block, first, first + records - 1};
}

std::string encode(const std::vector<TraceEvent>& events) {
  EventBlockEncoder encoder;
  for (const TraceEvent& e : events) encoder.add(e);
  CHECK(encoder.records() == static_cast<std::int64_t>(events.size()));
  return encoder.take();
}

std::string decode_error(const std::string& blob, std::int64_t records) {
  std::vector<TraceEvent> out;
  const Status s = decode_event_block(blob, place(records), out);
  return s.ok() ? std::string() : s.error().to_string();
}

}  // namespace

TEST_CASE("the store's records round-trip through a block, every field and head") {
  const std::vector<TraceEvent> in = sample();
  const std::string blob = encode(in);
  std::vector<TraceEvent> out;
  REQUIRE(decode_event_block(blob, place(static_cast<std::int64_t>(in.size()), 3), out).ok());
  REQUIRE(out.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("record " << i);
    CHECK(out[i].id == 2 * kEventBlockSize + 1 + static_cast<std::int64_t>(i));
    CHECK(out[i].head == in[i].head);
    CHECK(out[i].has_time == in[i].has_time);
    CHECK(out[i].time == in[i].time);
    CHECK(out[i].actor == in[i].actor);
    CHECK(out[i].target == in[i].target);
    CHECK(out[i].has_value == in[i].has_value);
    CHECK(out[i].value == in[i].value);
    CHECK(out[i].has_text == in[i].has_text);
    CHECK(out[i].text == in[i].text);
  }
}

TEST_CASE("the store's blob is the encoding SCHEMA.md describes") {
  const std::vector<TraceEvent> in = sample();
  const std::vector<PackedEvent> read = test::unpack_events(encode(in), 1);
  REQUIRE(read.size() == in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    INFO("record " << i);
    CHECK(read[i].head == static_cast<std::int64_t>(in[i].head));
    CHECK(read[i].time.has_value() == in[i].has_time);
    if (read[i].time) CHECK(*read[i].time == in[i].time);
    CHECK(read[i].actor.value_or(kNoThread) == in[i].actor);
    CHECK(read[i].target.value_or(kNoThread) == in[i].target);
    CHECK(read[i].value.has_value() == in[i].has_value);
    CHECK(read[i].text.has_value() == in[i].has_text);
  }
  // And the small cases take the bytes the description says: a switch of
  // thread 1 at 5 ns is the head byte (3, time and actor flags), the flag
  // byte, zigzag 10 and zigzag 2.
  CHECK(encode({event(RecordHead::switch_, 5, 1)}) == std::string("\x63\x00\x0a\x02", 4));
  // The scheduler, -1, takes one byte (zigzag 1).
  CHECK(encode({event(RecordHead::switch_, 0, -1)}) == std::string("\x63\x00\x00\x01", 4));
  // A second timed record stores the difference: 5 then 3 is +5, -2.
  CHECK(encode({event(RecordHead::idle, 5), event(RecordHead::idle, 3)}) ==
        std::string("\x2a\x00\x0a\x2a\x00\x03", 6));
}

TEST_CASE("the decoder refuses each fault of a block, and accepts its neighbour") {
  const std::string good = encode({event(RecordHead::switch_, 5, 1)});
  REQUIRE(decode_error(good, 1).empty());

  SECTION("fewer or more records than the block's range") {
    CHECK(decode_error(good, 2) == "t.db: damaged Skein database: event_blocks row 1: byte 4: holds 1 records, and its range 2");
    CHECK(decode_error(good + good, 1) == "t.db: damaged Skein database: event_blocks row 1: byte 4: 4 bytes after its last record");
    CHECK(decode_error(good + good, 2).empty());
    CHECK(decode_error("", 0).find("are not a block of 1 to 1024 records") != std::string::npos);
    CHECK(decode_error(good, kEventBlockSize + 1).find("are not a block of 1 to 1024 records") != std::string::npos);
  }
  SECTION("a record cut short, anywhere") {
    for (std::size_t n = 1; n < good.size(); ++n) {
      INFO("first " << n << " bytes");
      CHECK_FALSE(decode_error(good.substr(0, n), 1).empty());
    }
  }
  SECTION("head codes") {
    std::string b = good;
    b[0] = static_cast<char>(0x60 | 19);  // end: the last head
    CHECK(decode_error(b.substr(0, 3) + std::string("\x02", 1), 1).empty());
    b[0] = static_cast<char>(0x60 | 20);
    CHECK(decode_error(b, 1) == "t.db: damaged Skein database: event_blocks row 1: byte 0: record head 20 (heads are 0 to 19)");
  }
  SECTION("flag bits the encoding never sets") {
    std::string b = good;
    b[1] = 4;
    CHECK(decode_error(b, 1) == "t.db: damaged Skein database: event_blocks row 1: byte 1: flag bits the encoding never sets");
  }
  SECTION("times: 0 and kMaxTime pass, one past either side does not") {
    const auto timed = [](std::int64_t delta) {
      std::string b("\x2a\x00", 2);  // an idle with a time
      test::packed_put(b, test::packed_zigzag(delta));
      return b;
    };
    CHECK(decode_error(timed(0), 1).empty());
    CHECK(decode_error(timed(kMaxTime), 1).empty());
    CHECK(decode_error(timed(kMaxTime + 1), 1).find("a time outside 0 to 4611686018427387903 ns") != std::string::npos);
    CHECK(decode_error(timed(-1), 1).find("a time outside") != std::string::npos);
    CHECK(decode_error(timed(INT64_MIN), 1).find("a time outside") != std::string::npos);
    CHECK(decode_error(timed(INT64_MAX), 1).find("a time outside") != std::string::npos);
    // Back to 0 from kMaxTime passes; one further does not.
    CHECK(decode_error(timed(kMaxTime) + timed(-kMaxTime), 2).empty());
    CHECK(decode_error(timed(kMaxTime) + timed(-kMaxTime - 1), 2).find("a time outside") != std::string::npos);
  }
  SECTION("thread ids: every id but the reserved one") {
    const auto switched = [](std::int64_t actor) {
      std::string b("\x43\x00", 2);  // a switch with an actor and no time
      test::packed_put(b, test::packed_zigzag(actor));
      return b;
    };
    CHECK(decode_error(switched(INT64_MAX), 1).empty());
    CHECK(decode_error(switched(kReservedThreadId + 1), 1).empty());
    CHECK(decode_error(switched(kReservedThreadId), 1) ==
          "t.db: damaged Skein database: event_blocks row 1: byte 2: thread id -9223372036854775808, which no record may name");
  }
  SECTION("gc durations") {
    const auto gc = [](std::int64_t duration) {
      std::string b("\x0b\x01", 2);  // a gc with a value and no time
      test::packed_put(b, test::packed_zigzag(duration));
      return b;
    };
    CHECK(decode_error(gc(0), 1).empty());
    CHECK(decode_error(gc(kMaxTime), 1).empty());
    CHECK(decode_error(gc(-1), 1).find("gc duration -1 (gc durations are 0 to") != std::string::npos);
    CHECK(decode_error(gc(kMaxTime + 1), 1).find("gc duration") != std::string::npos);
  }
  SECTION("varints: ten bytes at most, and 64 bits") {
    std::string ten("\x43\x00", 2);
    ten += std::string(9, '\xff') + std::string("\x01", 1);  // 2^64 - 1: zigzag of INT64_MIN
    CHECK(decode_error(ten, 1).find("thread id -9223372036854775808") != std::string::npos);
    std::string wide("\x43\x00", 2);
    wide += std::string(9, '\xff') + std::string("\x02", 1);
    CHECK(decode_error(wide, 1).find("a number longer than 64 bits") != std::string::npos);
    std::string eleven("\x43\x00", 2);
    eleven += std::string(10, '\x80') + std::string("\x01", 1);
    CHECK(decode_error(eleven, 1).find("a number longer than") != std::string::npos);
  }
  SECTION("texts no longer than what is left") {
    std::string b("\x0d\x02\x03", 3);  // an end with a text of 3 bytes
    CHECK(decode_error(b + "abc", 1).empty());
    CHECK(decode_error(b + "ab", 1) == "t.db: damaged Skein database: event_blocks row 1: byte 2: a text of 3 bytes where 2 are left");
    std::string huge("\x0d\x02", 2);
    test::packed_put(huge, UINT64_MAX);
    CHECK(decode_error(huge, 1).find("a text of 18446744073709551615 bytes where 0 are left") != std::string::npos);
  }
}

TEST_CASE("a full block takes about eleven bytes a record on the generated mix") {
  // The bound SCHEMA.md's size budget counts on: a spawn, a wait, a notify
  // and a switch per thread, ids and times growing as a busy trace's do.
  EventBlockEncoder encoder;
  TimeNs t = 1'000'000'000;
  for (std::int64_t i = 0; i < kEventBlockSize / 4; ++i) {
    const ThreadId child = 100'000 + i;
    encoder.add(event(RecordHead::spawn, t += 150, child - 1, child, {}, "bind"));
    encoder.add(event(RecordHead::wait, t += 90, child, child - 1));
    encoder.add(event(RecordHead::notify, t += 200, child - 1, child));
    encoder.add(event(RecordHead::switch_, t += 60, child));
  }
  const std::string blob = encoder.take();
  CHECK(blob.size() <= static_cast<std::size_t>(12 * kEventBlockSize));
  CHECK(encoder.records() == 0);  // take() starts the next block
  std::vector<TraceEvent> out;
  CHECK(decode_event_block(blob, place(kEventBlockSize), out).ok());
}
