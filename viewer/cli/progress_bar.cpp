// progress_bar.cpp — the bar decides once, at construction, whether
// standard error is a terminal; if not, every call is a no-op. Each
// update() writes "\r\x1b[K" (return, erase line) and the whole line anew,
// then flushes, so the one line is redrawn in place. With a known total it
// shows a 20-cell bar, the percentage and decimal MB, and after 0.2 s the
// record rate and a linear estimate of the time left; without one, the
// bytes and records read. clear() erases the line only if one was drawn.
#include "viewer/cli/progress_bar.hpp"

#include <unistd.h>

#include <cstdio>

#include "viewer/analysis/units.hpp"

namespace skein::cli {
namespace {

std::string megabytes(std::uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(bytes) / 1e6);
  return buf;
}

}  // namespace

ProgressBar::ProgressBar(std::string name) : name_(std::move(name)), active_(isatty(STDERR_FILENO) == 1) {}

ProgressBar::~ProgressBar() { clear(); }

void ProgressBar::update(const ImportProgress& p) {
  if (!active_) return;
  std::string line = "\r\x1b[K";
  if (p.finishing) {
    line += "importing " + name_ + ": " + counted(p.records, "record") + " read; writing threads and indexes...";
  } else {
    line += "importing " + name_;
    if (p.bytes_total > 0) {
      const double done =
          std::min(1.0, static_cast<double>(p.bytes_done) / static_cast<double>(p.bytes_total));
      constexpr int kWidth = 20;
      const int filled = static_cast<int>(done * kWidth);
      line += " [" + std::string(static_cast<std::size_t>(filled), '#') +
              std::string(static_cast<std::size_t>(kWidth - filled), '.') + "]";
      char buf[32];
      std::snprintf(buf, sizeof buf, " %3d%%", static_cast<int>(done * 100));
      line += buf;
      line += "  " + megabytes(p.bytes_done) + "/" + megabytes(p.bytes_total) + " MB";
      if (p.seconds > 0.2 && p.bytes_done > 0) {
        const double left = p.seconds * (1.0 - done) / done;
        std::snprintf(buf, sizeof buf, "  %.0f s left", left);
        const std::string rate = p.records > 0
                                     ? "  " + std::to_string(static_cast<double>(p.records) / p.seconds / 1e6)
                                                  .substr(0, 4) + " M records/s"
                                     : "";
        line += rate + buf;
      }
    } else {
      line += "  " + megabytes(p.bytes_done) + " MB  " + counted(p.records, "record");
    }
  }
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::clear() {
  if (!active_ || !drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace skein::cli
