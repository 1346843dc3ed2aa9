// sample_command_line.cpp — parsing a sample's options and starting the
// capture --trace names (sample_command_line.hpp has the rules).
#include "samples/common/sample_command_line.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "recorder/capture/trace_capture.hpp"

namespace skein::samples {

namespace {

bool parse_integer(const char* text, std::int64_t& out) {
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0') return false;
  out = v;
  return true;
}

}  // namespace

SampleCommandLine::SampleCommandLine(std::string program, std::string usage)
    : program_(std::move(program)), usage_(std::move(usage)) {}

void SampleCommandLine::add_integer(std::string name, std::int64_t& value, std::int64_t min, std::int64_t max) {
  options_.push_back(Option{std::move(name), &value, min, max, nullptr});
}

void SampleCommandLine::add_flag(std::string name, bool& value) {
  options_.push_back(Option{std::move(name), nullptr, 0, 0, &value});
}

int SampleCommandLine::usage_error(const std::string& message) const {
  std::fprintf(stderr, "%s: %s\n%s", program_.c_str(), message.c_str(), usage_.c_str());
  return 2;
}

std::optional<int> SampleCommandLine::parse(int argc, char** argv) {
  const char* trace_path = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage_.c_str(), stdout);
      return 0;
    }
    const bool has_value = i + 1 < argc;
    if (arg == "--trace") {
      if (!has_value) return usage_error("--trace needs a file name");
      trace_path = argv[++i];
      continue;
    }
    const Option* found = nullptr;
    for (const Option& o : options_)
      if (arg == "--" + o.name) found = &o;
    if (found == nullptr) return usage_error("unknown argument '" + arg + "'");
    if (found->flag != nullptr) {
      *found->flag = true;
      continue;
    }
    std::int64_t v = 0;
    if (!has_value || !parse_integer(argv[i + 1], v) || v < found->min || v > found->max)
      return usage_error(arg + " needs an integer from " + std::to_string(found->min) + " to " +
                         std::to_string(found->max));
    *found->integer = v;
    ++i;
  }
  if (trace_path != nullptr) {
    if (trace::capturing()) (void)trace::stop();  // --trace wins over SKEIN_TRACE
    const Status started = trace::start(trace_path);
    if (!started.ok()) {
      std::fprintf(stderr, "%s: %s\n", program_.c_str(), started.error().to_string().c_str());
      return 2;
    }
  }
  return std::nullopt;
}

}  // namespace skein::samples
