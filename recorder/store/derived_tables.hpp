// derived_tables.hpp — the tables added to a trace database after its
// import, by whoever derives them (the viewer's layout, the lints' findings
// and causes): their one definition, and the two ways of meeting one in a
// database made elsewhere. SCHEMA.md describes each; the imported tables
// are store_schema.hpp's.
//
// The schema check (store_schema.hpp) allows tables it does not know, so a
// database with none of these is valid, and a table of the same name may
// be a user's own. Hence:
//   - reading trusts a derived table only when it is ours: for the layout,
//     sqlite_schema's text word for word (a hostile file could make it a
//     view); for the findings and causes, their columns in order, which is
//     what older Skeins' tables share with ours;
//   - writing (replace_derived_rows) creates the table when absent and
//     empties it when present with our columns; a table of other columns
//     is left alone and the write fails with a message that names them.
// Every derived table is written inside the owner's write transaction
// (trace_database.hpp): all or nothing, never half a table.
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

struct DerivedTable {
  std::string_view name;
  std::string_view columns;  // in order, joined by commas
  std::string_view sql;      // the CREATE statement, as sqlite_schema keeps it
  std::string_view holds;    // what it holds, for messages: "the layout"
};

// The row each thread is drawn on (recorder/store/thread_layout.hpp). The
// `_v2` is the layout algorithm's version: a new algorithm renames it.
inline constexpr DerivedTable kLayoutTable{
    "layout_v2", "thread,row", "CREATE TABLE layout_v2(thread INTEGER PRIMARY KEY, row INTEGER NOT NULL)",
    "the layout"};

// The lints' findings (viewer/analysis/anomaly_table.hpp).
inline constexpr DerivedTable kAnomaliesTable{
    "anomalies", "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message",
    "CREATE TABLE anomalies(id INTEGER PRIMARY KEY, rule TEXT NOT NULL, severity TEXT NOT NULL, "
    "time INTEGER NOT NULL, thread INTEGER NOT NULL, from_thread INTEGER, suspect INTEGER, event INTEGER, "
    "grouping TEXT, message TEXT NOT NULL)",
    "the findings"};

// The replay's verdicts, Why?'s causes (viewer/analysis/transfer_table.hpp).
inline constexpr DerivedTable kTransfersTable{
    "transfers", "grp,event,kind,thread,from_thread,input,cause,cause_event,suspect",
    "CREATE TABLE transfers(grp INTEGER NOT NULL, event INTEGER NOT NULL, kind INTEGER NOT NULL, "
    "thread INTEGER NOT NULL, from_thread INTEGER, input INTEGER, cause INTEGER NOT NULL, cause_event INTEGER, "
    "suspect INTEGER, PRIMARY KEY(grp, event, kind)) WITHOUT ROWID",
    "the causes"};

inline constexpr std::array<const DerivedTable*, 3> kDerivedTables{&kLayoutTable, &kAnomaliesTable,
                                                                   &kTransfersTable};

// Whether `db` defines `table` exactly as Skein creates it (sqlite_schema's
// text word for word); false too when the schema cannot be read.
[[nodiscard]] bool defines_derived_table(SqliteDatabase& db, const DerivedTable& table);

// Whether `db` has a table of that name with exactly its columns, in order.
[[nodiscard]] Result<bool> has_derived_columns(SqliteDatabase& db, const DerivedTable& table);

// Makes `table` exist and be empty in `schema` ("" the main one, or
// "temp"), inside the caller's transaction: created when absent, its rows
// deleted when present with our columns; fails naming the columns found
// when a table of that name has others. `schema` is ours, never a trace's
// text.
[[nodiscard]] Status replace_derived_rows(SqliteDatabase& db, const DerivedTable& table,
                                          std::string_view schema = "");

}  // namespace skein
