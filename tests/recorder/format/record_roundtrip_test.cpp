// record_roundtrip_test.cpp — each of the 20 record heads is written as
// the line FORMAT.md gives it, spelled out literally (the writer's oracle,
// escapes included); every head, and thousands of random records of every
// head, survive TraceWriter then TraceReader unchanged (with the writer
// pinned, a reader mistake cannot hide in the round trip).
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>

#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

// Writes header + records to a string and reads them back as lines.
std::string write_all(const TraceHeader& header, const std::vector<Record>& records) {
  std::string out;
  TraceWriter writer(string_output(out));
  writer.write_header(header);
  for (const auto& r : records) writer.write(r);
  REQUIRE(writer.finish().ok());
  return out;
}

std::vector<std::string> formatted(const std::vector<Record>& records) {
  std::vector<std::string> lines;
  for (const auto& r : records) lines.push_back(format_record(r));
  return lines;
}

}  // namespace

TEST_CASE("each record head is written as documented in FORMAT.md") {
  CHECK(format_record(SiteRecord{3, "samples/blockread.cpp", 41, "poll"}) ==
        R"((site 3 "samples/blockread.cpp" 41 "poll"))");
  CHECK(format_record(SpawnRecord{120, 7, 0, "bind", 3}) == "(spawn 120 7 0 bind 3)");
  CHECK(format_record(SpawnRecord{120, 7, 0, "bind", std::nullopt}) == "(spawn 120 7 0 bind)");
  CHECK(format_record(LabelRecord{5, 7, "B.read"}) == R"((label 5 7 "B.read"))");
  CHECK(format_record(SwitchRecord{9, -1}) == "(switch 9 -1)");
  CHECK(format_record(WaitRecord{10, 7, 4}) == "(wait 10 7 4)");
  CHECK(format_record(ReadRecord{11, 7, 4}) == "(read 11 7 4)");
  CHECK(format_record(NotifyRecord{12, -1, 4, "timer"}) == "(notify 12 -1 4 timer)");
  CHECK(format_record(NotifyRecord{12, 2, 4, std::nullopt}) == "(notify 12 2 4)");
  CHECK(format_record(ResolveRecord{13, 4, -1, Outcome::ok, std::nullopt}) == "(resolve 13 4 -1 ok)");
  CHECK(format_record(ResolveRecord{13, 4, 2, Outcome::fail, "Not_found"}) ==
        R"((resolve 13 4 2 fail "Not_found"))");
  CHECK(format_record(ResolveRecord{13, 4, 2, Outcome::cancel, std::nullopt}) == "(resolve 13 4 2 cancel)");
  CHECK(format_record(MergeRecord{14, 7, 9}) == "(merge 14 7 9)");
  CHECK(format_record(CounterRecord{15, "blkfront.ring", -3}) == R"((counter 15 "blkfront.ring" -3))");
  CHECK(format_record(IdleRecord{16}) == "(idle 16)");
  CHECK(format_record(GcRecord{17, 2500}) == "(gc 17 2500)");
  CHECK(format_record(LostRecord{18, 12}) == "(lost 18 12)");
  CHECK(format_record(EndRecord{19}) == "(end 19)");
  CHECK(format_record(ReturnRecord{20, 7}) == "(return 20 7)");
  CHECK(format_record(ShouldResolveRecord{21, 4}) == "(should-resolve 21 4)");
  CHECK(format_record(SnapshotRecord{23}) == "(snapshot 23)");
  CHECK(format_record(DropRecord{24, 4, 0}) == "(drop 24 4 0)");
  CHECK(format_record(DropRecord{24, 4, -1}) == "(drop 24 4 -1)");
  CHECK(format_record(NoWaiterRecord{25, 3, 1, "condition"}) == "(no-waiter 25 3 1 condition)");
  CHECK(format_record(QueuedRecord{26, 5, 1}) == "(queued 26 5 1)");
  // Strings: \\ \" \n \t \r escaped by name; other control bytes, DEL and
  // bytes that are not UTF-8 as \xHH; valid UTF-8 as it is.
  CHECK(format_record(LabelRecord{22, 1, "a\\b\"c\nd\te\rf\x01\x7f\xff caf\xc3\xa9"}) ==
        R"((label 22 1 "a\\b\"c\nd\te\rf\x01\x7f\xff caf)" "\xc3\xa9" R"("))");
}

