// pending_file.cpp — the signal handlers see pending files through 16
// fixed slots of path bytes: a slot is claimed by CAS, its path written,
// then `used` is published (release), so the handler (unlink, then SIG_DFL
// and raise) reads without locks or allocation. The slot is released before
// the rename, since the temporary name may then hold the old target. The
// rename tries renameat2 (NOREPLACE onto nothing, EXCHANGE onto a file, the
// swapped-out node checked and swapped back if not a regular file) up to
// three times, or lstat then rename(2) where the flags are unsupported.
// create() tries O_EXCL first and removes a leftover of its own process
// only when that reports EEXIST, so a failure is reported as the creation's.
#include "recorder/output/pending_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

namespace skein {
namespace {

// The signal handlers' view of the pending files: fixed slots, so that a
// handler reads them without locks or allocation. A thread claims a slot
// (`claimed`), writes its path, then publishes it (`used`, release); the
// handler reads a path only after seeing `used` set (acquire).
constexpr std::size_t kSlots = 16;
constexpr std::size_t kPathBytes = 4096;
struct Slot {
  std::atomic<bool> claimed{false};
  std::atomic<bool> used{false};
  char path[kPathBytes] = {};
};
std::array<Slot, kSlots> g_slots;

// A slot for `path`, or -1 when all are taken (the file then is not removed
// by a signal, only by its owner).
int take_slot(const std::string& path) {
  if (path.size() >= kPathBytes) return -1;
  for (std::size_t i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (!g_slots[i].claimed.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].used.store(true, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}

void release_slot(int slot) {
  if (slot < 0) return;
  Slot& s = g_slots[static_cast<std::size_t>(slot)];
  s.used.store(false, std::memory_order_release);
  s.claimed.store(false, std::memory_order_release);
}

void unlink_pending_files() {
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) unlink(s.path);
}

extern "C" void remove_pending_and_die(int sig) {
  unlink_pending_files();
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The name of `target`'s temporary files without the pid: the target's own
// name when `NAME.tmp-` and a pid of kPidDigits fit the folder's NAME_MAX;
// otherwise the longest prefix of it that ends on a whole UTF-8 character,
// `~` and 8 hex digits of the whole name's FNV-1a hash (pending_file.hpp,
// invariant 4). It depends on the name alone, so every process finds the
// leftovers of the others.
constexpr std::string_view kTemporaryInfix = ".tmp-";
constexpr std::size_t kPidDigits = 10;  // a pid_t's largest value, 2^31 - 1
constexpr std::size_t kHashDigits = 8;

std::size_t name_max_in(const std::string& dir) {
  const long n = pathconf(dir.c_str(), _PC_NAME_MAX);
  return n > 0 ? static_cast<std::size_t>(n) : std::size_t{NAME_MAX};
}

std::string temporary_stem(const std::string& name, std::size_t name_max) {
  const std::size_t room = name_max > kTemporaryInfix.size() + kPidDigits
                               ? name_max - kTemporaryInfix.size() - kPidDigits
                               : 0;
  if (name.size() <= room) return name;
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : name) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  std::size_t keep = room > kHashDigits + 1 ? room - kHashDigits - 1 : 0;
  // Not in the middle of a character: back off continuation bytes.
  while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  char digits[kHashDigits + 1];
  std::snprintf(digits, sizeof digits, "%08llx", static_cast<unsigned long long>(hash & 0xffffffffull));
  return name.substr(0, keep) + "~" + digits;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// `target`'s folder as a prefix to put a name after ("" for the current one).
std::string folder_prefix(const std::string& target) {
  const auto slash = target.rfind('/');
  return slash == std::string::npos ? std::string() : target.substr(0, slash + 1);
}

std::string temporary_prefix(const std::string& target) {
  return temporary_stem(base_name(target), name_max_in(directory_of(target))) + std::string(kTemporaryInfix);
}

// Removes the temporary files of `target` whose process N is gone
// (pending_file.hpp, invariant 3).
void remove_leftovers_of_dead_processes(const std::string& target) {
  const std::string dir = directory_of(target);
  const std::string prefix = temporary_prefix(target);
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid <= 0 || pid == getpid()) continue;
    if (kill(pid, 0) != 0 && errno == ESRCH) unlink((dir + "/" + name).c_str());
  }
  closedir(d);
}

int create_exclusively(const std::string& path) {
  return open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

Status sync_path(const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) return file_error(path, std::string("cannot open to sync: ") + std::strerror(errno));
  const int rc = fsync(fd);
  const int err = errno;
  close(fd);
  if (rc != 0) return file_error(path, std::string("cannot sync: ") + std::strerror(err));
  return {};
}

// Where renameat2 has no flags (some network and FUSE file systems): the
// check and the rename are two calls (pending_file.hpp, invariant 2).
Status rename_after_lstat(const std::string& temp, const std::string& target) {
  auto now = inspect_output_node(target);
  if (!now) return now.error();
  const OutputNodeKind kind = now.value().kind;
  if (kind != OutputNodeKind::absent && kind != OutputNodeKind::regular_file) return output_node_changed(target, kind);
  if (rename(temp.c_str(), target.c_str()) != 0)
    return file_error(target, "cannot rename " + temp + " to it: " + std::strerror(errno));
  return {};
}

bool renameat2_flags_unsupported() { return errno == EINVAL || errno == ENOSYS; }

// Renames `temp` over `target`, landing only on nothing or on a regular
// file (pending_file.hpp, invariant 2). `temp_holds_other` is set when a
// node that is not ours is left at `temp` (a swap that could not be undone):
// the caller must then not remove `temp`.
Status rename_onto_checked(const std::string& temp, const std::string& target, OutputNodeKind expected,
                           bool& temp_holds_other) {
  // A target that keeps appearing and vanishing makes each attempt switch
  // to the other case; three are enough for anything but a deliberate race.
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (expected == OutputNodeKind::absent) {
      if (renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) == 0) return {};
      if (renameat2_flags_unsupported()) return rename_after_lstat(temp, target);
      if (errno != EEXIST) return file_error(target, "cannot rename " + temp + " to it: " + std::strerror(errno));
      // Something appeared since the check: another writer's regular file
      // is replaced (the last writer wins, as with a plain rename), anything
      // else is left alone.
      auto now = inspect_output_node(target);
      if (!now) return now.error();
      if (now.value().kind != OutputNodeKind::regular_file && now.value().kind != OutputNodeKind::absent)
        return output_node_changed(target, now.value().kind);
      expected = now.value().kind;
      continue;
    }
    if (renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) {
      // `temp` now names what was at `target` a moment ago.
      auto swapped = inspect_output_node(temp);
      if (swapped && swapped.value().kind == OutputNodeKind::regular_file) {
        unlink(temp.c_str());  // the old file; readers that have it open keep it
        return {};
      }
      const OutputNodeKind kind = swapped ? swapped.value().kind : OutputNodeKind::absent;
      if (renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) != 0) {
        temp_holds_other = true;
        return file_error(target, "became " + std::string(describe_output_node(kind)) +
                                      " while it was being written, and could not be put back (" +
                                      std::strerror(errno) + "): it is now at " + temp);
      }
      return output_node_changed(target, kind);
    }
    if (renameat2_flags_unsupported()) return rename_after_lstat(temp, target);
    if (errno != ENOENT) return file_error(target, "cannot rename " + temp + " to it: " + std::strerror(errno));
    expected = OutputNodeKind::absent;  // removed since the check
  }
  return file_error(target, "kept changing while it was being replaced; left as it is");
}

}  // namespace

