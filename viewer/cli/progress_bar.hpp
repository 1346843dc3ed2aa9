// progress_bar.hpp — the import's progress on standard error, only when it
// is a terminal (quiet otherwise, so logs and pipes stay clean):
//
//   importing trace.sexp [##########..........]  51%  161/316 MB  1.21 M records/s  2 s left
//
// One line, rewritten in place; cleared when the import ends.
#pragma once

#include <string>

#include "recorder/store/trace_import.hpp"

namespace skein::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string name);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  [[nodiscard]] bool active() const { return active_; }
  void update(const ImportProgress& p);
  // Erases the line (also done by the destructor).
  void clear();

 private:
  std::string name_;
  bool active_ = false;
  bool drawn_ = false;
};

}  // namespace skein::cli
