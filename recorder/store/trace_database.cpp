// trace_database.cpp — open() stamps the file, opens it, runs the schema and
// value checks, and stamps it again: a file that changed while it was being
// checked is checked again (a few times, then refused), so the stamp kept
// is that of the content checked. reader() opens a connection, compares
// the file's identity with the first one's, and runs the value check only
// when the stamp differs from the one kept. begin_write() takes the writer
// lock, opens for update, begins IMMEDIATE (so no other process's writer
// comes between), then compares identities: the lock taken first, the
// identity compared inside the transaction, so the file written is the one
// checked.
#include "recorder/store/trace_database.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "recorder/store/store_schema.hpp"
#include "recorder/store/store_value_check.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {
namespace {

// Rounds of "check, then find the file changed meanwhile" before giving up.
constexpr int kCheckRounds = 3;

std::int64_t nanoseconds(const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec; }

}  // namespace

Result<CheckedContent> TraceDatabase::stamp_of(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return file_error(path, std::string("cannot open the database: ") + std::strerror(errno));
  struct stat st {};
  unsigned char header[28] = {};
  const bool stated = ::fstat(fd, &st) == 0;
  const int stat_errno = errno;
  // A file shorter than the header has no counter: zeros, as SQLite reads it.
  const bool read = stated && ::pread(fd, header, sizeof header, 0) >= 0;
  const int read_errno = errno;
  ::close(fd);
  if (!stated) return file_error(path, std::string("cannot stat the database: ") + std::strerror(stat_errno));
  if (!read) return file_error(path, std::string("cannot read the database: ") + std::strerror(read_errno));
  CheckedContent c;
  c.file = DatabaseFileIdentity{st.st_dev, st.st_ino};
  c.size = st.st_size;
  c.modified_ns = nanoseconds(st.st_mtim);
  c.change_counter = (std::uint32_t{header[24]} << 24) | (std::uint32_t{header[25]} << 16) |
                     (std::uint32_t{header[26]} << 8) | std::uint32_t{header[27]};
  struct stat wal {};
  if (::stat((path + "-wal").c_str(), &wal) == 0) {
    c.wal_size = wal.st_size;
    c.wal_modified_ns = nanoseconds(wal.st_mtim);
  }
  return c;
}

std::uint64_t TraceDatabase::value_checks() const {
  std::lock_guard lock(mutex_);
  return value_checks_;
}

Result<TraceStore> TraceDatabase::open_written(const std::string& path, const CheckedContent& written) {
  auto db = SqliteDatabase::open_untrusted(path);
  if (!db) return db.error();
  auto now = stamp_of(path);
  if (!now) return now.error();
  if (now.value() != written) return open(path);
  if (Status s = check_store_schema(db.value()); !s.ok()) return s.error();
  auto owner = std::make_shared<TraceDatabase>(path, written);
  owner->value_checks_ = 0;
  return TraceStore(std::move(db).value(), std::move(owner));
}

Result<TraceStore> TraceDatabase::open(const std::string& path) {
  for (int round = 0;; ++round) {
    auto db = SqliteDatabase::open_untrusted(path);
    if (!db) return db.error();
    auto before = stamp_of(path);
    if (!before) return before.error();
    if (Status s = check_store_schema(db.value()); !s.ok()) return s.error();
    if (Status s = check_store_values(db.value()); !s.ok()) return s.error();
    auto after = stamp_of(path);
    if (!after) return after.error();
    if (before.value() == after.value()) {
      auto owner = std::make_shared<TraceDatabase>(path, after.value());
      return TraceStore(std::move(db).value(), std::move(owner));
    }
    if (round + 1 == kCheckRounds)
      return file_error(path, "changed on every one of " + std::to_string(kCheckRounds) +
                                  " readings while it was being checked; it is not read");
  }
}

Status TraceDatabase::still_the_same_file(const DatabaseFileIdentity& now) const {
  if (now == file_) return {};
  return file_error(path_, "was replaced by another database since it was opened; open it again");
}

