// mirage_sexp_importer_fuzzer.cpp — libFuzzer target for MirageSexpImporter.
//
// Beyond "no crash" (ASan and UBSan are on), it checks on every input:
//   1. every record delivered is a valid Skein record: it formats to a line
//      that RecordLineParser reads back as the same record (times >= 0,
//      kinds are symbols, strings within the limit);
//   2. every error and warning names a line that exists and a column within
//      that line (or 0);
//   3. the importer terminates: at most one step per line plus a few, and
//      Step::end is final.
// Inputs starting with the gzip magic exercise the decompressing source.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/import/mirage_sexp/mirage_sexp_importer.hpp"
#include "recorder/format/record_line_parser.hpp"
#include "recorder/format/trace_writer.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  __builtin_trap();
  (void)what;
}

// Byte lengths of the input's lines (without their '\n').
std::vector<std::size_t> line_lengths(std::string_view text) {
  std::vector<std::size_t> lengths;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      lengths.push_back(i - start);
      start = i + 1;
    }
  }
  return lengths;
}

void check_diagnostic(const skein::Diagnostic& d, const std::vector<std::size_t>& lengths,
                      bool compressed) {
  if (compressed) return;  // lines of the decompressed text are not known here
  if (d.line > lengths.size()) violated("diagnostic names a line past the end");
  if (d.line > 0 && d.column > lengths[d.line - 1] + 1) violated("column past the end of its line");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool compressed = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const auto lengths = line_lengths(text);
  skein::MirageSexpImporter importer(skein::memory_input(text, "fuzz"), "fuzz");
  static skein::RecordLineParser parser;
  std::size_t steps = 0;
  for (;;) {
    const auto step = importer.next();
    if (++steps > lengths.size() + 4 && !compressed) violated("more steps than lines");
    if (step == skein::TraceSource::Step::end) break;
    if (step == skein::TraceSource::Step::error) {
      check_diagnostic(importer.error(), lengths, compressed);
      continue;
    }
    const std::string line = skein::format_record(importer.record());
    skein::Record back;
    if (parser.parse_record(line, back) != skein::LineKind::record) violated("not a valid Skein record");
    if (skein::format_record(back) != line) violated("the record does not read back the same");
  }
  if (importer.next() != skein::TraceSource::Step::end) violated("end is not final");
  for (const auto& w : importer.warnings()) check_diagnostic(w, lengths, compressed);
  return 0;
}
