// timeline_data.hpp — everything the timeline draws, read once from a trace
// database (on a worker thread: it runs SQL) into flat, sorted arrays that
// a frame can search in O(log n) and walk per pixel column. No Qt.
//
// Why in memory rather than a query per frame: a frame at the whole-trace
// zoom of a 10,000,000-record trace touches every part of the trace, and
// must take under 16 ms; binary searches over sorted arrays do that, SQL
// round trips do not. The arrays cost about 60 bytes per record at most
// (activations and edges dominate), within the viewer's memory budget. The
// largest (threads, edges and their times, activations) are LargeArrays,
// mapped on their own in huge pages where they are big (large_array.hpp).
//
// Invariants (checked by check_invariants() in debug builds):
//   - threads are sorted by id; `row` is the layout's (thread_layout.hpp);
//   - rows[r].threads lists the threads of row r by start, and
//     rows[r].end_prefix_max[k] is the latest end among the first k+1 of
//     them (non-decreasing, so "first thread ending after t" is a binary
//     search even though the members of a merge chain overlap);
//   - rows[r].activations are sorted by start and do not overlap (one
//     thread runs at a time), so their ends are sorted too;
//   - edges are sorted by time; bands (idle, gc) are sorted by start and
//     disjoint (gc pauses that overlap are merged into one band);
//   - rows[r].failures are sorted by time; anomalies are sorted by time;
//   - a counter's samples are sorted by time.
// All times are the store's: ns since the trace's origin, and the user sees
// them so (recorder/format/FORMAT.md, "Times"). `first_time` is the first
// record's time, where the fitted view starts.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/run_time_bins.hpp"
#include "recorder/store/trace_database.hpp"
#include "viewer/timeline/thread_label_lists.hpp"
#include "recorder/store/trace_store.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/finding_text.hpp"
#include "viewer/timeline/large_array.hpp"
#include "viewer/timeline/string_interner.hpp"

