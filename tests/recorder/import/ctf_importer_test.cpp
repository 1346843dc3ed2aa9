// ctf_importer_test.cpp — the mirage-profile CTF importer: packets built by
// a test-side encoder (tests/support/ctf_builder.hpp) give exact Records,
// malformed packets give exact `FILE: byte N: ...` messages, a trace cut at
// every byte offset keeps every complete event, and the packets of a ring
// are read in counter order (wrapped, repeated, missing, cut), whatever the
// source (memory, gzip, a pipe).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <limits>

#include "recorder/format/byte_sink.hpp"
#include "recorder/import/ctf/ctf_importer.hpp"
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

// Packet order: mirage-profile's ring of packets, read by stream_packet_count.

namespace {

// A ring of 4 packets that wrapped: in file order their counters are 4, 5,
// 2, 3, and their events' times follow the counters (counter 2 holds the
// earliest). Sizes: increase "c" 27 bytes, switch 17, label "five" 22,
// label "two" 21, creates 26; a packet is 30 + its events + 6 of padding.
//   counter 4 at byte 0:   increase, switch        30 + 44 + 6 = 80
//   counter 5 at byte 80:  switch, label "five"    30 + 39 + 6 = 75
//   counter 2 at byte 155: switch, label "two"     30 + 38 + 6 = 74
//   counter 3 at byte 229: increase, creates       30 + 53 + 6 = 89, to 318
CtfBuilder wrapped_ring() {
  CtfBuilder b;
  b.numbered_packet(4).increase(12'000, 0, 2, "c").switch_(12'100, kNobody);
  b.numbered_packet(5).switch_(13'000, 0).label(13'100, 7, "five");
  b.numbered_packet(2).switch_(10'000, 0).label(10'100, 0, "two");
  b.numbered_packet(3).increase(11'000, 0, 1, "c").creates(11'100, 0, 7, 2);
  return b;
}

// In counter order 2, 3, 4, 5, from the first event of counter 2 (10,000):
// the counter total is 1 and then 3 (in file order it would be 2, then 3);
// the first switch is the loop's, the switch to 0 after -1 a resume.
const std::vector<std::string> kWrappedRingRecords = {
    "(switch 0 0)",          "(label 100 0 \"two\")", "(counter 1000 \"c\" 1)",
    "(spawn 1100 7 0 bind)", "(counter 2000 \"c\" 3)", "(switch 2100 -1)",
    "(switch 3000 0)",       "(label 3100 7 \"five\")",
};

const std::string kWrappedRingWarning =
    "c.ctf: warning: byte 155: the ring of packets wrapped: the packets are read in counter "
    "order, starting at this one (counter 2)";

// A ring of packets each holding one label: 30 + 19 + 6 = 55 bytes, so
// packet i starts at byte 55 * i. `times` are the labels' times.
std::string labelled_ring(const std::vector<std::uint16_t>& counters,
                          const std::vector<std::uint64_t>& times, const std::string& texts) {
  CtfBuilder b;
  for (std::size_t i = 0; i < counters.size(); ++i)
    b.numbered_packet(counters[i]).label(times[i], 0, texts.substr(i, 1));
  const std::string bytes = b.bytes();
  REQUIRE(bytes.size() == 55 * counters.size());
  return bytes;
}

std::string gzipped(std::string_view bytes) {
  std::string compressed;
  auto sink = gzip_output(string_output(compressed), "c.ctf.gz");
  REQUIRE(sink->write(bytes).ok());
  REQUIRE(sink->close().ok());
  return compressed;
}

// Hands out its bytes a few at a time, like a slow pipe.
class TrickleSource final : public ByteSource {
 public:
  TrickleSource(std::string_view bytes, std::size_t step) : bytes_(bytes), step_(step) {}
  Result<std::size_t> read(std::span<char> into) override {
    const std::size_t n = std::min({into.size(), step_, bytes_.size() - pos_});
    std::memcpy(into.data(), bytes_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::uint64_t raw_offset() const override { return pos_; }

 private:
  std::string_view bytes_;
  std::size_t step_;
  std::size_t pos_ = 0;
};

// Reads `bytes` as standard input ("-"): a real pipe, which cannot seek.
test::ImportResult import_through_stdin(const std::string& bytes) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  REQUIRE(bytes.size() < 65536);  // fits the pipe's buffer: no writer thread needed
  REQUIRE(write(fds[1], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
  close(fds[1]);
  const int saved = dup(STDIN_FILENO);
  REQUIRE(dup2(fds[0], STDIN_FILENO) == STDIN_FILENO);
  close(fds[0]);
  auto source = open_input("-");
  REQUIRE(source.ok());
  CtfImporter importer(std::move(source).value(), "c.ctf");
  const auto result = test::read_source(importer);
  dup2(saved, STDIN_FILENO);
  close(saved);
  return result;
}

}  // namespace

TEST_CASE("a CTF ring that wrapped is read in counter order, with a warning") {
  auto b = wrapped_ring();
  const std::string bytes = b.bytes();
  REQUIRE(b.packet_starts() == std::vector<std::size_t>{0, 80, 155, 229});
  REQUIRE(bytes.size() == 318);
  CtfImporter importer(memory_input(bytes, "c.ctf"), "c.ctf");
  const auto result = test::read_source(importer);
  CHECK(result.errors.empty());
  CHECK(result.records == kWrappedRingRecords);
  CHECK(result.warnings == std::vector<std::string>{kWrappedRingWarning});
  REQUIRE(importer.header().option("source-origin-ns") != nullptr);
  CHECK(*importer.header().option("source-origin-ns") == "10000");
  CHECK(importer.packet_count() == 4);
}

TEST_CASE("a CTF packet counter that wraps from 0xffff to 0 keeps its order") {
  {  // in file order already: 0xfffe, 0xffff, 0, 1
    const auto result = import(labelled_ring({0xfffe, 0xffff, 0, 1}, {1000, 2000, 3000, 4000}, "abcd"));
    CHECK(result.errors.empty());
    CHECK(result.warnings.empty());
    CHECK(result.records == std::vector<std::string>{"(label 0 0 \"a\")", "(label 1000 0 \"b\")",
                                                     "(label 2000 0 \"c\")", "(label 3000 0 \"d\")"});
  }
  {  // a ring that wrapped as the counter did: 0, 1, 0xfffe, 0xffff; 0xfffe (byte 110) is first
    const auto result = import(labelled_ring({0, 1, 0xfffe, 0xffff}, {3000, 4000, 1000, 2000}, "cdab"));
    CHECK(result.errors.empty());
    CHECK(result.records == std::vector<std::string>{"(label 0 0 \"a\")", "(label 1000 0 \"b\")",
                                                     "(label 2000 0 \"c\")", "(label 3000 0 \"d\")"});
    CHECK(result.warnings ==
          std::vector<std::string>{"c.ctf: warning: byte 110: the ring of packets wrapped: the packets "
                                   "are read in counter order, starting at this one (counter 65534)"});
  }
}

TEST_CASE("a repeated CTF packet counter is a warning, and both packets are read in file order") {
  {  // 0, 1, 1, 2: the packets at bytes 55 and 110 both say 1
    const auto result = import(labelled_ring({0, 1, 1, 2}, {1000, 2000, 3000, 4000}, "abcd"));
    CHECK(result.errors.empty());
    CHECK(result.records == std::vector<std::string>{"(label 0 0 \"a\")", "(label 1000 0 \"b\")",
                                                     "(label 2000 0 \"c\")", "(label 3000 0 \"d\")"});
    CHECK(result.warnings ==
          std::vector<std::string>{"c.ctf: warning: byte 110: this packet's counter 1 repeats the "
                                   "counter of the packet at byte 55: both are read, in file order"});
  }
  {  // 3, 1, 2, 3: the drop to 1 (byte 55) starts the trace; the two 3s (bytes 0
     // and 165) come last, in file order
    const auto result = import(labelled_ring({3, 1, 2, 3}, {3000, 1000, 2000, 4000}, "cabd"));
    CHECK(result.errors.empty());
    CHECK(result.records == std::vector<std::string>{"(label 0 0 \"a\")", "(label 1000 0 \"b\")",
                                                     "(label 2000 0 \"c\")", "(label 3000 0 \"d\")"});
    CHECK(result.warnings ==
          std::vector<std::string>{
              "c.ctf: warning: byte 55: the ring of packets wrapped: the packets are read in counter "
              "order, starting at this one (counter 1)",
              "c.ctf: warning: byte 165: this packet's counter 3 repeats the counter of the packet at "
              "byte 0: both are read, in file order"});
  }
}

TEST_CASE("a gap in the CTF packet counters is a warning naming the packets missing") {
  {  // 0, 1, 3: counter 2 is missing
    const auto result = import(labelled_ring({0, 1, 3}, {1000, 2000, 4000}, "abd"));
    CHECK(result.errors.empty());
    CHECK(result.records == std::vector<std::string>{"(label 0 0 \"a\")", "(label 1000 0 \"b\")",
                                                     "(label 3000 0 \"d\")"});
    CHECK(result.warnings ==
          std::vector<std::string>{"c.ctf: warning: byte 110: the counter goes from 1 (the packet at "
                                   "byte 55) to 3 here: 1 packet missing (overwritten or lost)"});
  }
  {  // 0xfffe, 2: 0xffff, 0 and 1 are missing
    const auto result = import(labelled_ring({0xfffe, 2}, {1000, 5000}, "ae"));
    CHECK(result.errors.empty());
    CHECK(result.records == std::vector<std::string>{"(label 0 0 \"a\")", "(label 4000 0 \"e\")"});
    CHECK(result.warnings ==
          std::vector<std::string>{"c.ctf: warning: byte 55: the counter goes from 65534 (the packet "
                                   "at byte 0) to 2 here: 3 packets missing (overwritten or lost)"});
  }
}

TEST_CASE("a CTF ring that did not wrap, its last packets never used, reads with no warning") {
  // As the fixture net.ctf: counters 0 to 3, the last two header only
  // (content_size 30 bytes), every packet 266 bytes, the rest padding.
  CtfBuilder b;
  b.numbered_packet(0, 200).switch_(1000, 0).label(1100, 0, "x");
  b.numbered_packet(1, 217).label(1200, 0, "y");
  b.numbered_packet(2, 236);
  b.numbered_packet(3, 236);
  const std::string bytes = b.bytes();  // memory_input does not copy
  REQUIRE(b.packet_ends() == std::vector<std::size_t>{266, 532, 798, 1064});
  CtfImporter importer(memory_input(bytes, "c.ctf"), "c.ctf");
  const auto result = test::read_source(importer);
  CHECK(result.errors.empty());
  CHECK(result.warnings.empty());
  CHECK(result.records ==
        std::vector<std::string>{"(switch 0 0)", "(label 100 0 \"x\")", "(label 200 0 \"y\")"});
  CHECK(importer.packet_count() == 4);
}

TEST_CASE("a wrapped CTF ring reads the same gzip-compressed and through a pipe") {
  const std::string bytes = wrapped_ring().bytes();
  const std::string compressed = gzipped(bytes);
  const std::vector<std::string> warnings = {kWrappedRingWarning};
  for (const bool gzip : {false, true}) {
    CAPTURE(gzip);
    const std::string& input = gzip ? compressed : bytes;
    {  // in memory
      const auto result = import(input);
      CHECK(result.errors.empty());
      CHECK(result.records == kWrappedRingRecords);
      CHECK(result.warnings == warnings);
    }
    {  // standard input, a pipe
      const auto result = import_through_stdin(input);
      CHECK(result.errors.empty());
      CHECK(result.records == kWrappedRingRecords);
      CHECK(result.warnings == warnings);
    }
  }
  for (const std::size_t step : {1u, 7u, 64u}) {  // reads of a few bytes: a header split across them
    CAPTURE(step);
    CtfImporter importer(std::make_unique<TrickleSource>(bytes, step), "c.ctf");
    const auto result = test::read_source(importer);
    CHECK(result.errors.empty());
    CHECK(result.records == kWrappedRingRecords);
    CHECK(result.warnings == warnings);
  }
}

TEST_CASE("a CTF file cut inside a packet that is not the last in counter order") {
  // The wrapped ring cut at byte 300: inside the creates (286 to 312) of the
  // packet with counter 3 (at byte 229, 89 bytes), last in the file but
  // second in counter order. Its increase (259 to 286) is complete.
  const std::string bytes = wrapped_ring().bytes().substr(0, 300);
  {  // a plain file: counters 2 and 3 (what is complete of it), then the
     // error; 4 and 5 come after the error, which is final
    const auto result = import(bytes);
    CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(label 100 0 \"two\")",
                                                     "(counter 1000 \"c\" 1)"});
    CHECK(result.errors == std::vector<std::string>{"c.ctf: byte 249: packet size 89 bytes goes past "
                                                    "the end of the input (at byte 300)"});
    CHECK(result.warnings == std::vector<std::string>{kWrappedRingWarning});
    CHECK_FALSE(result.truncated);
  }
  {  // a gzip stream of those 300 bytes without its 8-byte trailer (CRC and
     // size) ends inside its member: a truncation, and every other packet
     // is read
    const std::string compressed = gzipped(bytes);
    const auto result = import(std::string_view(compressed).substr(0, compressed.size() - 8));
    CHECK(result.errors.empty());
    CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(label 100 0 \"two\")",
                                                     "(counter 1000 \"c\" 1)", "(counter 2000 \"c\" 3)",
                                                     "(switch 2100 -1)", "(switch 3000 0)",
                                                     "(label 3100 7 \"five\")"});
    CHECK(result.warnings ==
          std::vector<std::string>{"c.ctf: warning: the compressed stream ends early, inside the packet "
                                   "at byte 229: the trace was cut short",
                                   kWrappedRingWarning});
    CHECK(result.truncated);
  }
}

TEST_CASE("a malformed header after a wrapped CTF ring comes after every packet, in counter order") {
  auto b = wrapped_ring();
  b.numbered_packet(6).switch_(14'000, 0);
  std::string bytes = b.bytes();
  bytes[318] = 'X';  // the magic of the fifth packet
  const auto result = import(bytes);
  CHECK(result.records == kWrappedRingRecords);
  CHECK(result.errors == std::vector<std::string>{"c.ctf: byte 318: bad packet magic 0xc1fc1f58: a "
                                                  "mirage-profile CTF packet starts with c1 1f fc c1"});
  CHECK(result.warnings == std::vector<std::string>{kWrappedRingWarning});
}

namespace {

// 256 KiB packets, one after another, made on the fly from one template
// packet of labels (counter patched in each): a stream far larger than the
// importer may hold.
class GeneratedPackets final : public ByteSource {
 public:
  GeneratedPackets(std::string packet, std::uint32_t packets)
      : packet_(std::move(packet)), packets_(packets) {}
  Result<std::size_t> read(std::span<char> into) override {
    std::size_t n = 0;
    while (n < into.size() && made_ < packets_) {
      if (pos_ == 0) {  // counter of this packet, at byte 24 of its header
        packet_[24] = static_cast<char>(made_ & 0xFF);
        packet_[25] = static_cast<char>((made_ >> 8) & 0xFF);
      }
      const std::size_t take = std::min(into.size() - n, packet_.size() - pos_);
      std::memcpy(into.data() + n, packet_.data() + pos_, take);
      n += take;
      pos_ += take;
      if (pos_ == packet_.size()) {
        pos_ = 0;
        ++made_;
      }
    }
    raw_ += n;
    return n;
  }
  std::uint64_t raw_offset() const override { return raw_; }

 private:
  std::string packet_;
  std::uint32_t packets_;
  std::uint32_t made_ = 0;
  std::size_t pos_ = 0;
  std::uint64_t raw_ = 0;
};

std::size_t resident_kib() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE)) / 1024;
}

}  // namespace

