// file_preallocation.cpp — when and how far ahead the trace file's blocks are
// allocated: once the file passes kPreallocFrom, at least kPreallocSlack past
// its end, in steps as large as the file (from kPreallocMin to
// kPreallocMax); a file system without fallocate is written without.
#include "recorder/capture/file_preallocation.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

namespace skein::capture {
namespace {

constexpr off_t kPreallocSlack = off_t{4} << 20;
constexpr off_t kPreallocMin = off_t{8} << 20;
constexpr off_t kPreallocMax = off_t{256} << 20;
// Only files that grow past this: a short capture's file is written in a few
// calls anyway, and giving blocks back at its end (ftruncate, a synchronous
// discard on a file system mounted with it) would cost its program's exit.
constexpr off_t kPreallocFrom = off_t{16} << 20;

}  // namespace

void FilePreallocation::adopt_duplicate_of(int fd) noexcept { fd_ = fcntl(fd, F_DUPFD_CLOEXEC, 3); }

void FilePreallocation::allocate_ahead() noexcept {
  if (fd_ < 0) return;
  struct stat st {};
  if (fstat(fd_, &st) != 0) return;
  if (st.st_size < kPreallocFrom) return;
  if (st.st_size + kPreallocSlack <= end_) return;
  const off_t step = std::clamp<off_t>(st.st_size, kPreallocMin, kPreallocMax);
  const off_t from = std::max(end_, st.st_size);
  if (fallocate(fd_, FALLOC_FL_KEEP_SIZE, from, st.st_size + step - from) != 0) {
    ::close(fd_);  // not supported here (or no space): write without
    fd_ = -1;
    return;
  }
  end_ = st.st_size + step;
}

void FilePreallocation::release() noexcept {
  if (fd_ < 0) return;
  struct stat st {};
  if (end_ > 0 && fstat(fd_, &st) == 0) (void)ftruncate(fd_, st.st_size);
  ::close(fd_);
  fd_ = -1;
}

void FilePreallocation::close_in_fork_child() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace skein::capture