TEST_CASE("every record head round-trips through writer and reader") {
  const std::vector<Record> records = {
      SiteRecord{0, "a \"quoted\" path\\with\tescapes\n", 0, "f"},
      SiteRecord{kMaxSiteId, "", 99999, "std::vector<int>::push_back"},
      SpawnRecord{0, 1, 0, "task", 0},
      SpawnRecord{1, 2, 1, "bind", std::nullopt},
      // The extremes of FORMAT.md's limits: ids other than the reserved
      // -2^63, times up to kMaxTime.
      SpawnRecord{2, INT64_MAX, kReservedThreadId + 1, "some-future.kind", kMaxSiteId},
      LabelRecord{3, 1, "B.read"},
      LabelRecord{3, 1, ""},
      LabelRecord{3, 1, "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x90\xab"},
      LabelRecord{3, 1, std::string_view("\x00\x01\x7f\xff\xc3", 5)},
      SwitchRecord{4, -1},
      WaitRecord{5, 2, 1},
      ReadRecord{6, 2, 1},
      NotifyRecord{7, -1, 2, "timer"},
      NotifyRecord{7, 3, 2, std::nullopt},
      ResolveRecord{8, 1, -1, Outcome::ok, std::nullopt},
      ResolveRecord{8, 1, 0, Outcome::fail, "Failure(\"x\")"},
      ResolveRecord{8, 1, 0, Outcome::fail, ""},
      ResolveRecord{8, 1, 0, Outcome::cancel, std::nullopt},
      MergeRecord{9, 2, 3},
      CounterRecord{10, "blkfront.ring", INT64_MIN},
      IdleRecord{11},
      GcRecord{12, 0},
      LostRecord{13, 5},
      ReturnRecord{14, 1},
      ReturnRecord{14, -1},
      ShouldResolveRecord{15, INT64_MAX},
      SnapshotRecord{16},
      DropRecord{17, 2, 0},
      DropRecord{17, INT64_MAX, kReservedThreadId + 1},
      NoWaiterRecord{18, 0, 1, "condition"},
      NoWaiterRecord{18, -1, INT64_MAX, "some-future.reason"},
      QueuedRecord{19, 2, 1},
      QueuedRecord{19, kReservedThreadId + 1, INT64_MAX},
      EndRecord{kMaxTime},
  };
  // The list names every head: a head added to record.hpp belongs in it.
  REQUIRE(kRecordHeadCount == 20);
  TraceHeader header;
  header.set("process", "round \"trip\"");
  header.set("pid", "4242");
  header.set("origin-unix-ns", "1764409200123456789");
  const std::string text = write_all(header, records);
  const auto result = test::read_all(text);
  CHECK(result.errors.empty());
  CHECK(result.warnings.empty());
  CHECK(result.records == formatted(records));

  // The header's options survive too.
  TraceReader reader(memory_input(text), "t");
  REQUIRE(reader.next() == TraceReader::Step::record);
  REQUIRE(reader.header() != nullptr);
  CHECK(*reader.header()->option("process") == "round \"trip\"");
  CHECK(reader.header()->integer_option("pid") == 4242);
  CHECK(reader.header()->integer_option("origin-unix-ns") == 1764409200123456789);
  // And the strings come back byte for byte, not just the formatted lines.
  const auto* site = std::get_if<SiteRecord>(&reader.record());
  REQUIRE(site != nullptr);
  CHECK(site->file == "a \"quoted\" path\\with\tescapes\n");
}

