// bench_report.hpp — timing and the tables `make bench` prints.
//
// Benchmarks run each measurement several times and report the median, since
// the machine is shared and noisy. A row states the target it is held to and
// whether the median meets it; the program exits 1 when any target is missed,
// so `make bench` fails loudly rather than printing a number nobody reads.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace skein::bench {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  if (n == 0) return 0;
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

struct Row {
  std::string name;
  std::string measured;  // formatted median
  std::string target;    // e.g. ">= 5.0 M records/s"; empty when informative only
  bool met = true;
};

class Table {
 public:
  explicit Table(std::string title) : title_(std::move(title)) {}
  void add(Row row) { rows_.push_back(std::move(row)); }
  // Prints the table; returns true when every target is met.
  bool print() const {
    std::size_t w0 = 4, w1 = 8, w2 = 6;
    for (const auto& r : rows_) {
      w0 = std::max(w0, r.name.size());
      w1 = std::max(w1, r.measured.size());
      w2 = std::max(w2, r.target.size());
    }
    std::printf("\n%s\n", title_.c_str());
    std::printf("  %-*s  %*s  %-*s  %s\n", int(w0), "what", int(w1), "median", int(w2), "target", "");
    bool all = true;
    for (const auto& r : rows_) {
      const char* verdict = r.target.empty() ? "" : (r.met ? "ok" : "MISSED");
      std::printf("  %-*s  %*s  %-*s  %s\n", int(w0), r.name.c_str(), int(w1), r.measured.c_str(), int(w2),
                  r.target.c_str(), verdict);
      all = all && r.met;
    }
    return all;
  }

 private:
  std::string title_;
  std::vector<Row> rows_;
};

inline std::string fixed(double v, int decimals, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, v, unit);
  return buf;
}

}  // namespace skein::bench
