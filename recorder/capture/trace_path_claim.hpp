// trace_path_claim.hpp — one trace file, one writer: a capture takes an
// exclusive lock on the regular file it writes, and a capture that finds
// that lock held (a traced program's child that inherited SKEIN_TRACE,
// another traced program started meanwhile) leaves the file alone and writes
// its own trace beside it.
//
// (Between processes; output_lock.hpp is another thing, the turn-taking of
// one capture's writer thread and crash handler.)
//
// The lock is flock(2), LOCK_EX | LOCK_NB, on the capture's own open file
// description: advisory, so it binds captures, not other writers; released
// when the last descriptor of that description closes (the capture's stop,
// or its process's end, a crash included). The file is opened without
// O_TRUNC, and stream mode truncates it only once the lock is held.
//
// The name beside. PATH with ".PID" (this process's id) before its suffix:
// the last extension of the file name, with ".gz" after it if there is one.
//
//   trace.sexp     -> trace.PID.sexp        t.sexp.gz  -> t.PID.sexp.gz
//   trace          -> trace.PID             out.gz     -> out.PID.gz
//
// The suffix stays the name's end, so every tool and glob that knows a trace
// by its name still does, and a writer still compresses by ".gz"; the id is
// unique among running processes, so two writers beside one trace never
// meet, and it says which process wrote the file (its header says too). A
// file of that name left by an earlier process of the same id holds no lock
// and is replaced. Said once on stderr (BesideTrace::line()); the header of
// the trace beside names the process that held PATH, `beside-pid`, when the
// kernel's lock table (/proc/locks) does.
//
// Invariants:
//   1. A trace file is truncated only by the holder of its lock; claiming
//      never truncates.
//   2. The lock is held on the file PATH names, not on one since renamed
//      away or removed: after flock, the descriptor's file is compared with
//      PATH's, and the claim starts again if they differ (a ring capture
//      renames whole traces over its PATH).
//   3. A ring capture's PATH stays locked across its replacements: the new
//      file is locked (lock_replacement) before it is renamed over PATH.
//   4. Descriptors are O_CLOEXEC, so a program the traced one runs opens
//      its own description and meets the lock. A forked child shares the
//      parent's description, and with it the lock: the capture closes its
//      copies in the child (close_in_fork_child), which writes nothing.
//   5. A file system without flock (EINVAL, ENOLCK, EOPNOTSUPP) is written
//      unlocked, as before there was a lock: a trace is better than none.
#pragma once

#include <optional>
#include <string>

#include "recorder/format/diagnostic.hpp"

namespace skein::capture {

// A descriptor that holds a trace file's lock, closed (the lock released
// with it, once no other descriptor of its description is open) when
// destroyed.
class TraceFileLock {
 public:
  TraceFileLock() = default;
  explicit TraceFileLock(int fd) noexcept : fd_(fd) {}
  TraceFileLock(TraceFileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  TraceFileLock& operator=(TraceFileLock&& other) noexcept;
  TraceFileLock(const TraceFileLock&) = delete;
  TraceFileLock& operator=(const TraceFileLock&) = delete;
  ~TraceFileLock();

  [[nodiscard]] int fd() const noexcept { return fd_; }
  // The descriptor, for a sink to write through and own; the lock goes
  // with it.
  [[nodiscard]] int release() noexcept;
  // Ring mode (invariant 3): before the whole trace at `replacement` is
  // renamed over the locked file, locks it too and returns its descriptor
  // (-1 if it cannot be); after the rename, adopt() it.
  [[nodiscard]] static int lock_replacement(const std::string& replacement) noexcept;
  // Holds `fd` instead (the replaced file's lock is released).
  void adopt(int fd) noexcept;
  // In a forked child: this process's copy closed; the parent's lock stays
  // (invariant 4). Async-signal-safe.
  void close_in_fork_child() noexcept;

 private:
  int fd_ = -1;
};

// A trace written beside the path it was asked for.
struct BesideTrace {
  std::string held_path;  // the path asked for, held by another process
  long holder_pid = 0;    // that process, as /proc/locks names it (0: unknown)
  // The one line said on stderr: both paths, and the holder when known.
  [[nodiscard]] std::string line(const std::string& written_path) const;
};

// Where a capture's trace goes once claimed: the path asked for, or the name
// beside it, its file opened for writing (never truncated) and locked.
struct ClaimedTracePath {
  std::string path;
  TraceFileLock lock;
  std::optional<BesideTrace> beside;
};

// Claims `path`, which names nothing, a regular file, or (`through_link`) a
// symbolic link to a regular file: created if absent, locked; or, when
// another process holds its lock, the name beside it (created or reused)
// the same way. Fails when neither can be had.
[[nodiscard]] Result<ClaimedTracePath> claim_trace_path(const std::string& path, bool through_link);

// `path` with ".PID" before its suffix (see "The name beside").
[[nodiscard]] std::string beside_path(const std::string& path, long pid);

}  // namespace skein::capture
