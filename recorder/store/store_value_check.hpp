// store_value_check.hpp — the values of a trace database made elsewhere,
// checked where they are read: every id and time a reader takes from the
// file lies within the limits the reader and the importers enforce on a
// trace (record.hpp, FORMAT.md "Limits"), so that no code reading the
// database computes with a time past 2^62 ns or the reserved id -2^63.
// store_schema.hpp checks the shape at open; the values are checked row by
// row as each query reads them, so opening costs nothing in the trace's
// size and a window's reader checks only the window.
//
// Two parts:
//   - check_meta_times(), at open: meta's first_time and end_time, which
//     size and map every picture of the trace, are integer times when
//     present, and first_time <= end_time;
//   - CheckedValues, for each row of any other table: a reader asks it
//     for a row's times and thread ids instead of reading them bare, then
//     asks for its verdict before it uses the row. The columns so read
//     (SCHEMA.md, on untrusted databases): threads.id, parent,
//     merged_into, created, first_run, resolved and run_time;
//     counters.time. The records packed in event_blocks and the
//     activations packed in activation_blocks are checked by their
//     decoders as they are read (event_block_codec.hpp,
//     activation_block_codec.hpp); the lints' findings and causes by theirs.
// A value of another type (text, a blob, a real beyond the range) fails
// too: SQLite would convert it to some integer when read. A real within
// the range passes, read as its integer part. NULL passes, as "absent".
//
// The error names the table, the row, the column and its value, as SQL's
// quote() spells it:
//   "FILE: damaged Skein database: threads row 7: resolved is
//    9223372036854775807 (times are 0 to 4611686018427387903 ns)".
// A command that meets one stops with it (exit status 2); a value nobody
// reads harms nothing and is not looked at.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

// meta's first_time and end_time, checked as described above.
[[nodiscard]] Status check_meta_times(SqliteDatabase& db);

// The checked values of the row a statement is on. Cheap: a type test and
// two comparisons a value; the message is built only for a value out of
// range. Use one per row, and take its verdict before the next step.
class CheckedValues {
 public:
  explicit CheckedValues(const SqliteStatement& row) : row_(row) {}

  // COLUMN, called NAME in messages, as a time from 0 to kMaxTime, or
  // nullopt for NULL. A value out of range reads as nullopt and fails the
  // verdict.
  [[nodiscard]] std::optional<TimeNs> time(int column, std::string_view name) {
    return checked(column, name, Rule::time);
  }
  // COLUMN as a thread id other than kReservedThreadId, or nullopt for
  // NULL; as time() for a value out of range.
  [[nodiscard]] std::optional<ThreadId> thread(int column, std::string_view name) {
    return checked(column, name, Rule::thread);
  }

  // Ok when every value read was within its limits. Otherwise the first
  // that was not: "FILE: damaged Skein database: ROW: NAME is VALUE
  // (LIMITS)", with ROW from row_name(), called only then.
  template <class RowName>
  [[nodiscard]] Status verdict(RowName&& row_name) const {
    if (!fault_) return {};
    return fault(std::string(std::forward<RowName>(row_name)()));
  }

 private:
  enum class Rule : std::uint8_t { time, thread };
  struct Fault {
    std::string_view name;
    Rule rule;
    std::string value;
  };
  // COLUMN's value when RULE admits it; else nullopt, the fault noted.
  [[nodiscard]] std::optional<std::int64_t> checked(int column, std::string_view name, Rule rule);
  void out_of_range(int column, std::string_view name, Rule rule);
  [[nodiscard]] Status fault(const std::string& row) const;

  const SqliteStatement& row_;
  std::optional<Fault> fault_;
};

}  // namespace skein
