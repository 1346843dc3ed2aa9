// trace_database.hpp — the one owner of a trace database file: every
// connection to it, in this process, comes from here. It opens the file
// once and checks its shape as untrusted input (store_schema.hpp, and
// meta's times: store_value_check.hpp), remembers which file that was, and
// then hands out
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
//   2. Every connection is checked as the first was: its schema and meta's
//      times, a few rows whatever the trace's size. The values of the
//      other tables are checked where they are read, row by row
//      (store_value_check.hpp), so a file changed by someone else between
//      two connections (another process's `skein lint`, a tool's edit)
//      has its damage refused by whichever reader meets it. A process that
//      rewrites the file under a connection while it reads is beyond any
//      check at open; the row checks still hold each value read.
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
  // Commits and closes, and lets the next writer begin. On failure the
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

  [[nodiscard]] const std::string& path() const { return path_; }
  [[nodiscard]] DatabaseFileIdentity identity() const { return file_; }

  // Another reader of the same file, for a worker thread (invariants 1, 2).
  [[nodiscard]] Result<TraceStore> reader();
  // The writer, in a write transaction on the same file (invariants 1, 3).
  [[nodiscard]] Result<DatabaseWrite> begin_write(WriteDurability durability);

  TraceDatabase(std::string path, DatabaseFileIdentity file) : path_(std::move(path)), file_(file) {}

 private:
  friend class DatabaseWrite;
  // The same file as first opened, or the "replaced" error.
  [[nodiscard]] Status still_the_same_file(const DatabaseFileIdentity& now) const;

  const std::string path_;
  const DatabaseFileIdentity file_;
  std::mutex writer_;  // held by the one DatabaseWrite in progress
};

}  // namespace skein