Result<PendingFile> PendingFile::create(const std::string& target, const OutputNode& checked) {
  if (checked.kind != OutputNodeKind::absent && checked.kind != OutputNodeKind::regular_file)
    return file_error(target, "is " + std::string(describe_output_node(checked.kind)) +
                                  ", which is never replaced");
  remove_leftovers_of_dead_processes(target);
  std::string temp = temp_path_for(target);
  const int slot = take_slot(temp);
  int fd = create_exclusively(temp);
  // A leftover of this very process (an earlier write to the same target
  // that failed to clean up) is ours to replace; nothing else is looked at
  // before the creation, so that its failure is the one reported.
  if (fd < 0 && errno == EEXIST) {
    if (unlink(temp.c_str()) != 0) {
      const int err = errno;
      release_slot(slot);
      return file_error(target, "cannot remove this process's leftover temporary file " + temp + ": " +
                                    std::strerror(err));
    }
    fd = create_exclusively(temp);
  }
  if (fd < 0) {
    const int err = errno;
    release_slot(slot);
    return file_error(target, "cannot create its temporary file " + base_name(temp) + " in the folder " +
                                  directory_of(target) + ": " + std::strerror(err));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    unlink(temp.c_str());
    release_slot(slot);
    return file_error(temp, std::string("cannot stat the temporary file: ") + std::strerror(err));
  }
  const OutputNode temp_node{OutputNodeKind::regular_file, st.st_dev, st.st_ino};
  return PendingFile(target, std::move(temp), checked, temp_node, fd, slot);
}

