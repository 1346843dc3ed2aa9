// file_preallocation.hpp — stream mode's trace file, its blocks allocated
// ahead of the writes.
//
// A buffered write to ext4 spends much of its kernel time reserving and
// allocating the file's blocks page by page (a third of the writer thread's
// time on a busy capture). The writer therefore allocates the file's blocks
// ahead in large extents with fallocate(FALLOC_FL_KEEP_SIZE), which leaves
// the file's size alone, so a reader (or a crash) still sees exactly what
// was written; at the end (a stop or the crash path) ftruncate to the
// written size gives the rest back. Where fallocate is not supported,
// nothing changes.
//
// Invariants:
//   1. Only a regular file the capture opened itself is preallocated; the
//      preallocation holds its own duplicate of the descriptor, closed by
//      release() (or when fallocate fails).
//   2. The file's size is never changed but by release(), to the size
//      written.
//   3. release() is async-signal-safe (fstat, ftruncate, close), for the
//      crash path. Only the thread that may write the file calls it (the
//      writer thread, or the crash handler holding the output lock,
//      output_lock.hpp), so no write appends between the size read and the
//      truncation.
#pragma once

#include <sys/types.h>

namespace skein::capture {

class FilePreallocation {
 public:
  // Preallocates the file `fd` is open on, through a duplicate of it (none
  // if it cannot be duplicated).
  void adopt_duplicate_of(int fd) noexcept;
  // After a write: keeps the blocks allocated ahead of the file's end (the
  // rules in file_preallocation.cpp).
  void allocate_ahead() noexcept;
  // Gives back the blocks past the written end and closes the duplicate.
  void release() noexcept;
  // In a forked child: closes the duplicate, giving nothing back (the file
  // is the parent's). Async-signal-safe.
  void close_in_fork_child() noexcept;

 private:
  int fd_ = -1;    // -1: none
  off_t end_ = 0;  // blocks are allocated up to here
};

}  // namespace skein::capture
