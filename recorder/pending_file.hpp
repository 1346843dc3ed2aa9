// pending_file.hpp — a file written under a temporary name beside its
// target, `TARGET.tmp-PID`, and renamed over the target only once complete,
// so that readers see the old file or the new one, never half of one.
//
// States and transitions:
//
//   create() --> pending --commit()--> committed (TARGET replaced)
//                   |
//                   +--discard() / destructor / SIGINT-SIGTERM-SIGHUP--> removed
//
// A process killed outright (SIGKILL, a crash) leaves `TARGET.tmp-PID`
// behind but TARGET untouched; the next create() for the same target
// removes such leftovers of processes that no longer exist.
//
// Signals. remove_pending_files_on_signals() installs handlers for SIGINT,
// SIGTERM and SIGHUP that unlink every pending file of the process (a fixed
// table, async-signal-safe) and then die of the same signal, so the exit
// status still says what happened.
//
// commit() makes the rename durable too: it fsyncs the file before the
// rename and the directory after, unless told not to (a cache that can be
// rebuilt from its source need not pay for it).
#pragma once

#include <string>

#include "recorder/diagnostic.hpp"

namespace skein {

class PendingFile {
 public:
  [[nodiscard]] static Result<PendingFile> create(const std::string& target);
  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&& other) noexcept;
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();  // discards unless committed

  [[nodiscard]] const std::string& temp_path() const { return temp_; }
  [[nodiscard]] const std::string& target() const { return target_; }

  // Renames the temporary file over the target (durably when `sync`).
  [[nodiscard]] Status commit(bool sync = true);
  void discard();

 private:
  PendingFile(std::string target, std::string temp, int slot);

  std::string target_;
  std::string temp_;
  int slot_ = -1;  // in the signal handlers' table; -1: none
  bool done_ = false;
};

void remove_pending_files_on_signals();

}  // namespace skein
