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
#include <optional>
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
// How many rows the layout has (its largest row plus one), kept in `meta`
// under this key by whoever writes layout_v2, in the same transaction: a
// reader of a window learns it without scanning the table.
inline constexpr std::string_view kLayoutRowsKey = "layout_rows";

// Each counter's smallest and largest value over the trace, written by the
// import: a lane's scale without reading every sample (a window read
// alone, viewer/timeline/timeline_window.hpp).
inline constexpr DerivedTable kCounterRangesTable{
    "counter_ranges", "name,min,max",
    "CREATE TABLE counter_ranges(name TEXT PRIMARY KEY NOT NULL, min INTEGER NOT NULL, max INTEGER NOT NULL) "
    "WITHOUT ROWID",
    "the counters' ranges"};

// Per event block, by its id: the latest `end` among the blocks up to it,
// and the earliest `start` among the blocks from it on (NULL while there is
// none with a time). Both rise with the id even where the trace's times go
// backwards, so the blocks that meet a time range [a, b] lie between the
// first whose latest_end reaches a and the last whose earliest_start is
// not past b: a binary search, one row read a step, where testing every
// block would read a page per block (each holds its records). Written by
// the import.
inline constexpr DerivedTable kEventBlockReachTable{
    "event_block_reach", "id,latest_end,earliest_start",
    "CREATE TABLE event_block_reach(id INTEGER PRIMARY KEY, latest_end INTEGER, earliest_start INTEGER)",
    "the event blocks' reach"};
// Each timeline row's lines and running spans, packed in chunks, exact and
// at coarser levels (row_spans.hpp); and meta's key for the span of the
// trace their buckets are cut from. Written by the import with layout_v2,
// and dropped by whoever writes layout_v2 again: they hold its rows.
inline constexpr DerivedTable kRowSpansTable{
    "row_spans", "row,layer,level,reach,seq,start,count,spans",
    "CREATE TABLE row_spans(row INTEGER NOT NULL, layer INTEGER NOT NULL, level INTEGER NOT NULL, "
    "reach INTEGER NOT NULL, seq INTEGER NOT NULL, start INTEGER NOT NULL, count INTEGER NOT NULL, "
    "spans BLOB NOT NULL, PRIMARY KEY(row, layer, level, reach, seq)) WITHOUT ROWID",
    "the rows' spans"};
inline constexpr std::string_view kRowSpansSpanKey = "row_spans_span";
// How many entries level 0 of the running layer holds on the rows from
// kIdleBandRow on (row_spans.hpp): every activation, and every idle band.
// A reader that takes them all in place of the activations' table checks
// that it read that many, so that a chunk lost is never drawn as no work.
inline constexpr std::string_view kRowSpansPlacedKey = "row_spans_placed";

// Each row's extent (row_extents.hpp): its first start, latest end,
// threads and failed threads, what folding asks of a row before reading
// it. Written by the import with layout_v2, and dropped by whoever writes
// layout_v2 again.
inline constexpr DerivedTable kRowExtentsTable{
    "row_extents", "row,first_start,last_end,threads,failed",
    "CREATE TABLE row_extents(row INTEGER PRIMARY KEY, first_start INTEGER NOT NULL, last_end INTEGER NOT NULL, "
    "threads INTEGER NOT NULL, failed INTEGER NOT NULL)",
    "the rows' extents"};

// The whole trace's run time per bin, exact (run_time_bins.hpp): the bins
// with any, by number; and meta's key for their width. Written by the
// import: the overview strip draws from it without reading an activation.
inline constexpr DerivedTable kActivityBinsTable{
    "activity_bins", "bin,run_ns",
    "CREATE TABLE activity_bins(bin INTEGER PRIMARY KEY, run_ns INTEGER NOT NULL)", "the run time per bin"};
inline constexpr std::string_view kActivityBinNsKey = "activity_bin_ns";

