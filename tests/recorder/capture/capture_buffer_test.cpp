// capture_buffer_test.cpp — the capture's bounded buffer (capture_buffer.hpp)
// on its own, producer and consumer driven by hand: chunks come out whole and
// in order, the writer hears of every hand-over and of the one that left the
// producer without a chunk, a starved producer drops and counts, the first
// record after a chunk comes back carries the exact count, a producer takes
// no fresh memory while the writer is behind (invariant 5), records read
// the clock where the rule says, a lost record's time lies between the
// times of the records around it, and a budget that cannot be mapped is an
// error value.
#include <catch2/catch.hpp>
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "recorder/capture/capture_buffer.hpp"

using namespace skein;
using namespace skein::capture;

namespace {

struct Calls {
  std::vector<bool> starved;
};

void on_filled(void* context, bool starved) { static_cast<Calls*>(context)->starved.push_back(starved); }

// The memory of a buffer of `budget_bytes`.
ChunkMemory mapped(std::size_t budget_bytes) {
  auto memory = ChunkMemory::map(budget_bytes);
  REQUIRE(memory.ok());
  return std::move(memory).value();
}

// One record through the window, as the capture's sink stores it.
void produce(CaptureBuffer& buffer, std::int64_t n) {
  REQUIRE(buffer.make_room());
  trace::detail::write_record<trace::RecordCode::read>(0, n, n + 1, 0);
}

}  // namespace

