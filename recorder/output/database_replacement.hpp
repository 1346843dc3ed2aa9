// database_replacement.hpp — the old database at a path that a new one is
// about to be renamed over: held against SQLite writers while its stale
// rollback journal, WAL and shared-memory index are removed, so that SQLite
// never plays the old file's journal into the new one. Used by
// output_file.hpp between "the new file is complete and synced" and the
// rename.
//
// Why. SQLite finds a database's companions by name, TARGET-journal,
// TARGET-wal and TARGET-shm, never by identity. A journal left hot by a
// writer that died mid-transaction is rolled back into whatever file is
// called TARGET when it is next opened read-write, and a WAL file is applied
// the same way (SQLite opens a database in WAL mode whenever TARGET-wal
// exists, whatever its header says). A new database renamed over TARGET
// would then be damaged by the old one's journal, so the journals go first.
//
// When removing them is safe: only when no live process uses them. SQLite
// says who does with POSIX record locks on the files themselves (its
// os_unix.c): a writer holds a write lock on the RESERVED byte (0x40000001,
// after PENDING at 0x40000000) of the database from its first change to its
// COMMIT, which is exactly the life of a live TARGET-journal; every
// connection in WAL mode holds a read lock on the dead-man-switch byte
// (offset 128) of TARGET-shm while it is open. With neither held, the files
// are what SQLite itself would call hot or recoverable: a dead writer's.
//
// begin():
//   1. Opens the old TARGET (O_NOFOLLOW; it must be a regular file) and
//      takes a read lock on its PENDING and RESERVED bytes, retrying for up
//      to two seconds while a writer holds them, then refusing and naming
//      that writer. While held, no SQLite process can start writing the old
//      file or roll its journal back (both need write locks on those bytes),
//      and SQLite's check for a writer sees one, so readers do not try a
//      rollback either; they go on reading (a SHARED lock needs only read
//      locks), and after the rename keep reading the old file through their
//      own descriptors.
//   2. Refuses while a WAL connection is open (a lock on the dead-man-switch
//      byte of TARGET-shm): its -wal and -shm are live, and a new file
//      under the same name would be read through them.
// remove_stale_journals() then unlinks the three files; the destructor
// releases the lock, after the caller's rename.
//
// The locks are open-file-description locks (F_OFD_SETLK): they also see
// this process's own SQLite connections, and closing this descriptor drops
// only this lock. On a kernel without them (before Linux 3.15) classic
// POSIX locks are used, which see neither; there the process must not have
// TARGET open through SQLite itself.
//
// The window left. SQLite cannot be told that its file was replaced: a
// connection that was already open on the old file, holds no lock at this
// moment, and begins writing after the rename writes the replaced file but
// puts its journal beside the new one (SQLite's "How To Corrupt", renaming
// an open database). Such a writer is invisible to locks; the lock above
// only narrows the window to what happens after the rename. A WAL
// connection that opens the old file between step 2 and the rename is the
// other, narrower, case.
#pragma once

#include <string>

#include "recorder/format/diagnostic.hpp"

namespace skein {

class DatabaseReplacement {
 public:
  // Looks at `target` as it is now: a regular file is locked as above,
  // nothing at all has no lock to take (its journals are removed all the
  // same: a journal outlives a deleted database), anything else is refused.
  [[nodiscard]] static Result<DatabaseReplacement> begin(const std::string& target);
  DatabaseReplacement(DatabaseReplacement&& other) noexcept;
  DatabaseReplacement& operator=(DatabaseReplacement&& other) noexcept;
  DatabaseReplacement(const DatabaseReplacement&) = delete;
  DatabaseReplacement& operator=(const DatabaseReplacement&) = delete;
  ~DatabaseReplacement();  // releases the lock

  // Unlinks TARGET-journal, TARGET-wal and TARGET-shm (missing ones are
  // fine).
  [[nodiscard]] Status remove_stale_journals() const;

 private:
  DatabaseReplacement(std::string target, int locked_fd) : target_(std::move(target)), locked_fd_(locked_fd) {}

  std::string target_;
  int locked_fd_ = -1;  // the old TARGET, read-locked; -1: none
};

}  // namespace skein
