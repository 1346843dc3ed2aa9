// pending_file.cpp — see pending_file.hpp.
#include "recorder/pending_file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
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

extern "C" void remove_pending_and_die(int sig) {
  for (Slot& s : g_slots)
    if (s.used.load(std::memory_order_acquire)) unlink(s.path);
  signal(sig, SIG_DFL);
  raise(sig);
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Removes TARGET.tmp-PID files whose process is gone.
void remove_stale(const std::string& target) {
  const std::string dir = directory_of(target);
  const auto slash = target.rfind('/');
  const std::string prefix = (slash == std::string::npos ? target : target.substr(slash + 1)) + ".tmp-";
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (const dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = name.substr(prefix.size());
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    if (pid == getpid()) continue;
    if (kill(pid, 0) != 0 && errno == ESRCH) unlink((dir + "/" + name).c_str());
  }
  closedir(d);
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

}  // namespace

Result<PendingFile> PendingFile::create(const std::string& target) {
  remove_stale(target);
  std::string temp = target + ".tmp-" + std::to_string(getpid());
  // A leftover of this very process (an earlier import to the same target
  // that failed to clean up) is ours to replace.
  if (unlink(temp.c_str()) != 0 && errno != ENOENT)
    return file_error(temp, std::string("cannot remove the old temporary file: ") + std::strerror(errno));
  const int slot = take_slot(temp);
  return PendingFile(target, std::move(temp), slot);
}

PendingFile::PendingFile(std::string target, std::string temp, int slot)
    : target_(std::move(target)), temp_(std::move(temp)), slot_(slot) {}

PendingFile::PendingFile(PendingFile&& other) noexcept
    : target_(std::move(other.target_)),
      temp_(std::move(other.temp_)),
      slot_(std::exchange(other.slot_, -1)),
      done_(std::exchange(other.done_, true)) {}

PendingFile& PendingFile::operator=(PendingFile&& other) noexcept {
  if (this != &other) {
    discard();
    target_ = std::move(other.target_);
    temp_ = std::move(other.temp_);
    slot_ = std::exchange(other.slot_, -1);
    done_ = std::exchange(other.done_, true);
  }
  return *this;
}

PendingFile::~PendingFile() { discard(); }

Status PendingFile::commit(bool sync) {
  if (done_) return file_error(target_, "the pending file was already committed or discarded");
  if (sync)
    if (Status s = sync_path(temp_, O_RDONLY); !s.ok()) return s;
  if (rename(temp_.c_str(), target_.c_str()) != 0)
    return file_error(target_, "cannot rename " + temp_ + " to it: " + std::strerror(errno));
  done_ = true;
  release_slot(std::exchange(slot_, -1));
  if (sync)
    if (Status s = sync_path(directory_of(target_), O_RDONLY | O_DIRECTORY); !s.ok()) return s;
  return {};
}

void PendingFile::discard() {
  if (done_) return;
  done_ = true;
  unlink(temp_.c_str());
  release_slot(std::exchange(slot_, -1));
}

void remove_pending_files_on_signals() {
  struct sigaction action {};
  action.sa_handler = remove_pending_and_die;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &action, nullptr);
}

}  // namespace skein
