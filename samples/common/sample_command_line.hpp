// sample_command_line.hpp — the command line every sample shares: --help,
// --trace FILE, and a few integer and flag options of its own.
//
// Samples link only the runtime and the recorder, so they parse their
// options by hand rather than pull in Qt for it. The rules, the same for
// every sample: options are `--name VALUE` or a bare `--name` flag; an
// integer outside its range, an unknown option or a missing value prints the
// usage to stderr and exits with 2; --help (or -h) prints it to stdout and
// exits with 0. Tracing: SKEIN_TRACE=FILE in the environment starts a
// capture before main (recorder/capture/trace_autostart.cpp); --trace FILE stops
// that one, if any, and captures to FILE instead, so the option wins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace skein::samples {

class SampleCommandLine {
 public:
  // `program` names the sample in messages; `usage` is printed whole.
  SampleCommandLine(std::string program, std::string usage);

  // Registers `--name N`, N in [min, max]; `value` keeps its default when
  // the option is absent.
  void add_integer(std::string name, std::int64_t& value, std::int64_t min, std::int64_t max);
  // Registers a bare `--name`, which sets `value` to true.
  void add_flag(std::string name, bool& value);

  // Parses argv and, unless told to stop, starts the capture --trace asks
  // for. Returns the exit status when the program should stop now (0 after
  // --help, 2 on a bad command line or a trace file that cannot be made),
  // nullopt when it should run.
  [[nodiscard]] std::optional<int> parse(int argc, char** argv);

 private:
  struct Option {
    std::string name;
    std::int64_t* integer = nullptr;
    std::int64_t min = 0;
    std::int64_t max = 0;
    bool* flag = nullptr;
  };
  [[nodiscard]] int usage_error(const std::string& message) const;

  std::string program_;
  std::string usage_;
  std::vector<Option> options_;
};

}  // namespace skein::samples
