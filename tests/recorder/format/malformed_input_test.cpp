// malformed_input_test.cpp — bad traces get an exact FILE:LINE:COL message,
// the reader goes on at the next line, and nothing before the error is lost.
#include <catch2/catch.hpp>

#include "tests/support/endless_source.hpp"
#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

// Line 2 is the record under test (line 1 is the header).
std::string error_of(std::string_view line) {
  const auto result = test::read_record_line(line);
  REQUIRE(result.errors.size() == 1);
  CHECK(result.records.empty());
  return result.errors.front();
}

}  // namespace

TEST_CASE("malformed records give exact FILE:LINE:COL messages") {
  // 1. a record must be a list
  CHECK(error_of("spawn 1 2 0 bind") == "t.sexp:2:1: expected '(' to start a record");
  // 2. a thread id that is not an integer
  CHECK(error_of("(spawn 10 x 0 bind)") == "t.sexp:2:11: expected an integer thread id after 'spawn'");
  // 3. a missing field
  CHECK(error_of("(spawn 10 1)") == "t.sexp:2:12: expected an integer thread id after 'spawn'");
  // 4. a missing kind
  CHECK(error_of("(spawn 10 1 0)") == "t.sexp:2:14: expected a kind symbol after 'spawn'");
  // 5. a kind that is a string
  CHECK(error_of("(spawn 10 1 0 \"bind\")") == "t.sexp:2:15: expected a kind symbol after 'spawn'");
  // 6. a negative time
  CHECK(error_of("(read -5 1 2)") == "t.sexp:2:7: time must not be negative");
  // 7. an integer that does not fit 64 bits
  CHECK(error_of("(read 99999999999999999999 1 2)") ==
        "t.sexp:2:7: integer out of range (signed 64-bit) in 'read'");
  // 8. digits running into letters
  CHECK(error_of("(wait 12abc 1 2)") == "t.sexp:2:7: expected an integer time after 'wait'");
  // 9. an unknown outcome
  CHECK(error_of("(resolve 5 1 0 done)") ==
        "t.sexp:2:16: expected an outcome (ok, fail or cancel) after 'resolve'");
  // 10. a failure message that is not a string
  CHECK(error_of("(resolve 5 1 0 fail oops)") == "t.sexp:2:21: expected a message string after 'resolve'");
  // 11. an unterminated string
  CHECK(error_of("(label 5 1 \"B.read)") == "t.sexp:2:12: unterminated string");
  // 12. an unknown escape
  CHECK(error_of("(label 5 1 \"a\\qb\")") ==
        "t.sexp:2:14: unknown escape '\\q' (use \\\\, \\\", \\n, \\t, \\r or \\xHH)");
  // 13. a bad hex escape
  CHECK(error_of("(label 5 1 \"\\x4g\")") == "t.sexp:2:13: expected two hex digits after '\\x'");
  // 14. a raw control byte in a string
  CHECK(error_of("(label 5 1 \"a\x01\")") ==
        "t.sexp:2:14: control byte 0x01 in a string (write it as \\xHH)");
  // 15. invalid UTF-8 in a string
  CHECK(error_of("(label 5 1 \"caf\xc3\")") ==
        "t.sexp:2:16: invalid UTF-8 in a string (write raw bytes as \\xHH)");
  // 16. a missing closing parenthesis
  CHECK(error_of("(switch 5 1") == "t.sexp:2:12: expected ')' to close the record opened at column 1");
  // 17. text after the record
  CHECK(error_of("(switch 5 1) (switch 6 2)") ==
        "t.sexp:2:14: unexpected text after the end of the record");
  // 18. a site id out of range
  CHECK(error_of("(site 4294967296 \"f.cpp\" 1 \"f\")") ==
        "t.sexp:2:7: site id out of range (0 to 2147483647)");
  // 19. a negative line number
  CHECK(error_of("(site 1 \"f.cpp\" -3 \"f\")") == "t.sexp:2:17: line must not be negative");
  // 20. a counter without a name
  CHECK(error_of("(counter 5 blkfront 3)") == "t.sexp:2:12: expected a counter name string after 'counter'");
  // 21. a reason that is a number
  CHECK(error_of("(notify 5 -1 3 7)") == "t.sexp:2:16: expected a reason symbol after 'notify'");
  // 22. no head after '('
  CHECK(error_of("(\"spawn\" 1)") == "t.sexp:2:2: expected a record head after '('");
  // 23. a stray byte in a trailing field
  CHECK(error_of("(idle 5 #)") == "t.sexp:2:9: unexpected character '#'");
  // 24. a negative count
  CHECK(error_of("(lost 5 -1)") == "t.sexp:2:9: count must not be negative");
  // 25. a negative gc duration
  CHECK(error_of("(gc 5 -10)") == "t.sexp:2:7: duration must not be negative");
  // 26. a second header
  CHECK(error_of("(skein-trace 1)") ==
        "t.sexp:2:2: a second header: a trace has one '(skein-trace ...)' line, the first");
  // 27. a string longer than 64 KiB
  CHECK(error_of("(label 5 1 \"" + std::string(65537, 'a') + "\")") ==
        "t.sexp:2:12: string longer than 65536 bytes");
  // 28. lists nested too deep in a trailing field (no recursion either way)
  CHECK(error_of("(idle 5 " + std::string(300, '(') + std::string(300, ')') + ")") ==
        "t.sexp:2:265: lists nested deeper than 256");
}

