// trace_database.hpp — the one owner of a trace database file: every
// connection to it, in this process, comes from here. It opens the file
// once and checks it as untrusted input (store_schema.hpp, then
// store_value_check.hpp), remembers which file that was, and then hands out
//   - readers: one read-only, defensive connection (a TraceStore) per
//     worker thread that asks, since an SQLite connection serves one thread
//     at a time;
//   - the writer: one read-write connection in a write transaction, for the
//     tables derived after the import (derived_tables.hpp: the layout, the
//     lints' findings and causes), one at a time.
//
// Invariants:
//   1. Every connection is to the file first opened. A reader or a writer
//      asked for after the path was replaced (a re-import renames a new
//      file over it) is refused: "… was replaced by another database since
//      it was opened". Results read from one file never go into another,
//      and data read from another is never shown as this one's.
//   2. The values are checked once per content, not once per connection.
//      The owner keeps the file's stamp as it was when it was last checked
//      (or last written by its own writer, whose rows are ours): its size,
//      modification time and SQLite's file change counter (header bytes
//      24-27, which every commit in rollback-journal mode increments), and
//      the size and time of a `-wal` file beside it. A reader of the same
//      file with the same stamp skips the value check, a scan of every
//      table; a file changed by someone else since (another process's
//      `skein lint`, a tool's edit) is checked again before the reader is
//      given. What this guards is the time between connections; a process
//      that rewrites the file under a connection while it reads is beyond
//      any check at open, this one's or SQLite's.
//   3. One writer at a time in this process: a second begin_write() waits
//      for the first write to end. Another process's writer is met through
//      SQLite's lock and its busy timeout (sqlite_database.hpp).
//   4. A write is all or nothing: it commits in commit(), and a write that
//      is dropped without commit() is rolled back.
//
// The owner holds no connection of its own: it may outlive every reader
// (the viewer keeps it with the data it shows) without holding the file
// open or locked, so a re-import may replace the file meanwhile
// (invariant 1 then refuses the stale owner's further connections).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

class TraceStore;

// How much a write waits for the disk: a user's database is written
// durably (SQLite's default); a cache database, which is rebuilt from its
// trace at need (opened_store.hpp), skips the fsyncs as its import does.
enum class WriteDurability : std::uint8_t { durable, rebuildable };

// Which content of the file was checked (invariant 2).
struct CheckedContent {
  DatabaseFileIdentity file;
  off_t size = 0;
  std::int64_t modified_ns = 0;
  std::uint32_t change_counter = 0;
  off_t wal_size = -1;  // -1: no -wal file
  std::int64_t wal_modified_ns = 0;
  bool operator==(const CheckedContent&) const = default;
};

class TraceDatabase;

// A write in progress: a read-write connection inside BEGIN IMMEDIATE, on
// the owner's file, holding the owner's writer lock until it ends.
class DatabaseWrite {
 public:
  DatabaseWrite(DatabaseWrite&& other) noexcept;
  DatabaseWrite& operator=(DatabaseWrite&&) = delete;
  DatabaseWrite(const DatabaseWrite&) = delete;
  DatabaseWrite& operator=(const DatabaseWrite&) = delete;
  // Rolls back a write not committed.
  ~DatabaseWrite();

  [[nodiscard]] SqliteDatabase& database() { return db_; }
  // Commits and closes, and lets the next writer begin; the owner then
  // knows the new content as checked (its rows are ours). On failure the
  // write is rolled back. Call it once.
  [[nodiscard]] Status commit();

 private:
  friend class TraceDatabase;
  DatabaseWrite(std::shared_ptr<TraceDatabase> owner, std::unique_lock<std::mutex> lock, SqliteDatabase db)
      : owner_(std::move(owner)), lock_(std::move(lock)), db_(std::move(db)) {}

  std::shared_ptr<TraceDatabase> owner_;
  std::unique_lock<std::mutex> lock_;
  SqliteDatabase db_;
  bool ended_ = false;
};

class TraceDatabase : public std::enable_shared_from_this<TraceDatabase> {
 public:
  // Opens PATH and checks it; the reader it checked with is the first
  // reader, for the calling thread, and knows its owner
  // (TraceStore::owner()). The error says "FILE: not a Skein database
  // (...)" when the file is not one of ours.
  [[nodiscard]] static Result<TraceStore> open(const std::string& path);
  // Opens the database this process's import has just written, given the
  // stamp the import took of it before renaming it into place
  // (ImportResult::written): while the file still has that stamp, its
  // values are the import's, within the format's limits by construction
  // (the importers enforce them on every record, and the database fuzzer
  // opens every database it imports with the full check, which holds the
  // import to that), so only the schema is checked. A file changed since is
  // opened as open() opens any.
  [[nodiscard]] static Result<TraceStore> open_written(const std::string& path, const CheckedContent& written);

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] DatabaseFileIdentity identity() const { return file_; }

  // Another reader of the same file, for a worker thread (invariants 1, 2).
  [[nodiscard]] Result<TraceStore> reader();
  // The writer, in a write transaction on the same file (invariants 1, 3).
  [[nodiscard]] Result<DatabaseWrite> begin_write(WriteDurability durability);
  // How many times the values were checked, the first open's included
  // (none for open_written's own import).
  [[nodiscard]] std::uint64_t value_checks() const;

  // The content stamp of the file at PATH now.
  [[nodiscard]] static Result<CheckedContent> stamp_of(const std::string& path);

  TraceDatabase(std::string path, CheckedContent checked)
      : path_(std::move(path)), file_(checked.file), checked_(checked) {}

 private:
  friend class DatabaseWrite;
  // The same file as first opened, or the "replaced" error.
  [[nodiscard]] Status still_the_same_file(const DatabaseFileIdentity& now) const;
  void written(const CheckedContent& now);

  const std::string path_;
  const DatabaseFileIdentity file_;
  mutable std::mutex mutex_;  // guards checked_ and value_checks_
  CheckedContent checked_;
  std::uint64_t value_checks_ = 1;
  std::mutex writer_;  // held by the one DatabaseWrite in progress
};

}  // namespace skein
