// synthetic_trace_file.hpp — the benchmarks' generated trace on disk: about
// `records` records of samples/synthetic (the head mix of a real program)
// written to `path` in the Skein format. A benchmark that cannot write it
// has nothing to measure: it says so, named, and exits 2.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"

namespace skein::bench {

// Returns the number of records written.
inline std::uint64_t write_synthetic_trace(const char* bench, const std::string& path, std::uint64_t records) {
  samples::SyntheticOptions options;
  options.records = records;
  const auto generated = samples::synthetic_trace(options);
  auto writer = TraceWriter::create(path);
  if (!writer) {
    std::fprintf(stderr, "%s: %s\n", bench, writer.error().to_string().c_str());
    std::exit(2);
  }
  writer.value().write_header(samples::synthetic_header(options));
  for (const auto& r : generated) writer.value().write(r);
  if (!writer.value().finish().ok()) {
    std::fprintf(stderr, "%s: cannot write %s\n", bench, path.c_str());
    std::exit(2);
  }
  return generated.size();
}

}  // namespace skein::bench