TEST_CASE("malformed drop, no-waiter and queued records give exact FILE:LINE:COL messages") {
  // drop: two thread ids
  CHECK(error_of("(drop 5 x 0)") == "t.sexp:2:9: expected an integer thread id after 'drop'");
  CHECK(error_of("(drop 5 1)") == "t.sexp:2:10: expected an integer thread id after 'drop'");
  CHECK(error_of("(drop 5 1 -9223372036854775808)") ==
        "t.sexp:2:11: thread id -9223372036854775808 is reserved (thread ids are -9223372036854775807 to "
        "9223372036854775807)");
  // no-waiter: an object number of 1 and up, then a reason symbol
  CHECK(error_of("(no-waiter 5 0 0 condition)") ==
        "t.sexp:2:16: object number out of range (1 to 9223372036854775807)");
  CHECK(error_of("(no-waiter 5 0 -3 condition)") ==
        "t.sexp:2:16: object number out of range (1 to 9223372036854775807)");
  CHECK(error_of("(no-waiter 5 0 x condition)") == "t.sexp:2:16: expected an integer object number after 'no-waiter'");
  CHECK(error_of("(no-waiter 5 0 99999999999999999999 condition)") ==
        "t.sexp:2:16: integer out of range (signed 64-bit) in 'no-waiter'");
  CHECK(error_of("(no-waiter 5 0 1)") == "t.sexp:2:17: expected a reason symbol after 'no-waiter'");
  CHECK(error_of("(no-waiter 5 0 1 \"condition\")") == "t.sexp:2:18: expected a reason symbol after 'no-waiter'");
  CHECK(error_of("(no-waiter 5 0 1 7)") == "t.sexp:2:18: expected a reason symbol after 'no-waiter'");
  CHECK(error_of("(no-waiter -1 0 1 condition)") == "t.sexp:2:12: time must not be negative");
  // queued: a thread id, then an object number
  CHECK(error_of("(queued 5 1 0)") == "t.sexp:2:13: object number out of range (1 to 9223372036854775807)");
  CHECK(error_of("(queued 5 1)") == "t.sexp:2:12: expected an integer object number after 'queued'");
  CHECK(error_of("(queued 5 w 1)") == "t.sexp:2:11: expected an integer thread id after 'queued'");
}

TEST_CASE("malformed headers are fatal with exact messages") {
  const auto only_error = [](std::string_view text) {
    const auto result = test::read_all(text);
    REQUIRE(result.errors.size() == 1);
    CHECK(result.records.empty());
    return result.errors.front();
  };
  CHECK(only_error("") == "t.sexp:1: empty input: expected the header '(skein-trace 1 ...)'");
  // Blank lines only are empty too, at line 1 as the format detection says;
  // a comment is text, so its trace lacks a header at the end.
  CHECK(only_error(" \n\t\n\n") == "t.sexp:1: empty input: expected the header '(skein-trace 1 ...)'");
  CHECK(only_error("; notes\n\n") == "t.sexp:2: no header: expected '(skein-trace 1 ...)' before the end");
  CHECK(only_error("(spawn 1 2 0 bind)\n") == "t.sexp:1:2: expected the header '(skein-trace 1 ...)'");
  CHECK(only_error("(skein-trace 2)\n(idle 5)\n") ==
        "t.sexp:1:14: unsupported format version 2 (this reader reads version 1)");
  CHECK(only_error("(skein-trace one)\n") ==
        "t.sexp:1:14: expected the format version after 'skein-trace'");
  CHECK(only_error("(skein-trace 1 pid)\n") == "t.sexp:1:16: expected an option '(KEY VALUE)' in the header");
  CHECK(only_error("((time 1413637708.834171)(op(Creates 0 4 Bind)))\n") ==
        "t.sexp:1:2: expected the header '(skein-trace 1 ...)' (this looks like a 2014 MirageOS "
        "trace: 'skein import' reads those)");
}

TEST_CASE("the reader goes on after a bad line and keeps the good ones") {
  const auto result = test::read_all(std::string(test::kHeaderLine) +
                                     "(spawn 1 1 0 task)\n"
                                     "(spawn 2 x 0 task)\n"
                                     "; a comment\n"
                                     "\n"
                                     "(read 3 1 0) ; trailing comment\n"
                                     "(wait 4 1)\n"
                                     "(end 5)\n");
  CHECK(result.records == std::vector<std::string>{"(spawn 1 1 0 task)", "(read 3 1 0)", "(end 5)"});
  CHECK(result.errors == std::vector<std::string>{
                             "t.sexp:3:10: expected an integer thread id after 'spawn'",
                             "t.sexp:7:10: expected an integer thread id after 'wait'"});
}

