// ctf_importer_fuzzer.cpp — libFuzzer target for CtfImporter.
//
// Beyond "no crash" (ASan and UBSan are on), it checks on every input:
//   1. every record delivered is a valid Skein record: it formats to a line
//      that RecordLineParser reads back as the same record;
//   2. every error and warning names a byte within the input
//      ("byte N: ...", N <= size);
//   3. the importer terminates: an event takes at least 17 bytes, so there
//      are at most size / 17 records, plus one error or warning step, and
//      Step::end is final; the per-event counts add up to the records.
// Inputs starting with the gzip magic exercise the decompressing source.
#include <cstdint>
#include <string>
#include <string_view>

#include "recorder/format/byte_source.hpp"
#include "recorder/import/ctf/ctf_importer.hpp"
#include "recorder/format/record_line_parser.hpp"
#include "recorder/format/trace_writer.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  __builtin_trap();
  (void)what;
}

void check_diagnostic(const skein::Diagnostic& d, std::size_t size, bool compressed) {
  if (d.line != 0 || d.column != 0) violated("a CTF diagnostic names a line");
  const std::string_view m = d.message;
  if (m.rfind("byte ", 0) != 0) return;  // about the whole stream (a gzip cut)
  std::uint64_t offset = 0;
  std::size_t i = 5;
  for (; i < m.size() && m[i] >= '0' && m[i] <= '9'; ++i) offset = offset * 10 + static_cast<std::uint64_t>(m[i] - '0');
  if (i == 5 || i >= m.size() || m[i] != ':') violated("malformed byte offset");
  if (!compressed && offset > size) violated("byte offset past the end of the input");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const bool compressed = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  skein::CtfImporter importer(skein::memory_input(bytes, "fuzz"), "fuzz");
  static skein::RecordLineParser parser;
  std::uint64_t records = 0;
  std::size_t steps = 0;
  for (;;) {
    const auto step = importer.next();
    if (++steps > size / 17 + 2 && !compressed) violated("more steps than events fit");
    if (step == skein::TraceSource::Step::end) break;
    if (step == skein::TraceSource::Step::error) {
      check_diagnostic(importer.error(), size, compressed);
      continue;
    }
    ++records;
    const std::string line = skein::format_record(importer.record());
    skein::Record back;
    if (parser.parse_record(line, back) != skein::LineKind::record) violated("not a valid Skein record");
    if (skein::format_record(back) != line) violated("the record does not read back the same");
  }
  if (importer.next() != skein::TraceSource::Step::end) violated("end is not final");
  std::uint64_t counted = 0;
  for (const auto c : importer.event_counts()) counted += c;
  if (counted != records) violated("event counts do not add up to the records");
  for (const auto& w : importer.warnings()) check_diagnostic(w, size, compressed);
  return 0;
}