namespace skein {

enum class ThreadOutcome : std::uint8_t { ok, fail, cancel, pending };

enum class EdgeKind : std::uint8_t { spawn, wait, read, notify, resolve };
inline constexpr int kEdgeKindCount = 5;
// The edge a record of one of those heads draws (resolve for any other).
[[nodiscard]] constexpr EdgeKind edge_kind_of(RecordHead head) {
  switch (head) {
    case RecordHead::spawn: return EdgeKind::spawn;
    case RecordHead::wait: return EdgeKind::wait;
    case RecordHead::read: return EdgeKind::read;
    case RecordHead::notify: return EdgeKind::notify;
    default: return EdgeKind::resolve;
  }
}

struct TimelineThread {
  ThreadId id = 0;
  ThreadId parent = -1;  // -1: none or the scheduler
  TimeNs start = 0;
  TimeNs end = 0;  // resolved, or the trace's end when pending
  std::int32_t row = 0;
  std::int32_t chain = 0;  // the merge chain (its head's index in `threads`)
  ThreadOutcome outcome = ThreadOutcome::pending;
  std::uint32_t label = 0;    // index into strings: its row text, labels_shown() of its distinct
                              // labels joined by " · " (and " · +N more"); "" when none
  std::uint32_t kind = 0;     // index into strings
  std::uint32_t failure = 0;  // index into strings
  std::int64_t site = -1;
  TimeNs first_run = -1;   // the start of its first activation; -1: it never ran
  TimeNs run_time = 0;     // the sum of its activations, ns
  ThreadId merged_into = -1;  // INTO of its latest merge; -1: none
};

struct TimelineActivation {
  TimeNs start = 0;
  TimeNs end = 0;
  std::uint32_t thread = 0;  // index into threads
};

struct TimelineEdge {
  TimeNs time = 0;
  std::int32_t src = -1;  // index into threads; -1: the scheduler / unknown
  std::int32_t dst = -1;
  EdgeKind kind = EdgeKind::spawn;
  std::uint32_t text = 0;  // a notify's reason, index into strings
};

struct TimelineBand {
  TimeNs start = 0;
  TimeNs end = 0;
};

struct TimelineCounter {
  std::string name;
  std::vector<TimeNs> times;
  std::vector<std::int64_t> values;
  std::int64_t min = 0;
  std::int64_t max = 0;
};

// A finding of the lints' `anomalies` table (read when present): a marker
// at the transfer `from` -> `thread` at `time`, in the colour of its
// severity (render/timeline_style.hpp).
struct TimelineAnomaly : FindingText {  // rule(), severity(), group(), message(): finding_text.hpp
  TimeNs time = 0;
  std::int32_t thread = -1;   // index into threads: where the finding is (the thread that acted)
  std::int32_t from = -1;     // the thread that had control
  std::int32_t suspect = -1;  // the thread that most likely owes the missing record
  std::int64_t event = -1;    // event id of the record it was found at; -1: none
  std::int64_t number = 0;    // `skein lint`'s #N (anomalies.id); 0: unknown
};

// The rows a finding touches: its thread's, and that of the thread that
// had control when it names one (low <= high; low > high for a finding on
// no thread).
struct FindingRowSpan {
  std::int32_t low = INT32_MAX;
  std::int32_t high = INT32_MIN;
};

struct TimelineRow {
  std::vector<std::uint32_t> threads;  // by start
  std::vector<TimeNs> starts;          // threads' starts, for binary search
  std::vector<TimeNs> end_prefix_max;
  LargeArray<TimelineActivation> activations;
  std::vector<std::pair<TimeNs, std::uint32_t>> failures;  // (end, thread) of failed threads, by end
  // Spans drawn with no thread behind them: a level of detail's runs
  // (recorder/store/row_spans.hpp), which a frame read from the levels
  // (timeline_first_frame.hpp) draws in place of the threads and
  // activations merged into them. Sorted by start and disjoint; empty in
  // a trace loaded whole.
  std::vector<TimelineBand> line_runs;
  std::vector<TimelineBand> running_runs;
};

struct TimelineData {
  std::string source;  // the database's path
  // The owner of the database it was read from (trace_database.hpp), for
  // the readers and the writer of the work that follows the first frame;
  // null for data made otherwise (tests).
  std::shared_ptr<TraceDatabase> database;
  TimeNs first_time = 0;
  TimeNs end_time = 0;
  LargeArray<TimelineThread> threads;
  std::vector<TimelineRow> rows;
  // Rows of the trace not in `rows`, with nothing loaded on them: a window
  // read alone (timeline_window.hpp) holds only the rows of its threads,
  // and folding counts these as folded.
  std::int32_t rows_elsewhere = 0;
  // Per row, contiguous: its first start and latest end, so folding can
  // reject a row that is not alive in a window without touching it.
  std::vector<TimeNs> row_first_start;
  std::vector<TimeNs> row_last_end;
  LargeArray<TimelineEdge> edges;
  LargeArray<TimeNs> edge_times;  // edges' times, for binary search
  std::vector<TimelineBand> idle;
  std::vector<TimelineBand> gc;
  std::vector<TimelineCounter> counters;
  std::vector<TimelineAnomaly> anomalies;
  // Index for index with `anomalies`, from index_finding_rows(): a frame at
  // a coarse zoom has every finding of the trace in its window, and passes
  // over those far from the rows on screen reading 8 bytes each, not the
  // finding and its thread (render/timeline_painter.cpp). A painter that
  // finds it sized unlike `anomalies` reads every finding instead.
  std::vector<FindingRowSpan> finding_rows;
  std::vector<std::string> strings;  // interned; strings[0] == ""
  // How many distinct labels each thread that has more than one has, read
  // at load; and their texts (thread_label_lists.hpp), read at load too
  // unless TimelineLoadOptions::label_lists says later, when the loader's
  // owner sets them once, on the thread that owns this object, once read
  // (skein-view's analysis worker). Both shared with filtered copies (the
  // threads' ids, not indexes, are the keys).
  std::shared_ptr<const std::unordered_map<ThreadId, std::uint32_t>> label_counts;
  std::shared_ptr<const ThreadLabelLists> label_lists;
  std::string label_lists_error;  // why label_lists is empty, when they could not be read
  std::vector<StoredSite> sites;
  // The whole trace's run time per bin as the import stored it
  // (recorder/store/run_time_bins.hpp), read at load when asked
  // (TimelineLoadOptions::activity); nullopt when not, when the database
  // has none (an older Skein's), or for data derived otherwise (the view
  // filters), whose overview comes from its activations.
  std::optional<StoredActivity> activity;
  // The same for the subsecond heat map's cells (subsecond_heatmap.hpp).
  std::optional<StoredActivity> subsecond;
  bool layout_from_cache = false;
  // Thread ids to indexes: dense_index[id - dense_base] when the ids are
  // dense enough (the runtime numbers threads from 0), else a binary
  // search over `threads`.
  ThreadId dense_base = 0;
  std::vector<std::int32_t> dense_index;

