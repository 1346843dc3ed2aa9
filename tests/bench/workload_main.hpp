// workload_main.hpp — the one main of Skein's runtime benchmark programs
// (runtime_core_bench W1-W3, runtime_sync_bench W4, runtime_fiber_bench
// W5): the same command line and output as the peers' programs, so
// runtime_versus_peers runs them all alike.
//
//   PROGRAM --workload ID --n N --repeat R
//
// runs the workload once untimed with max(1, N/10), then R timed runs, and
// prints one line per timed run: "ID skein 12.34" (ns per operation, the
// operation the workload's unit names). Exit 0 on success, 1 when a
// workload's result is wrong (it throws CheckFailed) or it fails, 2 on bad
// arguments.
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace skein::bench {

// Thrown by a workload whose result is not what it must be.
struct CheckFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] inline void check_failed(const std::string& what) { throw CheckFailed(what); }

struct Workload {
  const char* id;                // "W1"
  const char* unit;              // "ns per resolve-bind iteration"
  long long (*run)(long long n);  // runs n rounds; returns the operations done
};

namespace detail {

[[noreturn]] inline void bad_args(const char* program, const char* usage, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n%s", program, message.c_str(), usage);
  std::exit(2);
}

inline long long positive_int(const char* program, const char* usage, std::string_view name, std::string_view s) {
  if (s.empty() || s.size() > 18 || s.find_first_not_of("0123456789") != std::string_view::npos || s == "0" ||
      s.find_first_not_of('0') == std::string_view::npos)
    bad_args(program, usage, std::string(name) + " must be a positive integer, got \"" + std::string(s) + "\"");
  return std::stoll(std::string(s));
}

}  // namespace detail

inline int workload_main(int argc, char** argv, const char* program, const char* usage,
                         std::span<const Workload> workloads) {
  const Workload* workload = nullptr;
  long long n = 0;
  long long repeat = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    if (arg != "--workload" && arg != "--n" && arg != "--repeat")
      detail::bad_args(program, usage, "unexpected argument \"" + std::string(arg) + "\"");
    if (i + 1 >= argc) detail::bad_args(program, usage, std::string(arg) + " needs a value");
    const std::string_view value = argv[++i];
    if (arg == "--workload") {
      workload = nullptr;
      for (const Workload& w : workloads)
        if (value == w.id) workload = &w;
      if (workload == nullptr) detail::bad_args(program, usage, "unknown workload \"" + std::string(value) + "\"");
    } else if (arg == "--n") {
      n = detail::positive_int(program, usage, "--n", value);
    } else {
      repeat = detail::positive_int(program, usage, "--repeat", value);
    }
  }
  if (workload == nullptr || n == 0 || repeat == 0)
    detail::bad_args(program, usage, "--workload, --n and --repeat are all required");
  std::fprintf(stderr, "# %s skein: %s, n=%lld, repeat=%lld\n", workload->id, workload->unit, n, repeat);
  try {
    (void)workload->run(n / 10 > 0 ? n / 10 : 1);
    for (long long r = 0; r < repeat; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      const long long ops = workload->run(n);
      const auto t1 = std::chrono::steady_clock::now();
      const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
      std::printf("%s skein %.2f\n", workload->id, ns / static_cast<double>(ops));
      std::fflush(stdout);
    }
  } catch (const CheckFailed& e) {
    std::fprintf(stderr, "%s: check failed: %s\n", program, e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return 1;
  }
  return 0;
}

}  // namespace skein::bench
