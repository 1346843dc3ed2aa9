// record_line_parser.hpp — turns one line of a Skein trace into a Record (or
// the header), checking every field against the format's grammar.
//
// This is the parsing half of the reader; TraceReader, with LineSplitter, is
// the tokenizing half that finds lines in a byte stream. The parser works on a single line with
// no allocation on the common path: integers and symbols are read in place,
// strings without escapes are views into the line, and strings with escapes
// are unescaped into a scratch area owned by the parser (valid until the next
// parse call). Lists inside trailing fields are skipped with a depth counter,
// never by recursion.
//
// On error the parser gives the 1-based byte column of the offending token
// and a message such as "expected an integer thread id after 'spawn'".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "recorder/format/record.hpp"

namespace skein {

enum class LineKind : std::uint8_t {
  blank,         // whitespace and comments only
  record,        // a record of a known head
  header,        // a '(skein-trace ...)' line (parse_header reads it)
  unknown_head,  // a well-formed record of a head this version does not know
  error,
};

class RecordLineParser {
 public:
  RecordLineParser();
  ~RecordLineParser();
  RecordLineParser(RecordLineParser&&) noexcept;
  RecordLineParser& operator=(RecordLineParser&&) noexcept;

  // `line` excludes the newline. Strings in `out` point into `line` or into
  // this parser's scratch area.
  [[nodiscard]] LineKind parse_record(std::string_view line, Record& out);
  [[nodiscard]] LineKind parse_header(std::string_view line, TraceHeader& out);

  // After LineKind::error.
  [[nodiscard]] std::uint32_t error_column() const { return error_column_; }
  [[nodiscard]] const std::string& error_message() const { return error_message_; }
  // After LineKind::unknown_head: the head's name (a view into the line).
  [[nodiscard]] std::string_view unknown_head() const { return unknown_head_; }

 private:
  friend struct LineCursor;
  std::unique_ptr<char[]> scratch_;
  std::size_t scratch_used_ = 0;
  std::uint32_t error_column_ = 0;
  std::string error_message_;
  std::string_view unknown_head_;
};

}  // namespace skein
