// trace_path_claim.cpp — opening, locking and checking a trace file, the name
// beside it, and the lock's holder as /proc/locks gives it; see
// trace_path_claim.hpp.
#include "recorder/capture/trace_path_claim.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace skein::capture {
namespace {

// How many times a claim starts again when PATH was replaced between its
// open and its lock (invariant 2) before it takes PATH for held: a ring
// capture replaces its trace a few times in a run, not in a loop.
constexpr int kClaimAttempts = 4;

enum class LockOutcome { locked, held, unsupported };

LockOutcome try_lock(int fd) noexcept {
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return LockOutcome::locked;
    if (errno == EINTR) continue;
    return errno == EWOULDBLOCK ? LockOutcome::held : LockOutcome::unsupported;
  }
}

// `fd` is open on the file `path` names now (following a final link).
bool still_named(int fd, const std::string& path) {
  struct stat by_fd {};
  struct stat by_name {};
  return fstat(fd, &by_fd) == 0 && stat(path.c_str(), &by_name) == 0 && by_fd.st_dev == by_name.st_dev &&
         by_fd.st_ino == by_name.st_ino;
}

// The process that holds the write lock on `fd`'s file, from /proc/locks
// ("1: FLOCK  ADVISORY  WRITE PID MAJ:MIN:INODE 0 EOF", MAJ and MIN in hex);
// 0 when no line names it.
long lock_holder(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return 0;
  FILE* locks = std::fopen("/proc/locks", "re");
  if (locks == nullptr) return 0;
  long holder = 0;
  char line[256];
  while (holder == 0 && std::fgets(line, sizeof line, locks) != nullptr) {
    char kind[16] = {};
    char type[16] = {};
    long pid = 0;
    unsigned dev_major = 0, dev_minor = 0;
    unsigned long long inode = 0;
    // A waiter's line ("1: -> FLOCK ...") reads "->" as its kind.
    if (std::sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%llu", kind, type, &pid, &dev_major, &dev_minor, &inode) ==
            6 &&
        std::strcmp(kind, "FLOCK") == 0 && std::strcmp(type, "WRITE") == 0 && inode == st.st_ino &&
        dev_major == major(st.st_dev) && dev_minor == minor(st.st_dev))
      holder = pid;
  }
  std::fclose(locks);
  return holder;
}

// The regular file `path` names, opened for writing (created if absent, and
// not through a final link unless `through_link`, which never creates),
// locked and still named by `path`. -1 with errno EWOULDBLOCK when another
// process holds it (`holder` then set, if known), with another errno when
// it cannot be opened.
int open_locked(const std::string& path, bool through_link, long& holder) {
  for (int attempt = 0; attempt < kClaimAttempts; ++attempt) {
    // Through a link, O_NONBLOCK: what it points to may have turned into a
    // FIFO since it was looked at.
    const int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | (through_link ? O_NONBLOCK : O_CREAT | O_NOFOLLOW);
    const int fd = ::open(path.c_str(), flags, 0644);
    if (fd < 0) return -1;
    if (through_link) {
      struct stat st {};
      if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        errno = EINVAL;
        return -1;
      }
      (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    }
    switch (try_lock(fd)) {
      case LockOutcome::held:
        holder = lock_holder(fd);
        ::close(fd);
        errno = EWOULDBLOCK;
        return -1;
      case LockOutcome::unsupported: return fd;  // invariant 5
      case LockOutcome::locked:
        if (still_named(fd, path)) return fd;
        ::close(fd);  // replaced since the open: claim the file there now
        break;
    }
  }
  // Replaced at every attempt: another capture is busy with it.
  holder = 0;
  errno = EWOULDBLOCK;
  return -1;
}

Diagnostic open_failure(const std::string& path) {
  return file_error(path, std::string("cannot create: ") + std::strerror(errno));
}

}  // namespace

// --- the lock ----------------------------------------------------------------

TraceFileLock& TraceFileLock::operator=(TraceFileLock&& other) noexcept {
  if (this != &other) adopt(other.release());
  return *this;
}

TraceFileLock::~TraceFileLock() {
  if (fd_ >= 0) ::close(fd_);
}

int TraceFileLock::release() noexcept {
  const int fd = fd_;
  fd_ = -1;
  return fd;
}

int TraceFileLock::lock_replacement(const std::string& replacement) noexcept {
  const int fd = ::open(replacement.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (try_lock(fd) == LockOutcome::held) {  // no one else knows its name: defensive
    ::close(fd);
    return -1;
  }
  return fd;
}

void TraceFileLock::adopt(int fd) noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

void TraceFileLock::close_in_fork_child() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

// --- the claim -----------------------------------------------------------------

std::string BesideTrace::line(const std::string& written_path) const {
  std::string line = "skein: " + held_path + " is being written by another process";
  if (holder_pid > 0) line += " (pid " + std::to_string(holder_pid) + ")";
  return line + "; this process (pid " + std::to_string(static_cast<long>(getpid())) + ") writes its trace beside it, to " +
         written_path + "\n";
}

Result<ClaimedTracePath> claim_trace_path(const std::string& path, bool through_link) {
  long holder = 0;
  int fd = open_locked(path, through_link, holder);
  if (fd >= 0) return ClaimedTracePath{path, TraceFileLock(fd), std::nullopt};
  if (errno != EWOULDBLOCK) return open_failure(path);
  const std::string beside = beside_path(path, static_cast<long>(getpid()));
  long beside_holder = 0;
  fd = open_locked(beside, false, beside_holder);
  if (fd >= 0) return ClaimedTracePath{beside, TraceFileLock(fd), BesideTrace{path, holder}};
  if (errno == EWOULDBLOCK)
    return file_error(path, "is being written by another process, and so is " + beside + ", the name beside it");
  return open_failure(beside);
}

std::string beside_path(const std::string& path, long pid) {
  const std::size_t slash = path.rfind('/');
  const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
  std::size_t end = path.size();
  if (end - name > 3 && path.ends_with(".gz")) end -= 3;
  // The last extension, unless the name starts with its dot or has none.
  std::size_t dot = end > name ? path.rfind('.', end - 1) : std::string::npos;
  if (dot == std::string::npos || dot <= name) dot = end;
  return path.substr(0, dot) + "." + std::to_string(pid) + path.substr(dot);
}

}  // namespace skein::capture