std::string PendingFile::temp_path_for(const std::string& target) {
  return folder_prefix(target) + temporary_prefix(target) + std::to_string(getpid());
}

PendingFile::PendingFile(std::string target, std::string temp, OutputNode checked, OutputNode temp_node, int fd,
                         int slot)
    : target_(std::move(target)),
      temp_(std::move(temp)),
      checked_(checked),
      temp_node_(temp_node),
      fd_(fd),
      slot_(slot) {}

PendingFile::PendingFile(PendingFile&& other) noexcept
    : target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      checked_(other.checked_),
      temp_node_(other.temp_node_),
      fd_(std::exchange(other.fd_, -1)),
      slot_(std::exchange(other.slot_, -1)),
      done_(std::exchange(other.done_, true)) {}

PendingFile& PendingFile::operator=(PendingFile&& other) noexcept {
  if (this != &other) {
    discard();
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    checked_ = other.checked_;
    temp_node_ = other.temp_node_;
    fd_ = std::exchange(other.fd_, -1);
    slot_ = std::exchange(other.slot_, -1);
    done_ = std::exchange(other.done_, true);
  }
  return *this;
}

PendingFile::~PendingFile() { discard(); }

int PendingFile::take_descriptor() { return std::exchange(fd_, -1); }

Status PendingFile::sync_contents() const {
  if (done_) return file_error(target_, "the pending file was already committed or discarded");
  return sync_path(temp_, O_RDONLY | O_NOFOLLOW);
}

Status PendingFile::rename_over_target(bool sync_directory) {
  if (done_) return file_error(target_, "the pending file was already committed or discarded");
  if (fd_ >= 0) close(std::exchange(fd_, -1));
  // Invariant 1: the temporary name still holds the file create() made.
  auto now = inspect_output_node(temp_);
  if (!now) return now.error();
  if (!now.value().same_node(temp_node_))
    return file_error(target_, "its temporary file " + temp_ + " was replaced meanwhile; not renamed");
  // From here on `temp_` may name the old target (swapped out, then
  // removed): a signal must not unlink it in between, so the handlers stop
  // seeing it. A process killed in that instant leaves a leftover that the
  // next writer of the target removes (invariant 3).
  release_slot(std::exchange(slot_, -1));
  bool temp_holds_other = false;
  Status renamed = rename_onto_checked(temp_, target_, checked_.kind, temp_holds_other);
  if (!renamed.ok()) {
    if (temp_holds_other) done_ = true;  // not ours to remove
    return renamed;
  }
  done_ = true;
  if (sync_directory)
    if (Status s = sync_path(directory_of(target_), O_RDONLY | O_DIRECTORY); !s.ok()) return s;
  return {};
}

Status PendingFile::commit(bool sync) {
  if (sync)
    if (Status s = sync_contents(); !s.ok()) return s;
  return rename_over_target(sync);
}

void PendingFile::discard() {
  if (fd_ >= 0) close(std::exchange(fd_, -1));
  if (done_) return;
  done_ = true;
  unlink(temp_.c_str());
  release_slot(std::exchange(slot_, -1));
}

void remove_pending_files_now() { unlink_pending_files(); }

void remove_pending_files_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_pending_and_die;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

}  // namespace skein