TEST_CASE("a starved producer drops and counts, and the writer hears of it once") {
  constexpr std::uint32_t kChunks = 8;
  CaptureBuffer buffer(mapped(kChunks * sizeof(Chunk)), CaptureMode::stream);
  Calls calls;
  buffer.on_chunk_filled = on_filled;
  buffer.on_chunk_filled_context = &calls;
  REQUIRE(buffer.chunk_count() == kChunks);
  const std::atomic<bool> go{false};
  buffer.prefault_ahead(kChunks, go);  // so that only the budget's end starves it
  REQUIRE(buffer.prefaulted() == kChunks);

  // More records than the budget holds.
  constexpr std::int64_t kExtra = 3 * kRecordsPerChunk + 17;
  const std::int64_t total = kChunks * kRecordsPerChunk + kExtra;
  for (std::int64_t i = 0; i < total; ++i) produce(buffer, i);

  // Every chunk was filled and handed over, in order, and the rest was
  // counted as dropped.
  REQUIRE(buffer.filled_count() == kChunks);
  CHECK(buffer.dropped() == static_cast<std::uint64_t>(kExtra));
  CHECK(buffer.current_index() == -1);
  // The writer heard of every hand-over, and of the starvation exactly once.
  REQUIRE(calls.starved.size() == kChunks);
  for (std::size_t i = 0; i + 1 < calls.starved.size(); ++i) CHECK_FALSE(calls.starved[i]);
  CHECK(calls.starved.back());

  std::vector<std::uint32_t> order;
  std::uint32_t index = 0;
  std::int64_t next = 0;
  while (buffer.pop_filled(index)) {
    order.push_back(index);
    const Chunk& chunk = buffer.chunk(index);
    REQUIRE(buffer.published(chunk) == kRecordsPerChunk);
    for (std::uint32_t r = 0; r < kRecordsPerChunk; ++r) REQUIRE(chunk.records[r].a == next++);
  }
  CHECK(order == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(buffer.filled_count() == 0);

  // The writer gives one chunk back: the dropping producer finds it, and its
  // first record there is (lost COUNT), every record dropped until then.
  buffer.give_back(5);
  const std::uint64_t dropped = buffer.dropped();
  std::int64_t more = 0;
  while (buffer.current_index() < 0) {
    produce(buffer, total + more);
    ++more;
    REQUIRE(more <= 1000);  // a dropping producer looks for a chunk every few dozen records
  }
  CHECK(buffer.current_index() == 5);
  const Chunk& fresh = buffer.chunk(5);
  REQUIRE(buffer.published(fresh) == 2);
  CHECK(fresh.records[0].head == static_cast<std::uint8_t>(RecordHead::lost));
  CHECK(static_cast<std::uint64_t>(fresh.records[0].a) == dropped + static_cast<std::uint64_t>(more) - 1);
  CHECK(fresh.records[1].head == static_cast<std::uint8_t>(RecordHead::read));
  CHECK(fresh.records[1].a == total + more - 1);
  CHECK(buffer.dropped() == 0);
  CHECK(calls.starved.size() == kChunks);  // taking a chunk back is not a hand-over
}

TEST_CASE("prefaulting ahead stops when asked to and leaves the records alone") {
  constexpr std::uint32_t kChunks = 100;
  CaptureBuffer buffer(mapped(kChunks * sizeof(Chunk)), CaptureMode::stream);
  for (std::int64_t i = 0; i < 3 * static_cast<std::int64_t>(kRecordsPerChunk); ++i) produce(buffer, i);
  const std::atomic<bool> stopped{true};
  buffer.prefault_ahead(1000, stopped);
  CHECK(buffer.prefaulted() == 0);
  const std::atomic<bool> go{false};
  buffer.prefault_ahead(2, go);  // the producer has taken chunks 0-2: as many again
  CHECK(buffer.prefaulted() == 6);
  buffer.prefault_ahead(1000, go);  // a step at a time
  CHECK(buffer.prefaulted() == 6 + CaptureBuffer::kPrefaultStep);
  buffer.prefault_ahead(1000, go);  // and never past the budget
  CHECK(buffer.prefaulted() == kChunks);
  produce(buffer, -5);  // takes chunk 3, faulted in already
  std::uint32_t index = 0;
  std::int64_t next = 0;
  for (std::uint32_t expected = 0; expected < 3; ++expected) {
    REQUIRE(buffer.pop_filled(index));
    CHECK(index == expected);
    const Chunk& chunk = buffer.chunk(index);
    for (std::uint32_t r = 0; r < kRecordsPerChunk; ++r) REQUIRE(chunk.records[r].a == next++);
  }
  CHECK(buffer.current_index() == 3);
  REQUIRE(buffer.published(buffer.chunk(3)) == 1);
  CHECK(buffer.chunk(3).records[0].a == -5);
}

TEST_CASE("records read the clock only where user code ran or the loop blocked, and every eighth record") {
  CaptureBuffer buffer(mapped(8 * sizeof(Chunk)), CaptureMode::stream);
  trace::RecordWindow& w = trace::detail::g_record_window;
  w.since_stamp = trace::kStampEvery;  // as a capture starts: stamp first
  trace::detail::g_user_code_returned = false;
  std::vector<bool> fresh;  // whether each record read the clock
  std::uint64_t last = 0;
  auto record = [&](auto head, std::int64_t thread) {
    REQUIRE(buffer.make_room());
    const trace::Record* r = w.cursor.load();
    trace::detail::write_record<decltype(head)::value>(0, thread, 2, 0);
    // Two reads of the counter differ; a record that did not read it
    // carries the one before exactly.
    fresh.push_back(r->ticks != last);
    last = r->ticks;
  };
  using Read = std::integral_constant<trace::RecordCode, trace::RecordCode::read>;
  using Notify = std::integral_constant<trace::RecordCode, trace::RecordCode::notify>;
  using Switch = std::integral_constant<trace::RecordCode, trace::RecordCode::switch_>;
  using Idle = std::integral_constant<trace::RecordCode, trace::RecordCode::idle>;
  for (int i = 0; i < 17; ++i) record(Read{}, 1);
  const std::vector<bool> every_eighth = {true,  false, false, false, false, false, false, false, true,
                                          false, false, false, false, false, false, false, true};
  CHECK(fresh == every_eighth);
  fresh.clear();
  record(Notify{}, 1);  // the runtime's own step: the time before
  record(Read{}, 1);
  record(Switch{}, 3);  // to a thread: the scheduler's step, but its run starts
  record(Read{}, 3);    // after the thread's code started
  record(Read{}, 3);
  record(Switch{}, trace::kScheduler);  // the run ends
  record(Notify{}, trace::kScheduler);  // the scheduler's own step
  record(Idle{}, trace::kScheduler);    // the loop blocks
  record(Notify{}, trace::kScheduler);  // after the block
  record(Read{}, 1);
  trace::detail::g_user_code_returned = true;  // a callback returned
  record(Read{}, 1);
  record(Read{}, 1);
  CHECK(fresh == std::vector<bool>{false, false, false, true, false, true, false, true, true, false, true, false});
  CHECK_FALSE(trace::detail::g_user_code_returned);
}

TEST_CASE("a producer the writer keeps up with takes fresh memory, one it cannot does not") {
  constexpr std::uint32_t kChunks = 200;
  const std::atomic<bool> go{false};
  SECTION("the writer keeps up: nothing is dropped, though nothing was faulted in ahead") {
    CaptureBuffer buffer(mapped(kChunks * sizeof(Chunk)), CaptureMode::stream);
    std::uint32_t index = 0;
    for (std::int64_t i = 0; i < 3 * static_cast<std::int64_t>(kChunks * kRecordsPerChunk); ++i) {
      produce(buffer, i);
      while (buffer.pop_filled(index)) buffer.give_back(index);  // converted at once
    }
    CHECK(buffer.dropped() == 0);
    CHECK(buffer.prefaulted() == 0);
  }
  SECTION("the writer is behind: no fresh chunk past a quarter of the budget, until it faults more in") {
    CaptureBuffer buffer(mapped(kChunks * sizeof(Chunk)), CaptureMode::stream);
    const auto backlog = static_cast<std::int64_t>(buffer.backlog_limit());
    REQUIRE(backlog == kChunks / 4);
    const std::int64_t fits = backlog * static_cast<std::int64_t>(kRecordsPerChunk);
    for (std::int64_t i = 0; i < fits + 500; ++i) produce(buffer, i);
    CHECK(buffer.filled_count() == static_cast<std::size_t>(backlog));
    CHECK(buffer.current_index() == -1);
    CHECK(buffer.dropped() == 500);
    // Faulted in: the producer takes them again.
    buffer.prefault_ahead(64, go);
    std::int64_t more = 0;
    while (buffer.current_index() < 0 && more < 1000) produce(buffer, more++);
    CHECK(buffer.current_index() == backlog);
    CHECK(buffer.chunk(static_cast<std::uint32_t>(backlog)).records[0].a == 500 + more - 1);  // (lost COUNT)
  }
  SECTION("a small budget still holds a burst of kMinBacklogChunks") {
    CaptureBuffer buffer(mapped(40 * sizeof(Chunk)), CaptureMode::stream);
    CHECK(buffer.backlog_limit() == CaptureBuffer::kMinBacklogChunks);
  }
}

TEST_CASE("lost records keep time order: a lost record's time lies between the records around it") {
  constexpr std::uint32_t kChunks = 2;
  CaptureBuffer buffer(mapped(kChunks * sizeof(Chunk)), CaptureMode::stream);
  trace::RecordWindow& w = trace::detail::g_record_window;
  w.since_stamp = trace::kStampEvery;  // as a capture starts: stamp first
  trace::detail::g_user_code_returned = false;
  // Fill the budget and drop: every record times itself by the rule (a
  // fresh reading every eighth record, the one before's otherwise).
  const std::int64_t total = kChunks * kRecordsPerChunk + 200;
  for (std::int64_t i = 0; i < total; ++i) produce(buffer, i);
  REQUIRE(buffer.dropped() == 200);
  std::vector<std::uint64_t> times;
  std::uint32_t index = 0;
  while (buffer.pop_filled(index)) {
    const Chunk& chunk = buffer.chunk(index);
    for (std::uint32_t r = 0; r < buffer.published(chunk); ++r) times.push_back(chunk.records[r].ticks);
    buffer.give_back(index);
  }
  // The producer finds a chunk again: (lost COUNT) first, then the record
  // that found it, which carries the time before (no fresh reading), as
  // most records do.
  std::int64_t more = 0;
  while (buffer.current_index() < 0) {
    w.since_stamp = 0;
    produce(buffer, total + more++);
    REQUIRE(more <= 1000);
  }
  const Chunk& fresh = buffer.chunk(static_cast<std::uint32_t>(buffer.current_index()));
  REQUIRE(buffer.published(fresh) == 2);
  REQUIRE(fresh.records[0].head == static_cast<std::uint8_t>(RecordHead::lost));
  times.push_back(fresh.records[0].ticks);
  times.push_back(fresh.records[1].ticks);
  CAPTURE(times.back(), times[times.size() - 2], times[times.size() - 3]);
  CHECK(std::is_sorted(times.begin(), times.end()));
}

TEST_CASE("a capture buffer that cannot be mapped: the budget is an error value that says how much and why") {
  const auto memory = ChunkMemory::map(std::size_t{1} << 62);  // more than any address space
  REQUIRE_FALSE(memory.ok());
  CHECK(memory.error().to_string().rfind("capture buffer of 4398046511104 MiB: cannot be mapped: ", 0) == 0);
}
