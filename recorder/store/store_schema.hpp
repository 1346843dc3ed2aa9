// store_schema.hpp — the trace database's schema (recorder/store/SCHEMA.md says
// what every table and column means): the statements that create it, and
// the check that a database made elsewhere has it before anything reads it.
//
// Versioning. `PRAGMA user_version` is kStoreSchemaVersion and
// `PRAGMA application_id` is kStoreApplicationId. Both are written as the
// import's last statement before COMMIT, so a file that stops anywhere
// earlier never passes for a Skein database. A change to any table, column,
// view or index meaning bumps kStoreSchemaVersion; readers refuse other
// versions rather than guess.
//
// The check (check_store_schema) is what makes an untrusted database safe to
// read: the version numbers, then every table with exactly the columns
// SCHEMA.md lists (in order), then the view's and the R*Tree's definitions
// word for word, so a hostile file cannot swap in a view that computes
// something else. Extra objects a user added (their own tables or indexes)
// are allowed.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

inline constexpr std::int64_t kStoreSchemaVersion = 6;
inline constexpr std::int64_t kStoreApplicationId = 0x536b6e31;  // "Skn1"

// events.head: the RecordHead codes, fixed for the database format.
static_assert(static_cast<int>(RecordHead::site) == 0 && static_cast<int>(RecordHead::spawn) == 1 &&
                  static_cast<int>(RecordHead::label) == 2 && static_cast<int>(RecordHead::switch_) == 3 &&
                  static_cast<int>(RecordHead::wait) == 4 && static_cast<int>(RecordHead::read) == 5 &&
                  static_cast<int>(RecordHead::notify) == 6 && static_cast<int>(RecordHead::resolve) == 7 &&
                  static_cast<int>(RecordHead::merge) == 8 && static_cast<int>(RecordHead::counter) == 9 &&
                  static_cast<int>(RecordHead::idle) == 10 && static_cast<int>(RecordHead::gc) == 11 &&
                  static_cast<int>(RecordHead::lost) == 12 && static_cast<int>(RecordHead::end) == 13 &&
                  static_cast<int>(RecordHead::return_) == 14 &&
                  static_cast<int>(RecordHead::should_resolve) == 15 &&
                  static_cast<int>(RecordHead::snapshot) == 16 && static_cast<int>(RecordHead::drop) == 17 &&
                  static_cast<int>(RecordHead::no_waiter) == 18 && static_cast<int>(RecordHead::queued) == 19 &&
                  kRecordHeadCount == 20,
              "events.head codes are part of the database format (SCHEMA.md)");

// events.value of a resolve record.
[[nodiscard]] constexpr std::int64_t outcome_code(Outcome o) { return static_cast<std::int64_t>(o); }

// A table as the check expects it.
struct StoreTable {
  std::string_view name;
  std::string_view columns;  // comma-separated, in order
};
[[nodiscard]] std::span<const StoreTable> store_tables();

// Records per event_blocks row (the block range index, and the records
// packed in it: event_block_codec.hpp).
inline constexpr std::int64_t kEventBlockSize = 1024;
// The event_blocks row that holds event `event` (ids from 1).
[[nodiscard]] constexpr std::int64_t event_block_of(std::int64_t event) { return (event - 1) / kEventBlockSize + 1; }
// The page size the import writes. A block's records (about 11 KB for
// 1,024 records of a typical trace) are larger than what an 8 KiB page
// keeps in place, so SQLite puts a part of each in the table's leaf pages,
// beside its neighbours', and the rest in whole overflow pages: no page is
// left mostly empty. With 16 KiB pages each blob took a page to itself,
// about 5 KB of it unused (SCHEMA.md, "How it is written").
inline constexpr int kStorePageSize = 8192;

// Creates every table, view and virtual table, empty (inside the caller's
// transaction). Leaves user_version and application_id at 0.
[[nodiscard]] Status create_store_schema(SqliteDatabase& db);
// Marks the database as complete: application_id, then user_version.
[[nodiscard]] Status stamp_store_schema(SqliteDatabase& db);
// The checks above; the error reads "FILE: not a Skein database (...)".
[[nodiscard]] Status check_store_schema(SqliteDatabase& db);

}  // namespace skein