// The run time per cell of the subsecond heat map (run_time_bins.hpp's
// subsecond_binning()), exact: the cells with any, by number; and meta's
// key for their width. Written by the import: the heat map draws from it
// without reading an activation.
inline constexpr DerivedTable kSubsecondBinsTable{
    "subsecond_bins", "bin,run_ns",
    "CREATE TABLE subsecond_bins(bin INTEGER PRIMARY KEY, run_ns INTEGER NOT NULL)",
    "the run time per heat-map cell"};
inline constexpr std::string_view kSubsecondBinNsKey = "subsecond_bin_ns";

// The edges per time bin at a few levels (edge_bins.hpp): the bins with
// any, and meta's keys for their origin and the levels stored. Written by
// the import.
inline constexpr DerivedTable kEdgeBinsTable{
    "edge_bins", "shift,bin,count",
    "CREATE TABLE edge_bins(shift INTEGER NOT NULL, bin INTEGER NOT NULL, count INTEGER NOT NULL, "
    "PRIMARY KEY(shift, bin)) WITHOUT ROWID",
    "the edges per bin"};
inline constexpr std::string_view kEdgeBinsOriginKey = "edge_bins_origin";
inline constexpr std::string_view kEdgeBinsFinestKey = "edge_bins_finest";
inline constexpr std::string_view kEdgeBinsCoarsestKey = "edge_bins_coarsest";

// The lints' findings (viewer/analysis/anomaly_table.hpp), one row each,
// their texts interned in finding_texts: `rule`, `severity` and `grouping`
// name a text as is; `message` names a template that printf(template, a1,
// a2, a3, a4) turns back into the sentence (finding_message_template.hpp).
inline constexpr DerivedTable kFindingsTable{
    "findings", "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message,a1,a2,a3,a4",
    "CREATE TABLE findings(id INTEGER PRIMARY KEY, rule INTEGER NOT NULL, severity INTEGER NOT NULL, "
    "time INTEGER NOT NULL, thread INTEGER NOT NULL, from_thread INTEGER, suspect INTEGER, event INTEGER, "
    "grouping INTEGER, message INTEGER NOT NULL, a1 INTEGER, a2 INTEGER, a3 INTEGER, a4 INTEGER)",
    "the findings"};

inline constexpr DerivedTable kFindingTextsTable{
    "finding_texts", "id,text", "CREATE TABLE finding_texts(id INTEGER PRIMARY KEY, text TEXT NOT NULL)",
    "the findings' texts"};

// A block range index over `findings`: per kFindingBlockSize consecutive
// ids, the smallest and largest time among them. A window's findings are
// those of the blocks that meet it; the lints number their findings
// nearly in time order, so few blocks do.
inline constexpr std::int64_t kFindingBlockSize = 256;
inline constexpr DerivedTable kFindingBlocksTable{
    "finding_blocks", "id,first_finding,last_finding,start,end",
    "CREATE TABLE finding_blocks(id INTEGER PRIMARY KEY, first_finding INTEGER NOT NULL, "
    "last_finding INTEGER NOT NULL, start INTEGER NOT NULL, \"end\" INTEGER NOT NULL)",
    "the findings' block index"};

// The findings as one reads them in SQL: a view over the two tables above
// with the columns the lints' table had before its texts were interned.
inline constexpr DerivedTable kAnomaliesView{
    "anomalies", "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message",
    "CREATE VIEW anomalies AS SELECT f.id AS id, r.text AS rule, s.text AS severity, f.time AS time, "
    "f.thread AS thread, f.from_thread AS from_thread, f.suspect AS suspect, f.event AS event, "
    "g.text AS grouping, printf(m.text, f.a1, f.a2, f.a3, f.a4) AS message FROM findings AS f "
    "JOIN finding_texts AS r ON r.id = f.rule JOIN finding_texts AS s ON s.id = f.severity "
    "JOIN finding_texts AS m ON m.id = f.message LEFT JOIN finding_texts AS g ON g.id = f.grouping",
    "the findings"};

