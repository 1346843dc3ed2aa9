// capture_output.cpp — opening the trace target by what lstat finds (a
// regular file claimed first, trace_path_claim.hpp), and a descriptor sink
// that never raises or blocks on the program's behalf.
// FIFOs are opened O_NONBLOCK, re-checked with fstat, then set blocking; a
// link is opened O_NONBLOCK too, in case it has become a FIFO since. The
// crash-path calls make only plain system calls on paths formed at start;
// in crash mode a non-regular descriptor gets PIPE_BUF bytes per write after
// a poll of at most kCrashPatienceMs. EPIPE marks reader_gone();
// CrashSigpipeGuard discards its own SIGPIPE by setting SIG_IGN for an instant.
#include "recorder/capture/capture_output.hpp"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "recorder/output/output_node.hpp"
#include "recorder/output/pending_file.hpp"

namespace skein::capture {
namespace {

bool gzip_by_name(const std::string& path) { return path.size() > 3 && path.ends_with(".gz"); }

// Waits for `fd` to take bytes: at most `timeout_ms` (-1: as long as it
// takes). False when it did not.
bool wait_writable(int fd, int timeout_ms) noexcept {
  for (;;) {
    pollfd p{fd, POLLOUT, 0};
    const int r = poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR) continue;
    return r > 0;  // POLLERR or POLLHUP too: the write then says what is wrong
  }
}

Diagnostic open_failure(const std::string& path, const char* what) {
  return file_error(path, std::string(what) + std::strerror(errno));
}

}  // namespace

// --- the descriptor sink ----------------------------------------------------

CaptureFdSink::~CaptureFdSink() {
  if (owned_ && fd_ >= 0) ::close(fd_);
}

