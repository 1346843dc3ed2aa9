// database_replacement.cpp — begin() opens the old TARGET O_NOFOLLOW (a
// missing or unreadable one, EACCES, gets no lock and its journals are
// removed unguarded), then retries a non-blocking read lock on PENDING and
// RESERVED every 10 ms for 2 s. The -shm check asks F_GETLK whether a write
// lock on the dead-man-switch byte would conflict, i.e. whether anyone holds
// it. Locks are tried as OFD locks, falling back to classic ones on EINVAL;
// the lock is dropped by closing the descriptor.
#include "recorder/output/database_replacement.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <thread>
#include <utility>

#include "recorder/output/output_node.hpp"

namespace skein {
namespace {

// SQLite's lock bytes (os_unix.c, unchanged since 3.0): PENDING_BYTE, then
// RESERVED_BYTE; and UNIX_SHM_DMS, the dead-man switch of the -shm file.
constexpr off_t kPendingByte = 0x40000000;
constexpr off_t kReservedAndPendingBytes = 2;
constexpr off_t kShmDeadManSwitch = 128;
constexpr auto kWriterPatience = std::chrono::seconds(2);
constexpr auto kWriterPoll = std::chrono::milliseconds(10);

constexpr const char* kJournalSuffixes[] = {"-journal", "-wal", "-shm"};

struct flock lock_range(short type, off_t start, off_t length) {
  struct flock l {};
  l.l_type = type;
  l.l_whence = SEEK_SET;
  l.l_start = start;
  l.l_len = length;
  l.l_pid = 0;  // required by the OFD commands
  return l;
}

// fcntl with the open-file-description form of `command`, falling back to
// the classic one where the kernel has no OFD locks.
int lock_control(int fd, bool query, struct flock& l) {
  const int rc = fcntl(fd, query ? F_OFD_GETLK : F_OFD_SETLK, &l);
  if (rc == 0 || errno != EINVAL) return rc;
  l.l_pid = 0;
  return fcntl(fd, query ? F_GETLK : F_SETLK, &l);
}

// Who holds a lock that conflicts with `type` on the range: nullopt when no
// one; the pid, or -1 for a holder of an OFD lock (which has none).
std::optional<pid_t> lock_holder(int fd, short type, off_t start, off_t length) {
  struct flock l = lock_range(type, start, length);
  if (lock_control(fd, true, l) != 0 || l.l_type == F_UNLCK) return std::nullopt;
  return l.l_pid;
}

std::string process_named(pid_t pid) {
  return pid > 0 ? "process " + std::to_string(pid) : "another process";
}

// Opens `path` to read, not following a final symlink, without blocking on
// a FIFO; -1 with errno set when there is no regular file to open.
int open_regular(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EINVAL;
    return -1;
  }
  return fd;
}

}  // namespace

Result<DatabaseReplacement> DatabaseReplacement::begin(const std::string& target) {
  const int fd = open(target.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ELOOP) return output_node_changed(target, OutputNodeKind::symbolic_link);
  // ENOENT: nothing to lock. EACCES: the old file's locks cannot be looked
  // at without reading it; its journals are removed unguarded (the rename
  // would leave them beside the new file otherwise).
  if (fd < 0 && errno != ENOENT && errno != EACCES)
    return file_error(target, std::string("cannot open the database it replaces: ") + std::strerror(errno));
  DatabaseReplacement replacement(target, fd);
  if (fd >= 0) {
    struct stat st {};
    if (fstat(fd, &st) != 0)
      return file_error(target, std::string("cannot stat the database it replaces: ") + std::strerror(errno));
    if (!S_ISREG(st.st_mode)) return output_node_changed(target, output_node_kind(st.st_mode));
    const auto give_up_at = std::chrono::steady_clock::now() + kWriterPatience;
    for (;;) {
      struct flock l = lock_range(F_RDLCK, kPendingByte, kReservedAndPendingBytes);
      if (lock_control(fd, false, l) == 0) break;
      if (errno != EAGAIN && errno != EACCES)
        return file_error(target, std::string("cannot lock the database it replaces: ") + std::strerror(errno));
      if (std::chrono::steady_clock::now() >= give_up_at) {
        const auto writer = lock_holder(fd, F_RDLCK, kPendingByte, kReservedAndPendingBytes);
        return file_error(target, "is being written by " + process_named(writer.value_or(-1)) +
                                      " (it holds SQLite's write lock); not replaced");
      }
      std::this_thread::sleep_for(kWriterPoll);
    }
  }
  const std::string shm = target + "-shm";
  if (const int shm_fd = open_regular(shm); shm_fd >= 0) {
    const auto user = lock_holder(shm_fd, F_WRLCK, kShmDeadManSwitch, 1);
    close(shm_fd);
    if (user)
      return file_error(target, "is open in WAL mode by " + process_named(*user) + " (" + shm +
                                    " is in use); not replaced");
  }
  return replacement;
}

DatabaseReplacement::DatabaseReplacement(DatabaseReplacement&& other) noexcept
    : target_(std::move(other.target_)), locked_fd_(std::exchange(other.locked_fd_, -1)) {}

DatabaseReplacement& DatabaseReplacement::operator=(DatabaseReplacement&& other) noexcept {
  if (this != &other) {
    if (locked_fd_ >= 0) close(locked_fd_);
    target_ = std::move(other.target_);
    locked_fd_ = std::exchange(other.locked_fd_, -1);
  }
  return *this;
}

DatabaseReplacement::~DatabaseReplacement() {
  if (locked_fd_ >= 0) close(locked_fd_);
}

Status DatabaseReplacement::remove_stale_journals() const {
  for (const char* suffix : kJournalSuffixes) {
    const std::string journal = target_ + suffix;
    if (unlink(journal.c_str()) != 0 && errno != ENOENT)
      return file_error(target_, "cannot remove its stale " + journal + ": " + std::strerror(errno));
  }
  return {};
}

}  // namespace skein
