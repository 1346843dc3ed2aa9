// trace_database.cpp — open() opens the file and runs the schema check and
// meta's time check, and keeps the file's identity. reader() opens a
// connection, compares the file's identity with the first one's and checks
// it as open() did. begin_write() takes the writer lock, opens for update,
// begins IMMEDIATE (so no other process's writer comes between), then
// compares identities: the lock taken first, the identity compared inside
// the transaction, so the file written is the one opened.
#include "recorder/store/trace_database.hpp"

#include <utility>

#include "recorder/store/store_schema.hpp"
#include "recorder/store/store_value_check.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {
namespace {

// The checks every connection passes before it reads (invariant 2).
Status check_connection(SqliteDatabase& db) {
  if (Status s = check_store_schema(db); !s.ok()) return s;
  return check_meta_times(db);
}

}  // namespace

Result<TraceStore> TraceDatabase::open(const std::string& path) {
  auto db = SqliteDatabase::open_untrusted(path);
  if (!db) return db.error();
  auto file = db.value().file_identity();
  if (!file) return file.error();
  if (Status s = check_connection(db.value()); !s.ok()) return s.error();
  auto owner = std::make_shared<TraceDatabase>(path, file.value());
  return TraceStore(std::move(db).value(), std::move(owner));
}

Status TraceDatabase::still_the_same_file(const DatabaseFileIdentity& now) const {
  if (now == file_) return {};
  return file_error(path_, "was replaced by another database since it was opened; open it again");
}

Result<TraceStore> TraceDatabase::reader() {
  auto db = SqliteDatabase::open_untrusted(path_);
  if (!db) return db.error();
  auto now = db.value().file_identity();
  if (!now) return now.error();
  if (Status s = still_the_same_file(now.value()); !s.ok()) return s.error();
  if (Status s = check_connection(db.value()); !s.ok()) return s.error();
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

DatabaseWrite::DatabaseWrite(DatabaseWrite&& other) noexcept
    : owner_(std::move(other.owner_)), lock_(std::move(other.lock_)), db_(std::move(other.db_)),
      ended_(std::exchange(other.ended_, true)) {}

DatabaseWrite::~DatabaseWrite() {
  if (!ended_) (void)db_.exec("ROLLBACK");
}

Status DatabaseWrite::commit() {
  ended_ = true;
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
  return db_.close();
}

}  // namespace skein
