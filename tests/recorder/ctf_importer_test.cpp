// ctf_importer_test.cpp — the mirage-profile CTF importer: packets built by
// a test-side encoder (tests/support/ctf_builder.hpp) give exact Records,
// malformed packets give exact `FILE: byte N: ...` messages, and a trace cut
// at every byte offset keeps every complete event.
#include <catch2/catch.hpp>
#include <limits>

#include "recorder/byte_sink.hpp"
#include "recorder/ctf_importer.hpp"
#include "tests/support/ctf_builder.hpp"
#include "tests/support/import_text.hpp"

using namespace skein;
using test::CtfBuilder;

namespace {

constexpr std::uint64_t kNobody = std::numeric_limits<std::uint64_t>::max();  // thread -1

test::ImportResult import(std::string_view bytes) { return test::import_all<CtfImporter>(bytes, "c.ctf"); }

// Every event id, over three packets (the last one empty).
CtfBuilder every_event() {
  CtfBuilder b;
  b.packet(6)
      .switch_(1'000'000, 0)
      .increase(1'000'100, 0, 1, "gntref")
      .increase(1'000'200, 0, 2, "gntref")
      .label(1'000'300, 0, "Gntshr.grant_access")
      .creates(1'000'400, 0, 5, 2)
      .creates(1'000'500, 0, 6, 99)
      .read(1'000'600, 5, kNobody)
      .fulfills(1'000'700, 5, 6)
      .fails(1'000'800, 7, 7, "Xs_protocol.Enoent(\"read\")")
      .becomes(1'000'900, 9, 22);
  b.packet(0)
      .gc(1'001'000, 627065)
      .source_event(9, 1'001'100, 3, 4)
      .source_event(10, 1'001'200, 3, 4)
      .counter(1'001'300, 0, 10, "gntref")
      .increase(1'001'400, 0, -1, "gntref")
      .source_event(12, 1'001'500, 3, 4)
      .source_event(13, 1'001'600, 3, 4)
      .label(1'001'700, 1, "")
      .creates(1'001'800, 0, 11, 14);
  b.packet(10);
  return b;
}

const std::vector<std::string> kEveryEventRecords = {
    "(switch 0 0)",
    "(counter 100 \"gntref\" 1)",
    "(counter 200 \"gntref\" 3)",
    "(label 300 0 \"Gntshr.grant_access\")",
    "(spawn 400 5 0 bind)",
    "(spawn 500 6 0 thread-type-99)",
    "(read 600 5 -1)",
    "(resolve 700 6 5 ok)",
    "(resolve 800 7 7 fail \"Xs_protocol.Enoent(\\\"read\\\")\")",
    "(merge 900 9 22)",
    "(gc 1000 627065)",
    "(notify 1100 4 3)",
    "(wait 1200 3 4)",  // try_read: 3 found 4 still pending
    "(counter 1300 \"gntref\" 10)",
    "(counter 1400 \"gntref\" 9)",
    "(read 1500 3 4)",
    "(notify 1600 4 3)",
    "(label 1700 1 \"\")",
    "(spawn 1800 11 0 async)",
};

// The one error of a malformed input, with the records before it.
std::string error_of(const std::string& bytes, std::size_t records_before) {
  const auto result = import(bytes);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.records.size() == records_before);
  return result.errors.front();
}

// A packet holding one switch event: 30 + 17 bytes of content, 6 of padding.
CtfBuilder one_switch() {
  CtfBuilder b;
  b.packet(6).switch_(5000, 0);
  return b;
}

}  // namespace

TEST_CASE("every CTF event id imports as its exact record") {
  auto b = every_event();
  const std::string bytes = b.bytes();  // memory_input does not copy
  CtfImporter importer(memory_input(bytes, "c.ctf"), "c.ctf");
  const auto result = test::read_source(importer);
  CHECK(result.errors.empty());
  CHECK(result.warnings.empty());
  CHECK_FALSE(result.truncated);
  CHECK(result.records == kEveryEventRecords);
  CHECK(importer.packet_count() == 3);
  CHECK(importer.event_counts() ==
        std::array<std::uint64_t, kCtfEventIds>{3, 1, 1, 1, 1, 2, 3, 1, 1, 1, 1, 1, 1, 1});
  CHECK(CtfImporter::event_name(6) == "increase");
  CHECK(importer.format_name() == "mirage-ctf");
  REQUIRE(importer.header().option("source-uuid") != nullptr);
  CHECK(*importer.header().option("source-uuid") == "05883b8d-521a-487b-b397-456ab150680c");
  REQUIRE(importer.header().option("source-origin-ns") != nullptr);
  CHECK(*importer.header().option("source-origin-ns") == "1000000");
  CHECK(importer.bytes_consumed() == b.size());
}

