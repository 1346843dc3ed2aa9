// captured_record_writer_test.cpp — the capture's writer formats its common records
// itself (captured_record_writer.hpp: write_fast, with the time's digits cached), so
// every line it writes must equal, byte for byte, what the trace format's own
// writer writes for the same record: for every head, negative and extreme
// values, shared and changing times, and sites written before first use.
#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <source_location>

#include "recorder/capture/captured_record_writer.hpp"
#include "recorder/format/trace_reader.hpp"
#include "runtime/trace_sink.hpp"

using namespace skein;
using namespace skein::capture;

namespace {

struct Writers {
  StringArena strings{1 << 16};
  SiteTable sites{64, strings};
  CapturedRecordWriter converter{strings, sites, 64};
  std::string fast_text, reference_text;
  TraceWriter fast{string_output(fast_text)};
  TraceWriter reference{string_output(reference_text)};

  Writers() {
    TickCalibration calibration;
    calibration.ticks0 = 1000;
    calibration.ns_per_tick = 0.37;  // a rate that is not 1, so ticks and ns differ
    converter.set_calibration(calibration);
  }

  // The record as the trace format's Record, written by TraceWriter itself.
  void write_reference(const CapturedRecord& c, bool site_first) {
    const TimeNs t = converter.time_of(c);
    switch (static_cast<RecordHead>(c.head)) {
      case RecordHead::spawn:
        if (site_first) {
          const SiteEntry& e = sites.entry(c.ref);
          reference.write(Record{SiteRecord{c.ref, strings.get(e.file), e.line, strings.get(e.function)}});
        }
        reference.write(Record{SpawnRecord{t, c.a, c.b, trace::kind_name(static_cast<trace::Kind>(c.code)), c.ref}});
        return;
      case RecordHead::wait: reference.write(Record{WaitRecord{t, c.a, c.b}}); return;
      case RecordHead::read: reference.write(Record{ReadRecord{t, c.a, c.b}}); return;
      case RecordHead::notify:
        reference.write(Record{NotifyRecord{t, c.a, c.b, trace::reason_name(static_cast<trace::Reason>(c.code))}});
        return;
      case RecordHead::resolve:
        reference.write(Record{ResolveRecord{t, c.a, c.b, static_cast<Outcome>(c.code), std::nullopt}});
        return;
      case RecordHead::merge: reference.write(Record{MergeRecord{t, c.a, c.b}}); return;
      case RecordHead::switch_: reference.write(Record{SwitchRecord{t, c.a}}); return;
      case RecordHead::idle: reference.write(Record{IdleRecord{t}}); return;
      case RecordHead::lost: reference.write(Record{LostRecord{t, c.a}}); return;
      case RecordHead::drop: reference.write(Record{DropRecord{t, c.a, c.b}}); return;
      case RecordHead::no_waiter:
        reference.write(
            Record{NoWaiterRecord{t, c.a, c.b, trace::reason_name(static_cast<trace::Reason>(c.code))}});
        return;
      case RecordHead::queued: reference.write(Record{QueuedRecord{t, c.a, c.b}}); return;
      default: FAIL("no reference for head " << int(c.head));
    }
  }

  void check_same() {
    REQUIRE(fast.finish().ok());
    REQUIRE(reference.finish().ok());
    REQUIRE(!fast_text.empty());
    REQUIRE(fast_text == reference_text);
  }
};

CapturedRecord record(RecordHead head, std::uint64_t ticks, std::int64_t a, std::int64_t b, std::uint8_t code = 0,
                      std::uint32_t ref = 0) {
  CapturedRecord c{};
  c.ticks = ticks;
  c.a = a;
  c.b = b;
  c.ref = ref;
  c.head = static_cast<std::uint8_t>(head);
  c.code = code;
  return c;
}

}  // namespace

