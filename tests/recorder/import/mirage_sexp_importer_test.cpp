// mirage_sexp_importer_test.cpp — the 2014 MirageOS S-expression importer:
// hand-written lines give exact Records, exact times in ns, malformed lines
// give exact FILE:LINE:COL messages, and a trace cut at every byte offset
// keeps every complete record.
#include <catch2/catch.hpp>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/line_splitter.hpp"
#include "recorder/import/mirage_sexp/mirage_sexp_importer.hpp"
#include "tests/support/endless_source.hpp"
#include "tests/support/import_text.hpp"

using namespace skein;

namespace {

test::ImportResult import(std::string_view text) {
  return test::import_all<MirageSexpImporter>(text, "m.sexp");
}

// The error of a bad line 2 (line 1 is a good record, which must come out).
std::string error_of(std::string_view line) {
  const auto result = import("((time 1.0)(op(Switch 0)))\n" + std::string(line) + "\n");
  REQUIRE(result.errors.size() == 1);
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)"});
  CHECK(result.warnings.empty());
  return result.errors.front();
}

// Every op, in the machine style of the real files (CRLF included).
constexpr const char* kEveryOp =
    "((time 1413637708.833401)(op(Switch 0)))\r\n"
    "((time 1413637708.834130)(op(Reads 0 -1)))\r\n"
    "((time 1413637708.834148)(op(Label 0\"create XenStore\")))\r\n"
    "((time 1413637708.834171)(op(Creates 0 4 Bind)))\r\n"
    "((time 1413637708.834180)(op(Creates 0 2 Try)))\r\n"
    "((time 1413637708.834199)(op(Label 3 after-chn-1)))\r\n"
    "((time 1413637708.834449)(op(Resolves 0 1())))\r\n"
    "((time 1413637708.834814)(op(Becomes 9 25)))\r\n"
    "((time 1413637708.838657)(op(Resolves 80 80(\"Xs_protocol.Enoent(\\\"read\\\")\"))))\r\n"
    "((time 1413637708.838700)(op(Resolves 5 6(Xs_protocol.Eagain))))\r\n"
    "((time 1413637708.900000)(op(Switch -1)))\r\n"
    "((time 1413637708.900001)(op(Gc 0.000123456)))\r\n"
    "((time 1413637708.995214)(op(Creates 0 7 On_success)))\r\n";

}  // namespace

TEST_CASE("every MirageOS op imports as its exact record") {
  const auto result = import(kEveryOp);
  CHECK(result.errors.empty());
  CHECK(result.warnings.empty());
  CHECK_FALSE(result.truncated);
  CHECK(result.records == std::vector<std::string>{
                              "(switch 0 0)",
                              "(read 729000 0 -1)",
                              "(label 747000 0 \"create XenStore\")",
                              "(spawn 770000 4 0 bind)",
                              "(spawn 779000 2 0 try)",
                              "(label 798000 3 \"after-chn-1\")",
                              "(resolve 1048000 1 0 ok)",
                              "(merge 1413000 9 25)",
                              "(resolve 5256000 80 80 fail \"Xs_protocol.Enoent(\\\"read\\\")\")",
                              "(resolve 5299000 6 5 fail \"Xs_protocol.Eagain\")",
                              "(switch 66599000 -1)",
                              "(gc 66600000 123456)",
                              "(spawn 161813000 7 0 on_success)",
                          });
}

// (No ";" in a test name: CTest splits the filter there and runs nothing.)
TEST_CASE("the dump mark at the end of a log is a snapshot, elsewhere a resolve by 0 is one") {
  // mirage-profile's events () appends Resolves (0, 0, None) to the log it
  // hands out: the file's last record is the moment the log was taken.
  const auto last = import(
      "((time 1.0)(op(Switch 0)))\n"
      "((time 1.5)(op(Resolves 0 0())))\n"
      "((time 2.0)(op(Resolves 0 0())))\n"
      "\n");
  CHECK(last.errors.empty());
  CHECK(last.warnings.empty());
  CHECK(last.records ==
        std::vector<std::string>{"(switch 0 0)", "(resolve 500000000 0 0 ok)", "(snapshot 1000000000)"});
  // Not last, or not exactly (0, 0, ok): what it says.
  const auto not_last = import(
      "((time 1.0)(op(Resolves 0 0())))\n"
      "((time 2.0)(op(Label 0 \"x\")))\n"
      "((time 3.0)(op(Resolves 0 0(\"Exit\"))))\n");
  CHECK(not_last.records == std::vector<std::string>{"(resolve 0 0 0 ok)", "(label 1000000000 0 \"x\")",
                                                     "(resolve 2000000000 0 0 fail \"Exit\")"});
  // An error right after the mark: the mark is a resolve, then the error.
  const auto then_error = import("((time 1.0)(op(Resolves 0 0())))\n((time 2.0)(op(Nope 1)))\n");
  CHECK(then_error.records == std::vector<std::string>{"(resolve 0 0 0 ok)"});
  REQUIRE(then_error.errors.size() == 1);
  CHECK(then_error.errors.front().rfind("m.sexp:2:", 0) == 0);
}

