// trace_store.hpp — reading a trace database (SCHEMA.md). A database made
// elsewhere is untrusted input: open() opens it read-only with SQLite's
// defensive settings and checks its version, its schema (store_schema.hpp)
// and meta's times; every other id and time is checked against the
// format's limits where it is read (store_value_check.hpp), so code given
// a value by a reader may rely on record.hpp's limits, and a query that
// reads its table bare (database()) must check what it takes as the
// readers here do. trace_database.hpp, the file's owner, opens it. Then
// small typed queries give what the command line and the viewer share:
// meta, record counts per head, threads, warnings. Other queries go through
// database().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

struct StoredThread {
  ThreadId id = 0;
  std::optional<ThreadId> parent;
  std::optional<std::string> kind;
  std::optional<std::int64_t> site;
  std::optional<std::string> label;
  TimeNs created = 0;
  std::optional<TimeNs> first_run;
  std::optional<TimeNs> resolved;
  std::optional<std::string> outcome;
  std::optional<std::string> failure;
  std::optional<ThreadId> merged_into;
  TimeNs run_time = 0;
  bool implicit = false;
};

struct StoredSite {
  std::int64_t id = 0;
  std::string file;
  std::int64_t line = 0;
  std::string function;
};

struct StoredWarning {
  std::string kind;
  std::optional<std::int64_t> event;
  std::string message;
};

struct ThreadCounts {
  std::uint64_t total = 0;
  std::uint64_t implicit = 0;
  std::uint64_t failed = 0;
  std::uint64_t cancelled = 0;
  std::uint64_t pending = 0;  // not resolved at the end
  std::uint64_t merged = 0;
};

struct HeadCount {
  std::string head;
  std::uint64_t records = 0;
};

class TraceDatabase;

// One read-only connection to a checked trace database, for one thread at
// a time. Every TraceStore has an owner (trace_database.hpp), which gives
// further readers of the same file and its writer.
class TraceStore {
 public:
  // Opens and checks, through a new owner (TraceDatabase::open); the error
  // says "FILE: not a Skein database (...)" when the file is not one of
  // ours.
  [[nodiscard]] static Result<TraceStore> open(const std::string& path);

  [[nodiscard]] const std::string& path() const { return db_.name(); }
  [[nodiscard]] std::optional<std::string> meta_text(std::string_view key);
  [[nodiscard]] std::optional<std::int64_t> meta_int(std::string_view key);
  // Every meta row, by key, values as text.
  [[nodiscard]] Result<std::vector<std::pair<std::string, std::string>>> meta();

  [[nodiscard]] Result<std::vector<HeadCount>> record_counts();
  [[nodiscard]] Result<std::vector<StoredThread>> threads();
  [[nodiscard]] Result<ThreadCounts> thread_counts();
  [[nodiscard]] Result<std::vector<StoredSite>> sites();
  [[nodiscard]] Result<std::vector<StoredWarning>> warnings();

  [[nodiscard]] SqliteDatabase& database() { return db_; }
  // The owner of the file this connection reads: never null.
  [[nodiscard]] const std::shared_ptr<TraceDatabase>& owner() const { return owner_; }

 private:
  friend class TraceDatabase;
  TraceStore(SqliteDatabase db, std::shared_ptr<TraceDatabase> owner)
      : db_(std::move(db)), owner_(std::move(owner)) {}
  SqliteDatabase db_;
  std::shared_ptr<TraceDatabase> owner_;
};

}  // namespace skein