TEST_CASE("a CTF event earlier than the first is imported at time 0, with a warning") {
  CtfBuilder b;
  b.packet(0).switch_(2000, 0).switch_(1500, 1).switch_(2500, 2);
  const auto result = import(b.bytes());
  CHECK(result.errors.empty());
  // The first switch is the loop's (Control.start); the next two, with no
  // sleep (-1) between, are returns inside a wakeup (lwt_switch.hpp).
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(return 0 1)", "(return 500 2)"});
  CHECK(result.warnings == std::vector<std::string>{
                               "c.ctf: warning: byte 47: time goes back 500 ns before the first "
                               "event's: imported as time 0"});
}

TEST_CASE("a packet whose uuid differs from the first's is read, with a warning") {
  auto b = one_switch();
  b.packet(0).switch_(6000, 1);
  std::string bytes = b.bytes();
  bytes[53 + 4] = 0x06;
  const auto result = import(bytes);
  CHECK(result.errors.empty());
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(return 1000 1)"});
  CHECK(result.warnings == std::vector<std::string>{
                               "c.ctf: warning: byte 57: the packet's uuid "
                               "06883b8d-521a-487b-b397-456ab150680c differs from the first packet's"});
}

TEST_CASE("malformed CTF gives exact byte offsets") {
  {  // 1. bad magic in the first packet
    std::string bytes = one_switch().bytes();
    bytes[0] = '\xef';
    bytes[1] = '\xbe';
    bytes[2] = '\xad';
    bytes[3] = '\xde';
    CHECK(error_of(bytes, 0) ==
          "c.ctf: byte 0: bad packet magic 0xdeadbeef: a mirage-profile CTF packet starts with c1 1f fc c1");
  }
  {  // 2. bad magic in the second packet, after a good one
    auto b = one_switch();
    b.packet(0).switch_(6000, 1);
    std::string bytes = b.bytes();
    bytes[53] = 'X';
    CHECK(error_of(bytes, 1) ==
          "c.ctf: byte 53: bad packet magic 0xc1fc1f58: a mirage-profile CTF packet starts with c1 1f fc c1");
  }
  {  // 3. the input ends inside a packet header
    auto b = one_switch();
    b.packet(0);
    CHECK(error_of(b.bytes().substr(0, 63), 1) ==
          "c.ctf: byte 53: the input ends inside a packet header (after 10 of its 30 bytes)");
  }
  {  // 4. a packet size beyond the end of the file (cut in the padding)
    CHECK(error_of(one_switch().bytes().substr(0, 50), 1) ==
          "c.ctf: byte 20: packet size 53 bytes goes past the end of the input (at byte 50)");
  }
  {  // 5. the input ends inside an event
    CtfBuilder b;
    b.packet(6).switch_(5000, 0).label(5100, 0, "abc");
    CHECK(error_of(b.bytes().substr(0, 55), 1) ==
          "c.ctf: byte 20: packet size 74 bytes goes past the end of the input (at byte 55)");
  }
  {  // 6. an unknown event id
    CtfBuilder b;
    b.packet(0).u64(5000).u8(14).u64(0);
    CHECK(error_of(b.bytes(), 0) == "c.ctf: byte 38: unknown event id 14 (mirage-profile's events are 0 to 13)");
  }
  {  // 7. a string not terminated before the end of the content
    CtfBuilder b;
    b.packet(4).u64(5000).u8(5).u64(0).raw("abc");
    CHECK(error_of(b.bytes(), 0) ==
          "c.ctf: byte 47: string not terminated before the end of the packet's content (byte 50)");
  }
  {  // 8. a content size beyond the packet size
    auto b = one_switch();
    (void)b.bytes();
    b.patch_u32(26, 61 * 8);
    CHECK(error_of(b.bytes(), 0) == "c.ctf: byte 26: content size 61 bytes exceeds the packet size (53 bytes)");
  }
  {  // 9. a content size that is not a whole number of bytes
    auto b = one_switch();
    (void)b.bytes();
    b.patch_u32(26, 47 * 8 + 3);
    CHECK(error_of(b.bytes(), 0) == "c.ctf: byte 26: content size 379 bits is not a whole number of bytes");
  }
  {  // 10. a packet size that is not a whole number of bytes
    auto b = one_switch();
    (void)b.bytes();
    b.patch_u32(20, 53 * 8 + 1);
    CHECK(error_of(b.bytes(), 0) == "c.ctf: byte 20: packet size 425 bits is not a whole number of bytes");
  }
  {  // 11. a content smaller than the packet header
    auto b = one_switch();
    (void)b.bytes();
    b.patch_u32(26, 16 * 8);
    CHECK(error_of(b.bytes(), 0) ==
          "c.ctf: byte 26: content size 16 bytes is smaller than the packet header and context (30 bytes)");
  }
  {  // 12. an event header running past the content
    CtfBuilder b;
    b.packet(0).switch_(5000, 0).raw("\x01\x02\x03\x04\x05");
    CHECK(error_of(b.bytes(), 1) ==
          "c.ctf: byte 47: an event header (9 bytes) runs past the end of the packet's content (byte 52)");
  }
  {  // 13. an event's fields running past the content
    CtfBuilder b;
    b.packet(8).switch_(5000, 0).u64(5100).u8(1).u64(0).u32(7);
    CHECK(error_of(b.bytes(), 1) ==
          "c.ctf: byte 47: event 'read' (25 bytes) runs past the end of the packet's content (byte 68)");
  }
  {  // 14. a string past the size limit
    CtfBuilder b;
    b.packet(0).label(5000, 0, std::string(kMaxStringBytes + 1, 'a'));
    CHECK(error_of(b.bytes(), 0) == "c.ctf: byte 47: string longer than 65536 bytes");
  }
  {  // 15. a gc duration past the signed 64-bit range
    CtfBuilder b;
    b.packet(0).gc(5000, std::uint64_t{1} << 63);
    CHECK(error_of(b.bytes(), 0) == "c.ctf: byte 39: gc duration 9223372036854775808 ns is out of range");
  }
  {  // 16. a running counter total that overflows
    CtfBuilder b;
    b.packet(0).increase(5000, 0, std::numeric_limits<std::int64_t>::max(), "c").increase(5100, 0, 1, "c");
    CHECK(error_of(b.bytes(), 1) == "c.ctf: byte 74: counter 'c' overflows a signed 64-bit total");
  }
}

