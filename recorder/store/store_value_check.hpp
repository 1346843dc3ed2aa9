// store_value_check.hpp — the second check of opening a trace database
// made elsewhere: every id and time it holds lies within the limits the
// reader and the importers enforce on a trace (record.hpp, FORMAT.md
// "Limits"), so that no code reading the database computes with a time
// past 2^62 ns or the reserved id -2^63. store_schema.hpp checks the shape
// first; TraceStore::open runs both, before anything else reads the file.
//
// What is checked (SCHEMA.md, "Limits"), per row:
//   - times are integers in [0, kMaxTime] or NULL: events.time,
//     activations.start and end, threads.created, first_run, resolved and
//     run_time, counters.time, event_blocks.start and end;
//   - thread ids are integers other than kReservedThreadId, or NULL:
//     events.actor and target, activations.thread, threads.id, parent and
//     merged_into;
//   - events.head is a head code (0 to 19), and a gc record's duration
//     (events.value) is a time;
//   - meta's first_time and end_time, when present, are integer times and
//     first_time <= end_time.
// A value of another type (text, a blob, a real beyond the range) fails
// too: SQLite would convert it to some integer when read. A real within
// the range passes, read as its integer part.
//
// Cost: one scan of each table, a few comparisons a row, inside SQLite
// (about 0.1 µs a row), the first bad row ends it. The error names the
// table, the row, the column and its value:
//   "FILE: damaged Skein database: events row 7: time is
//    9223372036854775807 (times are 0 to 4611686018427387903 ns)".
#pragma once

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

[[nodiscard]] Status check_store_values(SqliteDatabase& db);

}  // namespace skein
