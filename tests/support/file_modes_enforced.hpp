// file_modes_enforced.hpp — for tests of files that may not be written:
// while a FileModesEnforced lives, the calling thread obeys file and folder
// modes even when it runs as root.
//
// Root writes a file of mode 0444, or into a folder of mode 0555, because
// its CAP_DAC_OVERRIDE capability overrides the mode check. The guard
// lowers that capability in the thread's effective set (it stays in the
// permitted set) and raises it again when destroyed; the kernel then
// refuses those writes to root as it does to any other user, so a test of
// "cannot be written" tests the same refusal whoever runs it. A process
// without the capability is left as it is.
//
// Invariants: capabilities are per thread (capset(2) with pid 0), so only
// the calling thread is affected, and code under test must do its file
// access on that thread; lowering an effective capability, and raising it
// back from the permitted set, needs no privilege, so ok() is false only
// when the system refuses capget/capset themselves.
#pragma once

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace skein::test {

class FileModesEnforced {
 public:
  FileModesEnforced() {
    header_.version = _LINUX_CAPABILITY_VERSION_3;
    header_.pid = 0;
    if (syscall(SYS_capget, &header_, saved_) != 0) return;
    __user_cap_data_struct lowered[2] = {saved_[0], saved_[1]};
    lowered[CAP_TO_INDEX(CAP_DAC_OVERRIDE)].effective &= ~CAP_TO_MASK(CAP_DAC_OVERRIDE);
    ok_ = syscall(SYS_capset, &header_, lowered) == 0;
  }
  ~FileModesEnforced() {
    if (ok_) syscall(SYS_capset, &header_, saved_);
  }
  FileModesEnforced(const FileModesEnforced&) = delete;
  FileModesEnforced& operator=(const FileModesEnforced&) = delete;

  // True when the thread now obeys file modes.
  [[nodiscard]] bool ok() const { return ok_; }

 private:
  __user_cap_header_struct header_{};
  __user_cap_data_struct saved_[2]{};
  bool ok_ = false;
};

}  // namespace skein::test