// The lints' findings as Skeins before the view stored them, one table
// with every text in each row: still read, and replaced by the view when
// a lint stores its findings again.
inline constexpr DerivedTable kOlderAnomaliesTable{
    "anomalies", "id,rule,severity,time,thread,from_thread,suspect,event,grouping,message",
    "CREATE TABLE anomalies(id INTEGER PRIMARY KEY, rule TEXT NOT NULL, severity TEXT NOT NULL, "
    "time INTEGER NOT NULL, thread INTEGER NOT NULL, from_thread INTEGER, suspect INTEGER, event INTEGER, "
    "grouping TEXT, message TEXT NOT NULL)",
    "the findings"};

// The replay's verdicts, Why?'s causes (viewer/analysis/transfer_table.hpp),
// packed by runs of consecutive keys (transfer_block_codec.hpp).
inline constexpr DerivedTable kTransferBlocksTable{
    "transfer_blocks", "grp,first_event,verdicts",
    "CREATE TABLE transfer_blocks(grp INTEGER NOT NULL, first_event INTEGER NOT NULL, verdicts BLOB NOT NULL, "
    "PRIMARY KEY(grp, first_event)) WITHOUT ROWID",
    "the causes"};

// The verdicts as Skeins before the blocks stored them, one row each: no
// longer read (causes are derived again when absent), and dropped when a
// lint stores its causes.
inline constexpr DerivedTable kOlderTransfersTable{
    "transfers", "grp,event,kind,thread,from_thread,input,cause,cause_event,suspect",
    "CREATE TABLE transfers(grp INTEGER NOT NULL, event INTEGER NOT NULL, kind INTEGER NOT NULL, "
    "thread INTEGER NOT NULL, from_thread INTEGER, input INTEGER, cause INTEGER NOT NULL, cause_event INTEGER, "
    "suspect INTEGER, PRIMARY KEY(grp, event, kind)) WITHOUT ROWID",
    "the causes"};

// The tables (the view aside), each made by replace_derived_rows.
inline constexpr std::array<const DerivedTable*, 12> kDerivedTables{
    &kLayoutTable,       &kCounterRangesTable, &kEventBlockReachTable, &kRowSpansTable,
    &kRowExtentsTable,   &kActivityBinsTable,  &kSubsecondBinsTable,   &kEdgeBinsTable,
    &kFindingsTable,     &kFindingTextsTable,  &kFindingBlocksTable,   &kTransferBlocksTable};

// Whether `db` defines `table` (a table, or a view for kAnomaliesView)
// exactly as Skein creates it (sqlite_schema's text word for word); false
// too when the schema cannot be read.
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

// meta's integer under `key`; nullopt when absent, not an integer, or
// unreadable. TraceStore::meta_int, and the derived tables' readers that
// hold only a connection.
[[nodiscard]] std::optional<std::int64_t> read_meta_int(SqliteDatabase& db, std::string_view key);

// Sets meta's integer under `key`, and deletes the key: the derived
// tables' writers, which record their keys in the same transaction.
[[nodiscard]] Status write_meta_int(SqliteDatabase& db, std::string_view key, std::int64_t value);
[[nodiscard]] Status delete_meta(SqliteDatabase& db, std::string_view key);
// Records the layout's row count in meta (kLayoutRowsKey).
[[nodiscard]] Status set_layout_row_count(SqliteDatabase& db, std::int64_t rows);
// Makes the view `anomalies` exist as Skein defines it, inside the caller's
// transaction: an older Skein's table of that name (kOlderAnomaliesTable's
// columns) is dropped for it, and a view of other text replaced; a table
// of other columns (a user's own) is left alone and the call fails naming
// its columns.
[[nodiscard]] Status define_anomalies_view(SqliteDatabase& db);

// Drops `older`, a table an older Skein wrote and this one no longer
// reads, from `schema` ("" or "temp") when it is there with its columns;
// a table of that name with other columns (a user's own) is left alone.
[[nodiscard]] Status drop_older_table(SqliteDatabase& db, const DerivedTable& older, std::string_view schema = "");

}  // namespace skein
