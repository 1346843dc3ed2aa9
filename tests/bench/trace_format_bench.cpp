// trace_format_bench.cpp — the trace format's speed and size:
// writing and reading a generated 1,000,000-record trace with the head mix of
// a real program (samples/synthetic), to and from a file.
//
// Targets on a 2-core machine: reading >= 5 M records/s, writing >= 10 M
// records/s, <= 32 bytes per record (the 2014 MirageOS sexp traces used ~50).
// Each figure is the median of seven runs. The file lives in the build
// directory; the page cache serves the reads, as it does right after a
// traced program exits. Gzip figures are informative.
#include <sys/stat.h>

#include <cstdio>
#include <string>

#include "recorder/format/trace_reader.hpp"
#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/bench/bench_report.hpp"

using namespace skein;
using skein::bench::median;
using skein::bench::seconds_since;

namespace {

constexpr int kRuns = 7;

double write_file(const std::string& path, const TraceHeader& header, const std::vector<Record>& records) {
  const auto start = std::chrono::steady_clock::now();
  auto writer = TraceWriter::create(path);
  if (!writer) {
    std::fprintf(stderr, "%s\n", writer.error().to_string().c_str());
    std::exit(2);
  }
  writer.value().write_header(header);
  for (const auto& r : records) writer.value().write(r);
  if (!writer.value().finish().ok()) std::exit(2);
  return seconds_since(start);
}

double read_file(const std::string& path, std::size_t expected) {
  const auto start = std::chrono::steady_clock::now();
  auto reader = TraceReader::open(path);
  if (!reader) std::exit(2);
  std::size_t n = 0;
  std::int64_t checksum = 0;
  for (;;) {
    const auto step = reader.value().next();
    if (step == TraceReader::Step::end) break;
    if (step == TraceReader::Step::error) {
      std::fprintf(stderr, "%s\n", reader.value().error().to_string().c_str());
      std::exit(2);
    }
    ++n;
    checksum += time_of(reader.value().record()).value_or(0);
  }
  const double s = seconds_since(start);
  if (n != expected || checksum == 0) {
    std::fprintf(stderr, "read %zu records, expected %zu\n", n, expected);
    std::exit(1);
  }
  return s;
}

std::uint64_t file_size(const std::string& path) {
  struct stat st{};
  return stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  samples::SyntheticOptions options;
  options.records = argc > 1 ? std::stoull(argv[1]) : 1'000'000;
  const auto records = samples::synthetic_trace(options);
  const auto header = samples::synthetic_header(options);
  const std::string path = "bench-trace.sexp";
  const std::string gz_path = "bench-trace.sexp.gz";

  std::vector<double> write_s, read_s, gz_write_s, gz_read_s;
  for (int run = 0; run < kRuns; ++run) {
    write_s.push_back(write_file(path, header, records));
    read_s.push_back(read_file(path, records.size()));
    if (run < 3) {
      gz_write_s.push_back(write_file(gz_path, header, records));
      gz_read_s.push_back(read_file(gz_path, records.size()));
    }
  }
  const double n = static_cast<double>(records.size());
  const double write_rate = n / median(write_s) / 1e6;
  const double read_rate = n / median(read_s) / 1e6;
  const double bytes_per_record = static_cast<double>(file_size(path)) / n;

  bench::Table table("trace format v1: " + std::to_string(records.size()) +
                     " generated records, median of " + std::to_string(kRuns) + " runs");
  table.add({"write to file", bench::fixed(write_rate, 2, "M records/s"), ">= 10 M records/s", write_rate >= 10});
  table.add({"read from file", bench::fixed(read_rate, 2, "M records/s"), ">= 5 M records/s", read_rate >= 5});
  table.add({"file size", bench::fixed(bytes_per_record, 1, "bytes/record"), "<= 32 bytes/record",
             bytes_per_record <= 32});
  table.add({"write .gz", bench::fixed(n / median(gz_write_s) / 1e6, 2, "M records/s"), "", true});
  table.add({"read .gz", bench::fixed(n / median(gz_read_s) / 1e6, 2, "M records/s"), "", true});
  table.add({".gz size", bench::fixed(static_cast<double>(file_size(gz_path)) / n, 1, "bytes/record"), "", true});
  const bool ok = table.print();
  std::remove(path.c_str());
  std::remove(gz_path.c_str());
  return ok ? 0 : 1;
}
