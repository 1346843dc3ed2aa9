// trace_source_test.cpp — open_trace picks the format from the content
// (plain or gzip), never from the name; the Skein adapter gives exactly what
// TraceReader gives; unknown content is an error naming the file and the
// formats expected.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "recorder/format/byte_sink.hpp"
#include "tests/support/ctf_builder.hpp"
#include "tests/support/import_text.hpp"
#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

std::string gzip(std::string_view text) {
  std::string compressed;
  auto sink = gzip_output(string_output(compressed), "x.gz");
  REQUIRE(sink->write(text).ok());
  REQUIRE(sink->close().ok());
  return compressed;
}

struct Opened {
  std::string format;  // format_name(), or the error
  test::ImportResult result;
};

Opened open_memory(std::string_view bytes, const std::string& name = "x") {
  auto opened = open_trace_memory(bytes, name);
  if (!opened) return {opened.error().to_string(), {}};
  auto& source = *opened.value();
  return {std::string(source.format_name()), test::read_source(source)};
}

const std::string kSkein = std::string(test::kHeaderLine) +
                           "(spawn 10 1 0 task)\n"
                           "(frob 11 1)\n"
                           "(switch 12 1)\n"
                           "(read 13 1";  // cut short

constexpr const char* kSexp =
    "((time 1.5)(op(Creates 0 1 Task)))\n"
    "((time 1.75)(op(Switch 1)))\n";

std::string ctf() {
  test::CtfBuilder b;
  b.packet().switch_(100, 0).label(150, 0, "main");
  return b.bytes();
}

constexpr const char* kExpected =
    "expected a Skein trace (a first line '(skein-trace ...'), a 2014 MirageOS trace "
    "(lines '((time ...') or a mirage-profile CTF trace (packets starting c1 1f fc c1)";

}  // namespace

TEST_CASE("the format is detected from the content, plain or gzip-compressed") {
  const std::vector<std::string> sexp_records = {"(spawn 0 1 0 task)", "(switch 250000000 1)"};
  const std::vector<std::string> ctf_records = {"(switch 0 0)", "(label 50 0 \"main\")"};
  for (const bool compressed : {false, true}) {
    CAPTURE(compressed);
    const auto maybe_gzip = [&](std::string_view s) { return compressed ? gzip(s) : std::string(s); };

    const auto skein = open_memory(maybe_gzip(kSkein));
    CHECK(skein.format == "skein");
    CHECK(skein.result.records == test::read_all(kSkein).records);

    const auto sexp = open_memory(maybe_gzip(kSexp), "trace.ctf");  // the name does not matter
    CHECK(sexp.format == "mirage-sexp");
    CHECK(sexp.result.records == sexp_records);

    const auto binary = open_memory(maybe_gzip(ctf()), "trace.sexp");
    CHECK(binary.format == "mirage-ctf");
    CHECK(binary.result.records == ctf_records);
  }
}

TEST_CASE("blank lines and comments before the first record do not hide the format") {
  CHECK(open_memory("\n  \r\n\t\n" + std::string(kSexp)).format == "mirage-sexp");
  CHECK(open_memory("; a comment\n" + kSkein).format == "skein");
  // The lines skipped while detecting still count: the bad line is line 4.
  const auto result = open_memory("\n\n((time 1)(op(Switch 0)))\n((time 2)(op(Switch x)))\n");
  CHECK(result.result.errors == std::vector<std::string>{"x:4:21: expected an integer thread id after 'Switch'"});
  // A long run of blank lines before the header is fine too.
  CHECK(open_memory(std::string(kMaxDetectBytes / 2, '\n') + kSexp).format == "mirage-sexp");
}

TEST_CASE("unknown or empty content is an error in the trace, naming the file and the formats") {
  // The file was read and holds no trace: an error of its content (exit
  // status 1, as for any bad record), from the source's first step.
  const auto error_of = [](std::string_view bytes, const std::string& name) {
    const Opened o = open_memory(bytes, name);
    CHECK(o.format == "unknown");
    CHECK(o.result.records.empty());
    return o.result.errors.size() == 1 ? o.result.errors.front() : std::string("(errors: ") +
                                                                        std::to_string(o.result.errors.size()) + ")";
  };
  const std::string empty = std::string("a.trace:1: empty input: ") + kExpected;
  const std::string unknown = std::string("a.trace:1:1: unknown trace format: ") + kExpected;
  CHECK(error_of("", "a.trace") == empty);
  CHECK(error_of(" \n\n", "a.trace") == empty);
  CHECK(error_of("hello world\n", "a.trace") == unknown);
  CHECK(error_of("\xc1\x1f", "a.trace") == unknown);
  CHECK(error_of("(time 1)\n", "a.trace") == unknown);
  CHECK(error_of(std::string(kMaxDetectBytes + 10, ' '), "a.trace") == empty);
  CHECK(error_of(gzip("hello"), "a.gz") == std::string("a.gz:1:1: unknown trace format: ") + kExpected);
  auto missing = open_trace("/nonexistent/trace.sexp");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().to_string(), Catch::StartsWith("/nonexistent/trace.sexp: cannot open:"));
}

TEST_CASE("the Skein adapter passes on the header, warnings and truncation") {
  auto opened = open_trace_memory(kSkein, "s.sexp");
  REQUIRE(opened.ok());
  TraceSource& source = *opened.value();
  const auto result = test::read_source(source);
  const auto direct = test::read_all(kSkein, "s.sexp");
  CHECK(result.records == direct.records);
  CHECK(result.errors == direct.errors);
  CHECK(result.warnings == direct.warnings);
  CHECK(result.warnings.size() == 2);
  CHECK(source.warning_count() == 2);
  CHECK(result.truncated);
  REQUIRE(source.header().option("process") != nullptr);
  CHECK(*source.header().option("process") == "t");
  CHECK(source.bytes_consumed() == kSkein.size());
}

TEST_CASE("open_trace reads files and reports progress in file bytes") {
  char path[] = "/tmp/skein-trace-source-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  close(fd);
  const std::string compressed = gzip(kSexp);
  {
    std::ofstream out(path, std::ios::binary);
    out << compressed;
  }
  auto opened = open_trace(path);
  REQUIRE(opened.ok());
  TraceSource& source = *opened.value();
  CHECK(source.format_name() == "mirage-sexp");
  CHECK(source.name() == path);
  CHECK(test::read_source(source).records.size() == 2);
  CHECK(source.bytes_consumed() == compressed.size());
  std::remove(path);
}
