// sqlite_child.hpp — another program using a database, for the tests of
// replacing one (recorder/output/database_replacement.hpp): a child process that
// opens the database with SQLite's own library, runs a script, tells the
// test it got there, and then waits to be killed. Killed with SIGKILL in
// the middle of a write transaction, it leaves a hot journal, exactly as a
// crashed writer does; in WAL mode, a -wal and a -shm nobody checkpointed.
// The child only calls SQLite and async-signal-safe functions (no Catch).
#pragma once

#include <signal.h>
#include <sqlite3.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace skein::test {

// A write transaction that dirties more pages than its cache holds, so
// that SQLite writes into the database file before COMMIT: its journal is
// then the only way back, and hot once the writer dies.
inline const std::string kHotJournalScript =
    "PRAGMA cache_size = 1;"
    "BEGIN IMMEDIATE;"
    "CREATE TABLE scribble(x);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
    "  INSERT INTO scribble SELECT randomblob(1000) FROM n;"
    "DELETE FROM event_blocks;";

// Committed transactions in WAL mode, never checkpointed (far below the
// automatic checkpoint's 1000 pages).
inline const std::string kUncheckpointedWalScript =
    "PRAGMA journal_mode = WAL;"
    "CREATE TABLE scribble(x);"
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)"
    "  INSERT INTO scribble SELECT randomblob(1000) FROM n;"
    "DELETE FROM event_blocks;";

class SqliteChild {
 public:
  // Runs `script` on `database` in a child; returns once the script has
  // run (ok() false when it failed or the child could not start).
  SqliteChild(const std::string& database, const std::string& script) {
    int ready[2];
    if (pipe(ready) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      close(ready[0]);
      sqlite3* db = nullptr;
      char verdict = 'n';
      if (sqlite3_open_v2(database.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
          sqlite3_exec(db, script.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK)
        verdict = 'y';
      (void)!write(ready[1], &verdict, 1);
      for (;;) pause();
    }
    close(ready[1]);
    char verdict = 'n';
    if (pid_ > 0 && read(ready[0], &verdict, 1) == 1) ok_ = verdict == 'y';
    close(ready[0]);
  }
  ~SqliteChild() { kill_now(); }
  SqliteChild(const SqliteChild&) = delete;
  SqliteChild& operator=(const SqliteChild&) = delete;

  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] pid_t pid() const { return pid_; }

  // SIGKILL, as a crash: SQLite gets no chance to clean up.
  void kill_now() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  bool ok_ = false;
};

// A Skein trace of `threads` threads, each spawned and resolved: imported,
// a database of many pages. The old database of the tests, so that its
// journal, played into a new and smaller one, leaves pages that no table
// uses and integrity_check says so (into an identical file it would go
// unnoticed).
inline std::string many_threads_trace(int threads) {
  std::string t = "(skein-trace 1 (process \"old\") (pid 1))\n(spawn 10 1 0 task)\n";
  for (int i = 2; i <= threads; ++i) {
    const std::string id = std::to_string(i);
    t += "(spawn " + std::to_string(i * 10) + " " + id + " 1 task)\n";
    t += "(resolve " + std::to_string(i * 10 + 5) + " " + id + " -1 ok)\n";
  }
  t += "(end " + std::to_string(threads * 10 + 100) + ")\n";
  return t;
}

// A pid that belonged to a process that has exited (and been reaped).
inline pid_t dead_pid() {
  const pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

}  // namespace skein::test
