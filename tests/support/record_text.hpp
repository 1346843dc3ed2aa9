// record_text.hpp — test helpers: parse a trace held in a string, and keep
// records with their strings (records from TraceReader point into its buffer).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/trace_reader.hpp"
#include "recorder/format/trace_writer.hpp"

namespace skein::test {

// Everything one pass of TraceReader over a string gives.
struct ReadResult {
  std::vector<std::string> records;  // each record formatted back to its line
  std::vector<std::string> errors;   // Diagnostic::to_string()
  std::vector<std::string> warnings;
  bool truncated = false;
  bool has_header = false;
};

inline ReadResult read_all(std::string_view text, const std::string& name = "t.sexp") {
  ReadResult result;
  TraceReader reader(memory_input(text, name), name);
  for (;;) {
    const auto step = reader.next();
    if (step == TraceReader::Step::end) break;
    if (step == TraceReader::Step::error) result.errors.push_back(reader.error().to_string());
    else result.records.push_back(format_record(reader.record()));
  }
  for (const auto& w : reader.warnings()) result.warnings.push_back(w.to_string());
  result.truncated = reader.truncated();
  result.has_header = reader.header() != nullptr;
  return result;
}

inline constexpr const char* kHeaderLine =
    "(skein-trace 1 (process \"t\") (pid 1) (origin-unix-ns 1764409200123456789))\n";

// The diagnostics of a one-record trace: the header, then `line` as line 2.
inline ReadResult read_record_line(std::string_view line) {
  return read_all(std::string(kHeaderLine) + std::string(line) + "\n");
}

}  // namespace skein::test