TEST_CASE("an error after two dump marks in a row names its own line, not the second mark's") {
  // The first mark is given while the second is read ahead; the second is
  // then given while line 4 is read ahead: that line's error is line 4's.
  const auto result = import(
      "((time 1.0)(op(Switch 0)))\n"
      "((time 1.5)(op(Resolves 0 0 None)))\n"
      "((time 2.0)(op(Resolves 0 0 None)))\n"
      "((time 2.5)(op(Resolves 0 0 None))) trailing\n"
      "((time 3.0)(op(Switch 0)))\n");
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(resolve 500000000 0 0 ok)",
                                                   "(resolve 1000000000 0 0 ok)", "(switch 2000000000 0)"});
  CHECK(result.errors ==
        std::vector<std::string>{"m.sexp:4:37: unexpected text after the end of the record"});
}

TEST_CASE("the header names the format and the source clock's origin") {
  MirageSexpImporter importer(memory_input(kEveryOp, "m.sexp"), "m.sexp");
  CHECK(importer.format_name() == "mirage-sexp");
  REQUIRE(importer.next() == TraceSource::Step::record);
  REQUIRE(importer.header().option("source-format") != nullptr);
  CHECK(*importer.header().option("source-format") == "mirage-sexp");
  REQUIRE(importer.header().option("source-origin-ns") != nullptr);
  CHECK(*importer.header().option("source-origin-ns") == "1413637708833401000");
}

TEST_CASE("the older variant without thread types spawns tasks") {
  const auto result = import(
      "((time 8249.521266)(op(Switch 0)))\n"
      "((time 8249.521319)(op(Creates 0 1)))\n"
      "((time 8249.521328)(op(Creates 0 2 )))\n");
  CHECK(result.errors.empty());
  CHECK(result.records ==
        std::vector<std::string>{"(switch 0 0)", "(spawn 53000 1 0 task)", "(spawn 62000 2 0 task)"});
}

TEST_CASE("times are exact integer ns, never rounded through a double") {
  const auto result = import(
      "((time 1413637708.834171)(op(Switch 0)))\n"
      "((time 1413637708.834171001)(op(Switch 1)))\n"    // 1 ns later: a double cannot tell
      "((time 1413637708.8341719999)(op(Switch 2)))\n"   // digits below the ns are dropped
      "((time 1413637709.)(op(Switch 3)))\n"             // OCaml's way to print a whole float
      "((time 14136377.09e2)(op(Switch 4)))\n"           // an exponent
      "((time 1413637708.834171)(op(Gc 1.5e-3)))\n"
      "((time 1413637708.834171)(op(Gc 2.)))\n"
      "((time 1413637708.834171)(op(Gc 0.0000000015)))\n"
      "((time 1413637708.834171)(op(Gc 0)))\n");
  CHECK(result.errors.empty());
  CHECK(result.records == std::vector<std::string>{
                              // The first switch is the loop's; with no Switch -1
                              // after it, the others return inside a wakeup.
                              "(switch 0 0)",
                              "(return 1 1)",
                              "(return 999 2)",
                              "(return 165829000 3)",
                              "(return 165829000 4)",
                              "(gc 0 1500000)",
                              "(gc 0 2000000000)",
                              "(gc 0 1)",
                              "(gc 0 0)",
                          });
}

TEST_CASE("a record earlier than the first is imported at time 0, with a warning") {
  const auto result = import(
      "((time 10.5)(op(Switch 0)))\n"
      "((time 10.25)(op(Switch 1)))\n"
      "((time 11)(op(Switch 2)))\n");
  CHECK(result.errors.empty());
  CHECK(result.records ==
        std::vector<std::string>{"(switch 0 0)", "(return 0 1)", "(return 500000000 2)"});
  CHECK(result.warnings == std::vector<std::string>{
                               "m.sexp:2:8: warning: time goes back 250000000 ns before the first "
                               "record's: imported as time 0"});
}