void CaptureFdSink::close_in_fork_child() noexcept {
  if (owned_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void CaptureFdSink::attach(int fd, bool owned) noexcept {
  struct stat st {};
  regular_ = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  owned_ = owned;
  fd_ = fd;
}

Status CaptureFdSink::write(std::string_view bytes) {
  int error = 0;
  while (!bytes.empty() && fd_ >= 0 && !failed_ && !reader_gone()) {
    std::size_t n = bytes.size();
    if (crash_ && !regular_) {
      // A pipe's POLLOUT promises room for PIPE_BUF bytes: a piece that
      // size is taken without waiting.
      if (!wait_writable(fd_, kCrashPatienceMs)) {
        failed_ = true;
        break;
      }
      if (n > PIPE_BUF) n = PIPE_BUF;
    }
    const ssize_t written = ::write(fd_, bytes.data(), n);
    if (written >= 0) {
      bytes.remove_prefix(static_cast<std::size_t>(written));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      // Standard output that another process made non-blocking.
      if (wait_writable(fd_, crash_ ? kCrashPatienceMs : -1)) continue;
      failed_ = true;
      break;
    }
    if (errno == EPIPE) {
      reader_gone_.store(true, std::memory_order_release);
      break;
    }
    error = errno;
    failed_ = true;
  }
  if (crash_) return {};  // invariant 3: nothing to report to, and no allocation
  if (reader_gone()) return file_error(name_, "trace output closed (EPIPE)");
  if (failed_) return file_error(name_, std::string("write failed: ") + std::strerror(error != 0 ? error : EIO));
  return {};
}

Status CaptureFdSink::close() {
  if (owned_ && fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (crash_) return {};
  if (reader_gone()) return file_error(name_, "trace output closed (EPIPE)");
  return {};
}

// --- stream mode -------------------------------------------------------------

int open_fifo_for_writing(const char* path, bool follow) noexcept {
  const int fd = ::open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
  if (fd < 0) return -1;
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    // Replaced by something else since it was looked at: not ours to write.
    ::close(fd);
    errno = EINVAL;
    return -1;
  }
  const int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

namespace {

// A regular file (or, `through_link`, a link to one) claimed, then
// truncated: the lock is held by now (trace_path_claim.hpp, invariant 1).
Status claim_stream_file(const std::string& path, bool through_link, StreamTarget& target) {
  auto claimed = claim_trace_path(path, through_link);
  if (!claimed) return claimed.error();
  ClaimedTracePath& claim = claimed.value();
  if (ftruncate(claim.lock.fd(), 0) != 0) return open_failure(claim.path, "cannot truncate: ");
  target.path = claim.path;
  target.beside = std::move(claim.beside);
  target.fd = claim.lock.release();
  target.regular = true;
  return {};
}

}  // namespace

Result<StreamTarget> open_stream_target(const std::string& path) {
  StreamTarget target;
  target.path = path;
  if (path == "-") {
    struct stat st {};
    target.fd = STDOUT_FILENO;
    target.owned = false;
    target.regular = fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode);
    return target;
  }
  auto inspected = inspect_output_node(path);
  if (!inspected) return inspected.error();
  const OutputNodeKind kind = inspected.value().kind;
  bool fifo = kind == OutputNodeKind::fifo;
  switch (kind) {
    case OutputNodeKind::absent:
    case OutputNodeKind::regular_file:
      if (Status s = claim_stream_file(path, false, target); !s.ok()) return s.error();
      return target;
    case OutputNodeKind::character_device:
    case OutputNodeKind::block_device:
      target.fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
      if (target.fd < 0) return open_failure(path, "cannot open the device to write: ");
      return target;
    case OutputNodeKind::symbolic_link: {
      struct stat pointed {};
      if (stat(path.c_str(), &pointed) != 0)
        return open_failure(path, "is a symbolic link, and what it points to cannot be opened to write: ");
      if (S_ISDIR(pointed.st_mode) || S_ISSOCK(pointed.st_mode))
        return file_error(path, "is a symbolic link to a folder or a socket, which cannot be written as a trace");
      if (S_ISFIFO(pointed.st_mode)) {
        fifo = true;
        target.follow = true;
        break;
      }
      if (S_ISREG(pointed.st_mode)) {
        if (Status s = claim_stream_file(path, true, target); !s.ok()) return s.error();
        return target;
      }
      // O_NONBLOCK: what it points to may have turned into a FIFO since.
      target.fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
      if (target.fd < 0)
        return open_failure(path, "is a symbolic link, and what it points to cannot be opened to write: ");
      const int flags = fcntl(target.fd, F_GETFL);
      if (flags >= 0) (void)fcntl(target.fd, F_SETFL, flags & ~O_NONBLOCK);
      target.regular = S_ISREG(pointed.st_mode);
      return target;
    }
    case OutputNodeKind::fifo: break;
    case OutputNodeKind::directory:
    case OutputNodeKind::socket:
    case OutputNodeKind::unknown:
      return file_error(path, "is " + std::string(describe_output_node(kind)) + ", which cannot be written as a trace");
  }
  if (!fifo) return file_error(path, "cannot be written as a trace");
  target.fd = open_fifo_for_writing(path.c_str(), target.follow);
  if (target.fd >= 0) return target;
  if (errno != ENXIO) return open_failure(path, "cannot open the FIFO to write: ");
  target.awaiting_reader = true;
  return target;
}

// --- ring mode ---------------------------------------------------------------

namespace {

// PATH is a FIFO, or a link to one (then `follow`).
bool names_fifo(const std::string& path, bool& follow) {
  follow = false;
  if (path == "-") return false;
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return false;
  if (S_ISFIFO(st.st_mode)) return true;
  if (S_ISLNK(st.st_mode) && stat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode)) {
    follow = true;
    return true;
  }
  return false;
}

}  // namespace

Result<ClaimedTracePath> claim_ring_target(const std::string& path) {
  ClaimedTracePath unclaimed{path, TraceFileLock(), std::nullopt};
  if (path == "-") return unclaimed;
  bool follow = false;
  if (names_fifo(path, follow)) return unclaimed;  // its reader is looked for at each write
  struct stat st {};
  const bool exists = lstat(path.c_str(), &st) == 0;
  if (exists && S_ISLNK(st.st_mode)) {
    // Opened without truncating: the file it points to keeps its contents
    // until a whole trace is written.
    if (stat(path.c_str(), &st) != 0)
      return open_failure(path, "is a symbolic link, and what it points to cannot be opened to write: ");
    if (S_ISDIR(st.st_mode) || S_ISSOCK(st.st_mode))
      return file_error(path, "is a symbolic link to a folder or a socket, which cannot be written as a trace");
    if (S_ISREG(st.st_mode)) return claim_trace_path(path, true);
    const int fd = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return open_failure(path, "is a symbolic link, and what it points to cannot be opened to write: ");
    ::close(fd);
    return unclaimed;
  }
  ClaimedTracePath claimed = std::move(unclaimed);
  if (!exists || S_ISREG(st.st_mode)) {
    auto claim = claim_trace_path(path, false);
    if (!claim) return claim.error();
    claimed = std::move(claim).value();
  }
  // A replacement made and discarded (the file untouched), or the device
  // opened: proof that a trace can be written there later.
  auto file = OutputFile::open_stream(claimed.path);
  if (!file) {
    if (!exists) (void)unlink(claimed.path.c_str());  // the empty file the claim made, while still locked
    return file.error();
  }
  return claimed;
}

Status RingTarget::commit(TraceFileLock& lock) {
  if (!file) return {};
  const int next =
      lock.fd() >= 0 && file->writing() == OutputWriting::replace
          ? TraceFileLock::lock_replacement(replacement_path(file->target()))
          : -1;
  Status committed = file->commit(false);
  if (next >= 0) {
    if (committed.ok()) lock.adopt(next);
    else ::close(next);
  }
  return committed;
}

Result<RingTarget> open_ring_target(const std::string& path) {
  RingTarget target;
  if (path == "-") {
    // CaptureFdSink: a reader gone reads as such (reader_gone), as in
    // stream mode.
    auto sink = std::make_unique<CaptureFdSink>("<stdout>");
    sink->attach(STDOUT_FILENO, false);
    target.sink = std::move(sink);
    return target;
  }
  bool follow = false;
  if (names_fifo(path, follow)) {
    const int fd = open_fifo_for_writing(path.c_str(), follow);
    if (fd < 0) {
      if (errno == ENXIO) {
        target.no_reader = true;
        return target;
      }
      return open_failure(path, "cannot open the FIFO to write: ");
    }
    auto sink = std::make_unique<CaptureFdSink>(path);
    sink->attach(fd, true);
    target.sink = std::move(sink);
    if (gzip_by_name(path)) target.sink = gzip_output(std::move(target.sink), path);
    return target;
  }
  auto file = OutputFile::open_stream(path);
  if (!file) return file.error();
  auto sink = file.value().take_sink();
  if (!sink) return sink.error();
  target.sink = std::move(sink).value();
  target.file.emplace(std::move(file).value());
  return target;
}

std::string replacement_path(const std::string& path) { return PendingFile::temp_path_for(path); }

CrashRingPaths crash_ring_paths(const std::string& path) { return CrashRingPaths{path, replacement_path(path)}; }

int open_crash_ring_target(const CrashRingPaths& paths, bool& rename_after) noexcept {
  rename_after = false;
  if (paths.target == "-") return fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  const char* target = paths.target.c_str();
  struct stat st {};
  if (lstat(target, &st) == 0) {
    if (S_ISLNK(st.st_mode)) {
      if (stat(target, &st) == 0 && S_ISFIFO(st.st_mode)) return open_fifo_for_writing(target, true);
      return ::open(target, O_WRONLY | O_TRUNC | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    }
    if (S_ISFIFO(st.st_mode)) return open_fifo_for_writing(target, false);
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
      return ::open(target, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (!S_ISREG(st.st_mode)) return -1;
  } else if (errno != ENOENT) {
    return -1;
  }
  // A snapshot the writer thread was making under the same name is given
  // up: its rename checks that the name still holds its own file.
  (void)unlink(paths.temp.c_str());
  const int fd = ::open(paths.temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  rename_after = fd >= 0;
  return fd;
}

void finish_crash_ring_target(const CrashRingPaths& paths, bool rename_after) noexcept {
  if (!rename_after) return;
  struct stat st {};
  const bool replaceable = lstat(paths.target.c_str(), &st) == 0 ? S_ISREG(st.st_mode) : errno == ENOENT;
  if (!replaceable || rename(paths.temp.c_str(), paths.target.c_str()) != 0) (void)unlink(paths.temp.c_str());
}

// --- signals -------------------------------------------------------------------

CrashSigpipeGuard::CrashSigpipeGuard() noexcept {
  sigset_t pipe_only;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &saved_mask_);
  sigset_t pending;
  sigemptyset(&pending);
  was_pending_ = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1;
}

CrashSigpipeGuard::~CrashSigpipeGuard() {
  sigset_t pending;
  sigemptyset(&pending);
  if (!was_pending_ && sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) == 1) {
    // Ignoring a pending signal discards it (POSIX, sigaction); the
    // disposition is put back at once.
    struct sigaction ignore {};
    struct sigaction previous {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    if (sigaction(SIGPIPE, &ignore, &previous) == 0) sigaction(SIGPIPE, &previous, nullptr);
  }
  pthread_sigmask(SIG_SETMASK, &saved_mask_, nullptr);
}

sigset_t writer_thread_signal_mask() noexcept {
  sigset_t mask;
  sigfillset(&mask);
  for (const int fault : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS}) sigdelset(&mask, fault);
  return mask;
}

}  // namespace skein::capture