Result<TraceStore> TraceDatabase::reader() {
  auto db = SqliteDatabase::open_untrusted(path_);
  if (!db) return db.error();
  auto now = stamp_of(path_);
  if (!now) return now.error();
  if (Status s = still_the_same_file(now.value().file); !s.ok()) return s.error();
  // The schema check reads only sqlite_schema and a few pragmas: cheap, and
  // it sets up nothing the value check relies on, so it always runs.
  if (Status s = check_store_schema(db.value()); !s.ok()) return s.error();
  bool checked = false;
  {
    std::lock_guard lock(mutex_);
    checked = now.value() == checked_;
  }
  if (!checked) {
    {
      std::lock_guard lock(mutex_);
      ++value_checks_;
    }
    if (Status s = check_store_values(db.value()); !s.ok()) return s.error();
    auto after = stamp_of(path_);
    if (!after) return after.error();
    if (after.value() == now.value()) written(now.value());
  }
  return TraceStore(std::move(db).value(), shared_from_this());
}

Result<DatabaseWrite> TraceDatabase::begin_write(WriteDurability durability) {
  std::unique_lock lock(writer_);
  auto db = SqliteDatabase::open_for_update(path_);
  if (!db) return db.error();
  if (durability == WriteDurability::rebuildable) {
    if (Status s = db.value().exec("PRAGMA synchronous = OFF"); !s.ok()) return s.error();
  }
  if (Status s = db.value().exec("BEGIN IMMEDIATE"); !s.ok()) return s.error();
  auto now = db.value().file_identity();
  if (!now) return now.error();
  if (Status s = still_the_same_file(now.value()); !s.ok()) {
    (void)db.value().exec("ROLLBACK");
    return s.error();
  }
  return DatabaseWrite(shared_from_this(), std::move(lock), std::move(db).value());
}

void TraceDatabase::written(const CheckedContent& now) {
  std::lock_guard lock(mutex_);
  // The identity never changes (invariant 1): only the content's stamp.
  checked_.size = now.size;
  checked_.modified_ns = now.modified_ns;
  checked_.change_counter = now.change_counter;
  checked_.wal_size = now.wal_size;
  checked_.wal_modified_ns = now.wal_modified_ns;
}

DatabaseWrite::DatabaseWrite(DatabaseWrite&& other) noexcept
    : owner_(std::move(other.owner_)), lock_(std::move(other.lock_)), db_(std::move(other.db_)),
      ended_(std::exchange(other.ended_, true)) {}

DatabaseWrite::~DatabaseWrite() {
  if (!ended_) (void)db_.exec("ROLLBACK");
}

Status DatabaseWrite::commit() {
  ended_ = true;
  // The owner learns the new content as checked only when the file was
  // still the content it checked just before the commit: BEGIN IMMEDIATE
  // keeps every other writer out from then on, so the change the commit
  // makes is this write's alone. Any other difference (another process
  // wrote before this transaction began, or SQLite spilled pages early)
  // leaves the old stamp, and the next reader checks the values again.
  auto before = TraceDatabase::stamp_of(owner_->path_);
  bool unchanged = false;
  if (before) {
    std::lock_guard lock(owner_->mutex_);
    unchanged = before.value() == owner_->checked_;
  }
  // The writer lock is let go on every path out, once the connection is
  // closed: the next writer may begin at once.
  struct Unlock {
    std::unique_lock<std::mutex>& lock;
    ~Unlock() {
      if (lock.owns_lock()) lock.unlock();
    }
  } unlock{lock_};
  if (Status s = db_.exec("COMMIT"); !s.ok()) {
    (void)db_.exec("ROLLBACK");
    (void)db_.close();
    return s;
  }
  if (Status s = db_.close(); !s.ok()) return s;
  if (unchanged)
    if (auto after = TraceDatabase::stamp_of(owner_->path_); after && after.value().file == owner_->file_)
      owner_->written(after.value());
  return {};
}

}  // namespace skein
