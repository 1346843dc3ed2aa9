// pending_file.hpp — a file written under a temporary name beside its
// target, `TARGET.tmp-PID` (invariant 4 shortens a long name), and renamed over the target only once complete,
// so that readers see the old file or the new one, never half of one. The
// mechanism under output_file.hpp, which alone decides when it is used:
// when the target is a regular file or nothing (never a device, a FIFO or
// a symbolic link, which are written through or refused there).
//
// States and transitions:
//
//   create() --> pending --sync_contents()--> synced --rename_over_target()--> committed
//                   |                           |                  (TARGET replaced)
//                   +---------------------------+--discard() / destructor /
//                                                  SIGINT-SIGTERM-SIGHUP--> removed
//
// sync_contents() may be skipped (a file that need not survive a power
// loss); commit() is sync_contents() then rename_over_target().
//
// Invariants:
//   1. The temporary file is made by create() itself (O_CREAT | O_EXCL |
//      O_NOFOLLOW): a fresh regular file no one else wrote. Its inode is
//      kept, and the rename happens only while that inode is still what
//      the temporary name holds.
//   2. The rename lands only on the kind of node create() was told the
//      target was (`checked`: a regular file, or nothing), checked by the
//      kernel at the rename itself: onto nothing with RENAME_NOREPLACE,
//      onto a file with RENAME_EXCHANGE, after which the node swapped out
//      is looked at and, were it anything but a regular file (a device or a
//      link put there since the check), swapped back and the commit refused.
//      A regular file that appeared or changed meanwhile is replaced, as it
//      would have been a moment later. Where the file system has no
//      renameat2 flags, the target is lstat'ed again just before a plain
//      rename(2): there, and only there, a node put in place in between
//      those two calls would still be replaced.
//   3. Leftovers. A process killed outright (SIGKILL, a crash) leaves
//      `TARGET.tmp-PID` behind but TARGET untouched; create() removes the
//      `TARGET.tmp-N` of processes N that no longer exist (kill(N, 0) fails
//      with ESRCH) and never those of live processes (nor of processes of
//      other users, EPERM) — a pid reused since keeps its leftover until
//      that process is gone too.
//   4. A temporary name never exceeds the folder's NAME_MAX, whatever the
//      target's name: it is `NAME.tmp-PID` while that fits with a pid of
//      ten digits, else a prefix of NAME (whole UTF-8 characters), `~`
//      and eight hex digits of NAME's hash, then `.tmp-PID`. The part
//      before the pid depends on NAME alone, so invariant 3 finds every
//      process's leftovers; NAME's hash keeps apart names that share the
//      prefix.
//
// Errors name what failed: creating the temporary file (its name, its
// folder and the system's reason: a read-only file system, a folder that
// cannot be written); nothing is removed or looked at before that attempt
// but the leftovers of dead processes, whose removal is best effort.
//
// Signals. remove_pending_files_on_signals() installs handlers for SIGINT,
// SIGTERM and SIGHUP that unlink every pending file of the process (a fixed
// table, async-signal-safe) and then die of the same signal, so the exit
// status still says what happened.
//
// Durability: sync_contents() fsyncs the file, rename_over_target() the
// folder after the rename when asked (a cache that can be rebuilt from its
// source need not pay for it).
#pragma once

#include <string>

#include "recorder/format/diagnostic.hpp"
#include "recorder/output/output_node.hpp"

namespace skein {

class PendingFile {
 public:
  // `checked`: what inspect_output_node(target) found, absent or a regular
  // file (anything else is a caller's bug, refused).
  [[nodiscard]] static Result<PendingFile> create(const std::string& target, const OutputNode& checked);
  PendingFile(PendingFile&& other) noexcept;
  PendingFile& operator=(PendingFile&& other) noexcept;
  PendingFile(const PendingFile&) = delete;
  PendingFile& operator=(const PendingFile&) = delete;
  ~PendingFile();  // discards unless committed

  // The temporary path create() uses for `target` in this process
  // (invariant 4), for callers that must know its length beforehand.
  [[nodiscard]] static std::string temp_path_for(const std::string& target);

  [[nodiscard]] const std::string& temp_path() const { return temp_; }
  [[nodiscard]] const std::string& target() const { return target_; }
  // The temporary file, open for writing; the caller owns it from here
  // (-1 once taken).
  [[nodiscard]] int take_descriptor();

  [[nodiscard]] Status sync_contents() const;
  // Renames the temporary file over the target (invariant 2), then fsyncs
  // the folder when `sync_directory`.
  [[nodiscard]] Status rename_over_target(bool sync_directory);
  [[nodiscard]] Status commit(bool sync = true);
  void discard();

 private:
  PendingFile(std::string target, std::string temp, OutputNode checked, OutputNode temp_node, int fd, int slot);

  std::string target_;
  std::string temp_;
  OutputNode checked_;    // the target, when create() was called
  OutputNode temp_node_;  // the temporary file create() made
  int fd_ = -1;
  int slot_ = -1;  // in the signal handlers' table; -1: none
  bool done_ = false;
};

void remove_pending_files_on_signals();
// Unlinks every pending file of the process now, as the handlers do; for a
// process about to end abruptly (out_of_memory_exit.hpp). Allocates
// nothing; the PendingFile objects are left as they are.
void remove_pending_files_now();

}  // namespace skein