TEST_CASE("thousands of random records round-trip") {
  std::mt19937_64 rng(20141018);
  std::vector<std::string> storage;  // keeps the random strings alive
  storage.reserve(20000);
  const auto random_int = [&]() -> std::int64_t {
    switch (rng() % 4) {
      case 0: return static_cast<std::int64_t>(rng() % 10);
      case 1: return -static_cast<std::int64_t>(rng() % 1000);
      case 2: return static_cast<std::int64_t>(rng());
      default: return static_cast<std::int64_t>(rng() % 100000);
    }
  };
  // 0 to 2^62 - 1: every time the format allows (kMaxTime).
  const auto random_time = [&]() { return static_cast<TimeNs>(rng() >> 2); };
  const auto random_string = [&]() -> std::string_view {
    std::string s;
    const std::size_t n = rng() % 40;
    for (std::size_t i = 0; i < n; ++i) s += static_cast<char>(rng() % 256);
    storage.push_back(std::move(s));
    return storage.back();
  };
  static constexpr std::string_view kSymbols[] = {"bind", "a.b-c", "x_1", "kind?", "<io>", "-x"};
  const auto random_symbol = [&]() { return kSymbols[rng() % std::size(kSymbols)]; };
  // 1 to 2^63 - 1: every object number the format allows.
  const auto random_object = [&]() -> ObjectId {
    if (rng() % 2 == 0) return static_cast<ObjectId>(1 + rng() % 100);
    return std::max<ObjectId>(1, static_cast<ObjectId>(rng() >> 1));
  };

  std::vector<Record> records;
  for (int i = 0; i < 5000; ++i) {
    switch (rng() % kRecordHeadCount) {
      case 0: records.push_back(SiteRecord{static_cast<SiteId>(rng() % (kMaxSiteId + 1)), random_string(), static_cast<std::int64_t>(rng() >> 1), random_string()}); break;
      case 1: records.push_back(SpawnRecord{random_time(), random_int(), random_int(), random_symbol(), rng() % 2 ? std::optional<SiteId>(static_cast<SiteId>(rng() % 1000)) : std::nullopt}); break;
      case 2: records.push_back(LabelRecord{random_time(), random_int(), random_string()}); break;
      case 3: records.push_back(SwitchRecord{random_time(), random_int()}); break;
      case 4: records.push_back(WaitRecord{random_time(), random_int(), random_int()}); break;
      case 5: records.push_back(ReadRecord{random_time(), random_int(), random_int()}); break;
      case 6: records.push_back(NotifyRecord{random_time(), random_int(), random_int(), rng() % 2 ? std::optional(random_symbol()) : std::nullopt}); break;
      case 7: records.push_back(ResolveRecord{random_time(), random_int(), random_int(), static_cast<Outcome>(rng() % 3), rng() % 2 ? std::optional(random_string()) : std::nullopt}); break;
      case 8: records.push_back(MergeRecord{random_time(), random_int(), random_int()}); break;
      case 9: records.push_back(CounterRecord{random_time(), random_string(), random_int()}); break;
      case 10: records.push_back(IdleRecord{random_time()}); break;
      case 11: records.push_back(GcRecord{random_time(), static_cast<std::int64_t>(rng() >> 2)}); break;
      case 12: records.push_back(LostRecord{random_time(), static_cast<std::int64_t>(rng() % 100000)}); break;
      case 13: records.push_back(EndRecord{random_time()}); break;
      case 14: records.push_back(ReturnRecord{random_time(), random_int()}); break;
      case 15: records.push_back(ShouldResolveRecord{random_time(), random_int()}); break;
      case 16: records.push_back(SnapshotRecord{random_time()}); break;
      case 17: records.push_back(DropRecord{random_time(), random_int(), random_int()}); break;
      case 18: records.push_back(NoWaiterRecord{random_time(), random_int(), random_object(), random_symbol()}); break;
      default: records.push_back(QueuedRecord{random_time(), random_int(), random_object()}); break;
    }
  }
  // Every head is drawn: a head added to record.hpp needs its case.
  std::vector<bool> seen(kRecordHeadCount);
  for (const Record& r : records) seen[r.index()] = true;
  CHECK(std::find(seen.begin(), seen.end(), false) == seen.end());
  const std::string text = write_all(TraceHeader{}, records);
  const auto result = test::read_all(text);
  CHECK(result.errors.empty());
  CHECK(result.records == formatted(records));

  // Compare field by field for the strings, which formatting would hide if
  // both sides escaped them the same wrong way.
  TraceReader reader(memory_input(text), "t");
  std::size_t i = 0;
  while (reader.next() == TraceReader::Step::record) {
    REQUIRE(i < records.size());
    if (const auto* label = std::get_if<LabelRecord>(&records[i])) {
      const auto* back = std::get_if<LabelRecord>(&reader.record());
      REQUIRE(back != nullptr);
      CHECK(back->text == label->text);
    }
    ++i;
  }
  CHECK(i == records.size());
}

TEST_CASE("a synthetic trace round-trips") {
  samples::SyntheticOptions options;
  options.records = 20000;
  const auto records = samples::synthetic_trace(options);
  const auto result = test::read_all(write_all(samples::synthetic_header(options), records));
  CHECK(result.errors.empty());
  CHECK(result.warnings.empty());
  CHECK(result.records == formatted(records));
}