TEST_CASE("unknown heads are skipped, counted and warned about once per head") {
  const std::string text = std::string(test::kHeaderLine) +
                           "(frobnicate 1 2 (nested \"x\") 3)\n"
                           "(spawn 1 1 0 task)\n"
                           "(frobnicate 9)\n"
                           "(twiddle)\n";
  TraceReader reader(memory_input(text, "t.sexp"), "t.sexp");
  int records = 0;
  while (reader.next() == TraceReader::Step::record) ++records;
  CHECK(records == 1);
  REQUIRE(reader.unknown_heads().size() == 2);
  CHECK(reader.unknown_heads()[0].name == "frobnicate");
  CHECK(reader.unknown_heads()[0].count == 2);
  CHECK(reader.unknown_heads()[1].name == "twiddle");
  CHECK(reader.unknown_heads()[1].count == 1);
  REQUIRE(reader.warnings().size() == 2);
  CHECK(reader.warnings()[0].to_string() ==
        "t.sexp:2:2: warning: unknown record head 'frobnicate': skipped (later records with this "
        "head are skipped and counted silently)");
}

TEST_CASE("extra trailing fields are ignored, lists and strings included") {
  const auto result = test::read_record_line("(read 3 1 0 (future \"field\" (x 1)) 42 sym)");
  CHECK(result.errors.empty());
  CHECK(result.records == std::vector<std::string>{"(read 3 1 0)"});
}

namespace {

// What a reader says of an endless stream, and how many bytes it took
// (EndlessSource fails past its bound: a reader that kept going would show
// that bound's error and count).
struct EndlessRead {
  std::vector<std::string> errors;
  std::size_t records = 0;
  std::uint64_t bytes = 0;
};
EndlessRead read_endless(std::string prefix, char fill) {
  auto given = std::make_shared<std::uint64_t>(0);
  TraceReader reader(std::make_unique<test::EndlessSource>(std::move(prefix), fill, given), "z");
  EndlessRead result;
  for (int steps = 0; steps < 1000; ++steps) {
    const auto step = reader.next();
    if (step == TraceReader::Step::end) break;
    if (step == TraceReader::Step::error) result.errors.push_back(reader.error().to_string());
    else ++result.records;
  }
  result.bytes = *given;
  return result;
}

const std::string kEndlessLine =
    "line longer than 1 MiB (1048576 bytes), with no end in the next 16 MiB: the rest of the input is not read";

}  // namespace

TEST_CASE("readers stop: an endless header (zeros, as /dev/zero gives) ends reading within bounded work") {
  const auto result = read_endless("", '\0');
  CHECK(result.errors == std::vector<std::string>{"z:1:1048577: " + kEndlessLine});
  CHECK(result.records == 0);
  CHECK(result.bytes < 32u * 1024 * 1024);
}

TEST_CASE("readers stop: an endless record line after the header ends reading within bounded work") {
  const auto result = read_endless(std::string(test::kHeaderLine) + "(idle 5)\n(label 6 1 \"", 'x');
  CHECK(result.errors == std::vector<std::string>{"z:3:1048577: " + kEndlessLine});
  CHECK(result.records == 1);
  CHECK(result.bytes < 32u * 1024 * 1024);
}

TEST_CASE("a header longer than 1 MiB is fatal, like any bad header") {
  const auto result = test::read_all("(skein-trace 1 (process \"" + std::string(2 * 1024 * 1024, 'p') +
                                     "\"))\n(idle 7)\n(end 8)\n");
  CHECK(result.errors == std::vector<std::string>{"t.sexp:1:1048577: line longer than 1 MiB (1048576 bytes)"});
  CHECK(result.records.empty());
}

TEST_CASE("CRLF line ends and unknown header options are accepted") {
  const auto result = test::read_all(
      "(skein-trace 1 (process \"p\") (future-key (a b)) (flag yes))\r\n(idle 5)\r\n(end 6)\r\n");
  CHECK(result.errors.empty());
  CHECK(result.records == std::vector<std::string>{"(idle 5)", "(end 6)"});
}

TEST_CASE("a line longer than 1 MiB is an error and reading goes on after it") {
  std::string text = test::kHeaderLine;
  text += "(label 1 1 \"" + std::string(2 * 1024 * 1024, 'x') + "\")\n";
  text += "(idle 7)\n";
  const auto result = test::read_all(text);
  CHECK(result.errors == std::vector<std::string>{"t.sexp:2:1048577: line longer than 1 MiB (1048576 bytes)"});
  CHECK(result.records == std::vector<std::string>{"(idle 7)"});
}
