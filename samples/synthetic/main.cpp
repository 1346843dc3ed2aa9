// main.cpp — `synthetic`: writes a generated trace with the shape of a real
// program (synthetic_trace.hpp). Until the runtime records real programs,
// this is what `make demo` traces and checks.
//
// Samples use only the runtime and the recorder, so they parse their few
// options by hand rather than pull in Qt for it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"

namespace {

constexpr const char* kUsage =
    "Usage: synthetic [--records N] [--seed S] [--trace FILE]\n"
    "Writes a generated Skein trace of about N records (default 10000) to FILE\n"
    "(default: $SKEIN_TRACE, else synthetic.sexp); FILE ending in .gz is compressed.\n";

bool parse_count(const char* text, std::uint64_t& out) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || text[0] == '-') return false;
  out = v;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  skein::samples::SyntheticOptions options;
  options.records = 10'000;
  const char* env = std::getenv("SKEIN_TRACE");
  std::string path = (env != nullptr && *env != '\0') ? env : "synthetic.sexp";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else if (arg == "--records" && has_value && parse_count(argv[i + 1], options.records) &&
               options.records > 0) {
      ++i;
    } else if (arg == "--seed" && has_value && parse_count(argv[i + 1], options.seed)) {
      ++i;
    } else if (arg == "--trace" && has_value) {
      path = argv[++i];
    } else {
      std::fprintf(stderr, "synthetic: bad argument '%s'\n%s", arg.c_str(), kUsage);
      return 2;
    }
  }
  auto writer = skein::TraceWriter::create(path);
  if (!writer) {
    std::fprintf(stderr, "%s\n", writer.error().to_string().c_str());
    return 1;
  }
  writer.value().write_header(skein::samples::synthetic_header(options));
  const auto records = skein::samples::synthetic_trace(options);
  for (const auto& r : records) writer.value().write(r);
  const skein::Status finished = writer.value().finish();
  if (!finished.ok()) {
    std::fprintf(stderr, "%s\n", finished.error().to_string().c_str());
    return 1;
  }
  std::printf("wrote %zu records to %s\n", records.size(), path.c_str());
  return 0;
}