  [[nodiscard]] const std::string& text(std::uint32_t i) const { return strings[i]; }
  [[nodiscard]] std::optional<std::uint32_t> thread_index(ThreadId id) const;
  [[nodiscard]] const StoredSite* site(std::int64_t id) const;
  // Every distinct label of `thread` (an index into threads), in the order
  // first given: empty when it has none, or while its list is still to be
  // read (labels_pending).
  [[nodiscard]] std::vector<std::string> labels_of(std::uint32_t thread) const;
  // Whether `thread` has several labels whose texts are not read yet.
  [[nodiscard]] bool labels_pending(std::uint32_t thread) const;
  // How many distinct labels `thread` has, known before their texts.
  [[nodiscard]] std::size_t label_count(std::uint32_t thread) const;
  // Every thread of `thread`'s merge chain.
  [[nodiscard]] std::vector<std::uint32_t> chain_members(std::uint32_t thread) const;
  // The thread drawn on `row` at `t`, within `slack` ns: the latest-started
  // one covering t, else the nearest; nullopt when none.
  [[nodiscard]] std::optional<std::uint32_t> thread_at(std::int32_t row, TimeNs t, TimeNs slack) const;
  [[nodiscard]] bool check_invariants() const;
};

struct TimelineLoadOptions {
  bool write_layout_cache = true;
  // Read the stored findings (`anomalies`) into TimelineData::anomalies.
  // skein-view does not: it draws its first frame without them, and its
  // analysis worker reads them after (load_stored_findings).
  bool findings = true;
  // Read every label list of the threads with several (label_lists).
  // skein-view does not: its analysis worker reads them after the first
  // frame (read_thread_label_lists).
  bool label_lists = true;
  // Read the run time per bin and per heat-map cell the import stored
  // (`activity`, `subsecond`), which only skein-view's overview strip and
  // heat map draw: up to 65,536 and 1,000,000 rows, whatever the trace's
  // size.
  bool activity = false;
};

// The findings a lint stored (recorder/store/SCHEMA.md, "anomalies"), sorted by
// time, their threads as indexes into `data`'s threads; empty when there
// are none, or when the table is not one `skein lint` wrote (a user's own
// table of that name). Reads only `data`'s thread index, so it may run on
// another thread than the one that owns `data`.
[[nodiscard]] std::vector<TimelineAnomaly> load_stored_findings(SqliteDatabase& db, const TimelineData& data);

// One row of `threads`, selected as kTimelineThreadColumns, as the
// timeline holds it (its end the trace's end while pending), its texts
// interned by `strings`; with its parent and merge target as stored (the
// layout tells an absent one from any id). Ids and times are checked
// (store_value_check.hpp).
inline constexpr std::string_view kTimelineThreadColumns =
    "id, parent, kind, site, label, created, resolved, outcome, failure, merged_into, first_run, run_time";
struct StoredTimelineThread {
  TimelineThread thread;
  std::optional<ThreadId> parent;
  std::optional<ThreadId> merged_into;
};
[[nodiscard]] Result<StoredTimelineThread> timeline_thread_from_row(SqliteStatement& q, TimeNs end_time,
                                                                   Interner& strings);

// Assembly, shared by load_timeline and the view filters
// (timeline_filter.hpp), which derive a TimelineData from another:
//   - index_threads: the id -> index table, from `threads` (sorted by id);
//   - assemble_rows: puts each thread on rows[i] with its chain head
//     heads[i] (indexes into threads), and fills every row's sorted arrays
//     except activations;
//   - place_activation: appends an activation to its thread's row; call it
//     in start order (it clips one that went backwards, keeping the row's
//     activations sorted and disjoint).
//   - derive_idle: the idle bands, each from an idle record until the next
//     activation start (or the trace's end), overlapping ones merged; and
//     the gc bands, sorted and merged where they overlap (merge_gc_bands):
//     a band drawn where any pause ran;
//   - timeline_finding: a stored finding with its threads as indexes.
void derive_idle(std::vector<TimeNs>& activation_starts, std::vector<TimeNs>& idle_starts, TimelineData& data);
void merge_gc_bands(std::vector<TimelineBand>& gc);
[[nodiscard]] TimelineAnomaly timeline_finding(StoredFinding&& finding, const TimelineData& data);
void index_threads(TimelineData& data);
void assemble_rows(TimelineData& data, const std::vector<std::int32_t>& rows, const std::vector<std::uint32_t>& heads,
                   std::int32_t row_count);
// assemble_rows in two steps, for a caller that keeps the grouping (the
// view filters' plans): the threads of each row by start (ties by index),
// given each thread's start, as CSR lists of indexes into threads; and the
// rows filled from them.
struct RowMembers {
  std::vector<std::uint32_t> first;    // row r's are threads[first[r] .. first[r + 1])
  std::vector<std::uint32_t> threads;
};
[[nodiscard]] RowMembers group_rows(std::span<const TimeNs> starts, const std::vector<std::int32_t>& rows,
                                    std::int32_t row_count);
void assemble_grouped_rows(TimelineData& data, const std::vector<std::int32_t>& rows,
                           const std::vector<std::uint32_t>& heads, const RowMembers& members);
void place_activation(TimelineData& data, TimelineActivation a);
// Fills finding_rows from anomalies and the threads' rows: call it when
// either changes.
void index_finding_rows(TimelineData& data);

// Reads everything above from an opened store. Also computes the layout,
// or reads it from the cache (layout_cache.hpp), writing the cache after a
// computation when allowed.
[[nodiscard]] Result<TimelineData> load_timeline(TraceStore& store, const TimelineLoadOptions& options = {});

}  // namespace skein