TEST_CASE("reading a 64 MB CTF stream keeps the importer's memory bounded") {
  // 13,795 labels of 19 bytes fill a packet's 262,144 - 30 - 9 bytes; 256
  // packets make 64 MiB and 3,531,520 events.
  CtfBuilder b;
  b.packet(9);
  for (std::uint64_t i = 0; i < 13'795; ++i) b.label(1000 + i, 0, "x");
  const std::string packet = b.bytes();
  REQUIRE(packet.size() == 262'144);
  constexpr std::uint32_t kPackets = 256;
  CtfImporter importer(std::make_unique<GeneratedPackets>(packet, kPackets), "big.ctf");
  const std::size_t before = resident_kib();
  REQUIRE(importer.next() == TraceSource::Step::record);  // the whole stream is indexed now
  const std::size_t indexed = resident_kib();
  std::uint64_t records = 1;
  TraceSource::Step step;
  while ((step = importer.next()) == TraceSource::Step::record) ++records;
  CHECK(step == TraceSource::Step::end);
  CHECK(records == 13'795u * kPackets);
  CHECK(importer.packet_count() == kPackets);
  CHECK(importer.warning_count() == 0);  // no time before the first, no gap in the counters
  const std::size_t after = resident_kib();
  INFO("resident before " << before << " KiB, after indexing " << indexed << " KiB, at the end "
                           << after << " KiB");
  // The stream is 64 MiB; the importer holds a chunk of 64 KiB while it
  // indexes, then a window of 256 KiB, and a CtfPacket per packet.
  CHECK(indexed < before + 8 * 1024);
  CHECK(after < indexed + 4 * 1024);
}