TEST_CASE("the fast formatter writes every common head as the trace writer does") {
  Writers w;
  const std::uint32_t site = w.sites.intern(std::source_location::current());
  constexpr auto big = std::numeric_limits<std::int64_t>::max();
  constexpr auto small = std::numeric_limits<std::int64_t>::min();
  const CapturedRecord records[] = {
      record(RecordHead::spawn, 5000, 1, 0, static_cast<std::uint8_t>(trace::Kind::bind), site),
      record(RecordHead::spawn, 5000, 2, 1, static_cast<std::uint8_t>(trace::Kind::semaphore), site),
      record(RecordHead::wait, 5000, 2, 1),
      record(RecordHead::read, 900, 0, 0),  // before the origin: time 0
      record(RecordHead::notify, 123456789, -1, 7, static_cast<std::uint8_t>(trace::Reason::timer)),
      record(RecordHead::notify, 123456789, 9, 10, static_cast<std::uint8_t>(trace::Reason::yield)),
      record(RecordHead::resolve, 123456790, 2, 2, static_cast<std::uint8_t>(Outcome::ok)),
      record(RecordHead::resolve, 123456790, 3, -1, static_cast<std::uint8_t>(Outcome::cancel)),
      record(RecordHead::merge, 99999999999ull, big, small),
      record(RecordHead::switch_, 99999999999ull, -1, 0),
      record(RecordHead::switch_, 100000000000ull, 10, 0),
      record(RecordHead::idle, 100000000001ull, 0, 0),
      record(RecordHead::lost, 100000000001ull, 4242, 0),
      record(RecordHead::wait, 1001, 99, 100),  // time going back: the cache must not be reused
      record(RecordHead::drop, 1001, 99, 0),
      record(RecordHead::drop, 1002, big, -1),
      record(RecordHead::no_waiter, 1003, 0, 1, static_cast<std::uint8_t>(trace::Reason::condition)),
      record(RecordHead::no_waiter, 1003, -1, big, static_cast<std::uint8_t>(trace::Reason::semaphore)),
      record(RecordHead::no_waiter, 1004, 7, 123456789, static_cast<std::uint8_t>(trace::Reason::stream)),
      record(RecordHead::queued, 1004, 100, 1),
      record(RecordHead::queued, 1005, small + 1, big),
  };
  bool first_spawn = true;
  for (const CapturedRecord& c : records) {
    w.converter.write(w.fast, c);
    w.write_reference(c, c.head == static_cast<std::uint8_t>(RecordHead::spawn) && first_spawn);
    if (c.head == static_cast<std::uint8_t>(RecordHead::spawn)) first_spawn = false;
  }
  w.check_same();
  // And what it wrote reads back as a valid trace body.
  CHECK(w.fast_text.find("(site ") == 0);
  CHECK(w.fast_text.find("(merge ") != std::string::npos);
}

TEST_CASE("the fast formatter matches the trace writer on random records") {
  Writers w;
  const std::uint32_t site = w.sites.intern(std::source_location::current());
  std::mt19937_64 random(20261129);
  const RecordHead heads[] = {RecordHead::spawn,   RecordHead::wait,    RecordHead::read,
                              RecordHead::notify,  RecordHead::resolve, RecordHead::merge,
                              RecordHead::switch_, RecordHead::idle,    RecordHead::lost,
                              RecordHead::drop,    RecordHead::no_waiter, RecordHead::queued};
  std::uint64_t ticks = 1000;
  bool first_spawn = true;
  for (int i = 0; i < 20000; ++i) {
    if (random() % 3 == 0) ticks += random() % 100000;  // shared times, as the capture stamps them
    const RecordHead head = heads[random() % std::size(heads)];
    std::uint8_t code = 0;
    if (head == RecordHead::spawn) code = static_cast<std::uint8_t>(random() % 21);
    if (head == RecordHead::notify || head == RecordHead::no_waiter)
      code = static_cast<std::uint8_t>(random() % 9);  // every Reason
    if (head == RecordHead::resolve) code = random() % 2 == 0 ? 0 : 2;  // ok or cancel
    const auto value = [&] {
      switch (random() % 4) {
        case 0: return static_cast<std::int64_t>(random() % 10) - 1;
        case 1: return static_cast<std::int64_t>(random() % 100000000);
        case 2: return -static_cast<std::int64_t>(random() % 1000000);
        default: return static_cast<std::int64_t>(random());
      }
    };
    const CapturedRecord c = record(head, ticks, value(), value(), code, site);
    w.converter.write(w.fast, c);
    w.write_reference(c, head == RecordHead::spawn && first_spawn);
    if (head == RecordHead::spawn) first_spawn = false;
  }
  w.check_same();
}
