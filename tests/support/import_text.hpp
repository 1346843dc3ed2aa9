// import_text.hpp — test helpers for TraceSource: read every step of a
// source into strings (records formatted as Skein lines, diagnostics as
// Diagnostic::to_string), so tests compare whole outcomes exactly.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/import/trace_source.hpp"
#include "recorder/format/trace_writer.hpp"

namespace skein::test {

struct ImportResult {
  std::vector<std::string> records;  // format_record of each record
  std::vector<std::string> errors;
  std::vector<std::string> warnings;
  bool truncated = false;
};

// Reads `source` to its end, going on after errors (at most `max_steps`
// steps, so a source that never ends fails the test instead of hanging).
inline ImportResult read_source(TraceSource& source, std::size_t max_steps = 1'000'000) {
  ImportResult result;
  for (std::size_t steps = 0; steps < max_steps; ++steps) {
    const auto step = source.next();
    if (step == TraceSource::Step::end) break;
    if (step == TraceSource::Step::error) result.errors.push_back(source.error().to_string());
    else result.records.push_back(format_record(source.record()));
  }
  for (const auto& w : source.warnings()) result.warnings.push_back(w.to_string());
  result.truncated = source.truncated();
  return result;
}

// Builds an importer of type T over `bytes` (gzip detected) and reads it all.
template <class T>
ImportResult import_all(std::string_view bytes, const std::string& name) {
  T importer(memory_input(bytes, name), name);
  return read_source(importer);
}

}  // namespace skein::test