TEST_CASE("a CTF error is final") {
  std::string bytes = one_switch().bytes();
  bytes[0] = 'X';
  CtfImporter importer(memory_input(bytes, "c.ctf"), "c.ctf");
  CHECK(importer.next() == TraceSource::Step::error);
  CHECK(importer.next() == TraceSource::Step::end);
  CHECK(importer.next() == TraceSource::Step::end);
}

TEST_CASE("a CTF trace cut at every byte offset keeps every complete event") {
  auto b = every_event();
  const std::string bytes = b.bytes();
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    CAPTURE(cut);
    const auto result = import(std::string_view(bytes).substr(0, cut));
    std::size_t complete = 0;
    for (std::size_t end : b.event_ends()) complete += end <= cut;
    CHECK(result.records ==
          std::vector<std::string>(kEveryEventRecords.begin(),
                                   kEveryEventRecords.begin() + static_cast<std::ptrdiff_t>(complete)));
    const auto& ends = b.packet_ends();
    const bool at_boundary = cut == 0 || std::find(ends.begin(), ends.end(), cut) != ends.end();
    CHECK(result.errors.size() == (at_boundary ? 0u : 1u));
    CHECK(result.warnings.empty());
  }
}

TEST_CASE("a gzip CTF trace reads as the plain one, and a cut stream is a truncation") {
  const std::string bytes = every_event().bytes();
  std::string compressed;
  {
    auto sink = gzip_output(string_output(compressed), "c.ctf.gz");
    REQUIRE(sink->write(bytes).ok());
    REQUIRE(sink->close().ok());
  }
  CHECK(import(compressed).records == kEveryEventRecords);
  for (std::size_t cut = 2; cut < compressed.size(); ++cut) {
    CAPTURE(cut);
    const auto result = import(std::string_view(compressed).substr(0, cut));
    REQUIRE(result.records.size() <= kEveryEventRecords.size());
    CHECK(std::equal(result.records.begin(), result.records.end(), kEveryEventRecords.begin()));
    CHECK(result.errors.empty());
    CHECK(result.truncated);
  }
}