TEST_CASE("sexplib's spellings: spaces, field order, options, escapes, comments") {
  const auto result = import(
      "  ( (op (Switch 5) ) (time 2.0) )  ; fields in either order\n"
      "\n"
      "((time 2)(op(Resolves 1 2 None)))\n"
      "((time 2)(op(Resolves 1 2 (Some \"boom\"))))\n"
      "((time 2)(op(Resolves 1 2 \"bare\")))\n"
      "((time 2)(op(Resolves 1 2 (Some))))\n"
      "((time 2)(op(Resolves 1 2)))\n"
      "((time 2)(op(Label 1 \"t\\tab\\\\ \\\"q\\\" \\065\\x42\\o103\\ \\z\")))\n"
      "((time 2)(op(Label -1 \"\")))\n"
      "((time 2)(op(Creates 0 9 Async)))\n");
  CHECK(result.errors.empty());
  CHECK(result.records == std::vector<std::string>{
                              "(switch 0 5)",
                              "(resolve 0 2 1 ok)",
                              "(resolve 0 2 1 fail \"boom\")",
                              "(resolve 0 2 1 fail \"bare\")",
                              "(resolve 0 2 1 fail \"Some\")",
                              "(resolve 0 2 1 ok)",
                              "(label 0 1 \"t\\tab\\\\ \\\"q\\\" ABC \\\\z\")",
                              "(label 0 -1 \"\")",
                              "(spawn 0 9 0 async)",
                          });
}

TEST_CASE("malformed MirageOS lines give exact FILE:LINE:COL messages") {
  // 1. a record must be a list
  CHECK(error_of("Switch 0") == "m.sexp:2:1: expected '(' to start a record");
  // 2. a field must be a list
  CHECK(error_of("(time 1.0)(op(Switch 0))") ==
        "m.sexp:2:2: expected a field '(time SECONDS)' or '(op (OP ...))'");
  // 3. a thread id that is not an integer
  CHECK(error_of("((time 1.0)(op(Creates 0 x Bind)))") ==
        "m.sexp:2:26: expected an integer thread id after 'Creates'");
  // 4. a thread type that is a string
  CHECK(error_of("((time 1.0)(op(Creates 0 1 \"Bind\")))") ==
        "m.sexp:2:28: expected a thread type (a symbol such as Bind) after 'Creates'");
  // 5. a time that is not a number
  CHECK(error_of("((time x)(op(Switch 0)))") == "m.sexp:2:8: expected a time in seconds after 'time'");
  // 6. a time with two points
  CHECK(error_of("((time 1.0.0)(op(Switch 0)))") == "m.sexp:2:8: expected a time in seconds after 'time'");
  // 7. a time past what 64-bit ns hold
  CHECK(error_of("((time 99999999999.0)(op(Switch 0)))") ==
        "m.sexp:2:8: time out of range (at most 9223372036 seconds)");
  // 8. an integer that does not fit 64 bits
  CHECK(error_of("((time 1.0)(op(Reads 0 99999999999999999999)))") ==
        "m.sexp:2:24: integer out of range (signed 64-bit) in 'Reads'");
  // 9. an unterminated string
  CHECK(error_of("((time 1.0)(op(Label 1 \"unterminated)))") == "m.sexp:2:24: unterminated string");
  // 10. an unknown op
  CHECK(error_of("((time 1.0)(op(Frobs 1 2)))") ==
        "m.sexp:2:16: unknown op 'Frobs' (expected Creates, Reads, Resolves, Becomes, Label, Switch or Gc)");
  // 11. an extra field in an op
  CHECK(error_of("((time 1.0)(op(Switch 0 1)))") ==
        "m.sexp:2:25: expected ')' to close the op opened at column 15");
  // 12. text after the record
  CHECK(error_of("((time 1.0)(op(Switch 0))) x") ==
        "m.sexp:2:28: unexpected text after the end of the record");
  // 13. no op
  CHECK(error_of("((time 1.0))") == "m.sexp:2:12: the record has no '(op (OP ...))' field");
  // 14. no time
  CHECK(error_of("((op(Switch 0)))") == "m.sexp:2:16: the record has no '(time SECONDS)' field");
  // 15. a field twice
  CHECK(error_of("((time 1.0)(time 2.0)(op(Switch 0)))") ==
        "m.sexp:2:13: a second 'time' field in the record");
  // 16. a negative gc duration
  CHECK(error_of("((time 1.0)(op(Gc -0.5)))") == "m.sexp:2:19: duration must not be negative");
  // 17. a bad hex escape
  CHECK(error_of("((time 1.0)(op(Label 1 \"a\\x4g\")))") ==
        "m.sexp:2:26: expected two hex digits after '\\x'");
  // 18. an option with two elements
  CHECK(error_of("((time 1.0)(op(Resolves 1 2(\"a\" \"b\"))))") ==
        "m.sexp:2:33: expected ')' to close the option opened at column 28");
  // 19. an op that is not a list
  CHECK(error_of("((time 1.0)(op Switch))") == "m.sexp:2:16: expected an op '(NAME ...)' after 'op'");
  // 20. a missing closing parenthesis
  CHECK(error_of("((time 1.0)(op(Switch 0))") ==
        "m.sexp:2:26: expected ')' to close the record opened at column 1");
  // 21. a label without its text
  CHECK(error_of("((time 1.0)(op(Label 1)))") ==
        "m.sexp:2:23: expected a label (a string or an atom) after 'Label'");
  // 22. a decimal escape past 255
  CHECK(error_of("((time 1.0)(op(Label 1 \"\\300\")))") ==
        "m.sexp:2:25: expected three decimal digits (up to \\255) after '\\'");
  // 23. a thread id that is a float
  CHECK(error_of("((time 1.0)(op(Switch 1.5)))") ==
        "m.sexp:2:23: expected an integer thread id after 'Switch'");
  // 24. a string past the size limit
  CHECK(error_of("((time 1.0)(op(Label 1 \"" + std::string(kMaxStringBytes + 1, 'a') + "\")))") ==
        "m.sexp:2:24: string longer than 65536 bytes");
}

