// truncation_test.cpp — a valid trace cut at every byte offset, plain and
// gzip-compressed: never a crash, every complete record before the cut is
// read, and the cut is reported as truncation (a warning), not an error.
#include <catch2/catch.hpp>

#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

std::string small_trace() {
  return std::string(test::kHeaderLine) +
         "(site 0 \"samples/blockread.cpp\" 41 \"blkfront_poll\")\n"
         "(spawn 10 1 0 task 0)\n"
         "(label 11 1 \"blkfront.poll\")\n"
         "; a comment line\n"
         "(spawn 20 2 0 bind)\n"
         "(wait 21 2 1)\n"
         "(switch 30 -1)\n"
         "(idle 31)\n"
         "(notify 40 -1 1 io)\n"
         "(switch 41 1)\n"
         "(resolve 42 1 1 fail \"Failure \\\"disk\\\"\")\n"
         "(read 43 2 1)\n"
         "(merge 44 2 3)\n"
         "(counter 45 \"blkfront.ring\" 3)\n"
         "(gc 46 100)\n"
         "(lost 47 2)\n"
         "(end 50)\n";
}

// The records a reader must deliver from the first `cut` bytes: every line
// that is complete, with or without its newline.
std::vector<std::string> complete_records(const std::string& text, std::size_t cut) {
  std::vector<std::string> expected;
  std::size_t start = text.find('\n') + 1;  // after the header
  while (start < text.size()) {
    const std::size_t nl = text.find('\n', start);
    const std::string line = text.substr(start, nl - start);
    if (start + line.size() <= cut && line[0] == '(') expected.push_back(line);
    start = nl + 1;
  }
  return expected;
}

}  // namespace

TEST_CASE("a trace cut at every byte offset keeps every complete record") {
  const std::string text = small_trace();
  const std::size_t header_end = text.find('\n');
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    const auto result = test::read_all(std::string_view(text).substr(0, cut));
    if (cut < header_end) {
      // Not even a header: that is not a trace, and says so.
      CHECK(result.records.empty());
      CHECK(result.errors.size() == 1);
      continue;
    }
    CHECK(result.errors.empty());
    const auto expected = complete_records(text, cut);
    CHECK(result.records == expected);
    // A cut inside a record line is reported as truncation.
    const std::size_t line_start = text.rfind('\n', cut == 0 ? 0 : cut - 1) + 1;
    const std::size_t line_end = text.find('\n', line_start);
    const bool mid_record = cut > line_start && cut < line_end && text[line_start] == '(';
    CHECK(result.truncated == mid_record);
    if (mid_record) {
      REQUIRE(result.warnings.size() == 1);
      CHECK_THAT(result.warnings[0], Catch::Contains("warning: the last line is cut short"));
    }
  }
}

TEST_CASE("a gzip trace cut at every compressed byte never crashes and keeps a prefix") {
  const std::string text = small_trace();
  std::string compressed;
  {
    auto sink = gzip_output(string_output(compressed), "t.sexp.gz");
    REQUIRE(sink->write(text).ok());
    REQUIRE(sink->close().ok());
  }
  const auto all = test::read_all(text).records;
  for (std::size_t cut = 2; cut <= compressed.size(); ++cut) {
    CAPTURE(cut);
    const auto result = test::read_all(std::string_view(compressed).substr(0, cut));
    // Whatever was decompressed is a prefix of the records.
    REQUIRE(result.records.size() <= all.size());
    CHECK(std::equal(result.records.begin(), result.records.end(), all.begin()));
    if (cut < compressed.size()) CHECK((result.truncated || !result.errors.empty()));
    else CHECK(result.records == all);
  }
}