TEST_CASE("after a bad line the importer goes on with the next") {
  const auto result = import(
      "((time 1)(op(Switch 0)))\n"
      "((time 2)(op(Switch x)))\n"
      "((time 3)(op(Switch 2)))\n");
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(return 2000000000 2)"});
  CHECK(result.errors ==
        std::vector<std::string>{"m.sexp:2:21: expected an integer thread id after 'Switch'"});
}

TEST_CASE("a line longer than 1 MiB is an error, and reading goes on") {
  const std::string text = "((time 1)(op(Switch 0)))\n((time 2)(op(Label 1 \"" +
                           std::string(kMaxLineBytes + 10, 'a') + "\")))\n((time 3)(op(Switch 2)))\n";
  const auto result = import(text);
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)", "(return 2000000000 2)"});
  CHECK(result.errors == std::vector<std::string>{"m.sexp:2:1048577: line longer than 1 MiB (1048576 bytes)"});
}

TEST_CASE("readers stop: an endless line in a MirageOS trace ends reading within bounded work") {
  auto given = std::make_shared<std::uint64_t>(0);
  MirageSexpImporter importer(
      std::make_unique<test::EndlessSource>("((time 1)(op(Switch 0)))\n((time 2)(op(Label 1 \"", 'a', given), "m.sexp");
  const auto result = test::read_source(importer, 1000);
  CHECK(result.records == std::vector<std::string>{"(switch 0 0)"});
  CHECK(result.errors == std::vector<std::string>{
                             "m.sexp:2:1048577: line longer than 1 MiB (1048576 bytes), with no end in the next "
                             "16 MiB: the rest of the input is not read"});
  CHECK(*given < 32u * 1024 * 1024);
}

TEST_CASE("a MirageOS trace cut at every byte offset keeps every complete record") {
  const std::string text = kEveryOp;
  const auto all = import(text).records;
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    const auto result = import(std::string_view(text).substr(0, cut));
    CHECK(result.errors.empty());
    // The complete lines (with or without their CR and LF) before the cut.
    std::size_t complete = 0;
    bool mid_line = false;
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = text.find('\r', start);  // every line ends in CRLF
      if (end <= cut) ++complete;
      else if (cut > start) mid_line = true;
      start = end + 2;
    }
    REQUIRE(complete <= all.size());
    CHECK(result.records == std::vector<std::string>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(complete)));
    CHECK(result.truncated == mid_line);
    if (mid_line) {
      REQUIRE(result.warnings.size() == 1);
      CHECK_THAT(result.warnings[0], Catch::Contains("warning: the last line is cut short ("));
    } else {
      CHECK(result.warnings.empty());
    }
  }
}

TEST_CASE("a gzip MirageOS trace reads as the plain one, and a cut stream is a truncation") {
  const std::string text = kEveryOp;
  std::string compressed;
  {
    auto sink = gzip_output(string_output(compressed), "m.sexp.gz");
    REQUIRE(sink->write(text).ok());
    REQUIRE(sink->close().ok());
  }
  const auto plain = import(text);
  CHECK(import(compressed).records == plain.records);
  for (std::size_t cut = 2; cut < compressed.size(); ++cut) {
    CAPTURE(cut);
    const auto result = import(std::string_view(compressed).substr(0, cut));
    REQUIRE(result.records.size() <= plain.records.size());
    CHECK(std::equal(result.records.begin(), result.records.end(), plain.records.begin()));
    CHECK((result.truncated || !result.errors.empty()));
  }
}
