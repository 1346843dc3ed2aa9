// model_derivation.hpp — derives the trace model the viewer and the lints
// read (threads, activations, sites, the event block index) from the record
// stream, in one pass, in record order. The counters table needs no
// derivation: it is the counter records themselves, gathered in sorted runs
// of bounded size (counter_runs.hpp).
//
// The store (trace_import.hpp) feeds every record to add() and writes what
// finish() returns; no SQL here, so the rules below are tested on plain
// records (tests/recorder/store/model_derivation_test.cpp) and the tables in
// SCHEMA.md are their image.
//
// Rules (SCHEMA.md repeats them for users of the database):
//   1. Threads are named by their ids in the source. -1, the scheduler, is
//      nobody: never a thread. A spawn creates its child. A record that
//      names a thread no spawn has created creates it implicitly, at that
//      record, with a warning (not for 0, the main thread, which no record
//      spawns). A later spawn of an implicit thread fills in its parent,
//      kind and site; a second spawn of a spawned thread is a warning.
//   2. The running thread is the actor of the latest record that has one
//      (record.hpp's actor_of), except label, drop and no-waiter: labelling
//      a thread does not run it, and a drop or a no-waiter says what became
//      of a waiter or a signal, not who took control (the runtime records
//      them as the thread already running; the causality replay skips them
//      too). Their threads are still named (rule 1; a no-waiter's OBJECT is
//      no thread). -1 as actor, an idle and the end record mean nobody runs. An
//      activation is a maximal stretch during which one thread runs: from
//      the record that made it the running thread to the record that made
//      another (or nobody) the running one, or the trace's end (its latest
//      time). So a trace with switches gets "from a switch to the next
//      switch", and a trace without (MirageOS callbacks running inside
//      other threads' resolvers) gets the runs of each actor. A thread's
//      run time is the sum of its activations; its first run is the start
//      of its first activation.
//   3. A resolve settles its thread: the first one counts; another is a
//      warning and is ignored.
//   4. merge A B: A, still pending, now behaves as B; in the viewer B
//      continues on A's row. Merges join threads into merge groups, one
//      logical thread each: Skein's runtime records a merged thread's later
//      events under B's id (chains A->B->C), the 2014 MirageOS traces under
//      A's (a loop absorbs each iteration: A->B1, A->B2, ...); groups cover
//      both. merged_into is B of the thread's latest merge. A merge of two
//      threads already in one group (a cycle, or the same merge twice) is
//      ignored with a warning. A thread no resolve settles itself takes its
//      group's resolution: that of the group's first resolve record.
//   5. Time going backwards is a warning; records keep their order and
//      times. An activation never ends before it starts (its end is the
//      later of the two times).
//   6. A thread's labels are the distinct texts of the label records that
//      name it, in the order first given; its label is the first. A thread
//      with two or more has them all in thread_labels, so that a reader
//      can show its row without reading its records. Texts are compared
//      exactly: "" is a label, and "a" and "A" are two.
//
// Cost: O(1) hash-map work per record. Memory grows with threads (a row,
// an index slot, a span each, and the texts a thread keeps: its kind, first
// label and failure), with sites and with the distinct labels of threads
// that have several (rule 6, the rows it writes), never with records: activations and
// event blocks are handed over as they close (take_activations,
// take_blocks), counter records are not held here, and warnings are kept
// up to kMaxKeptWarnings. A text is interned only for a row that keeps it.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/rtree_bulk_load.hpp"
#include "recorder/store/store_schema.hpp"

namespace skein {

// A record's position in the trace, from 1: event id in the database.
using EventId = std::int64_t;

// Texts (kinds, labels, failure messages, site files and
// functions) are stored once; 0 is "none".
using TextId = std::uint32_t;
inline constexpr TextId kNoText = 0;

inline constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

enum class DerivationWarning : std::uint8_t {
  implicit_thread,  // rule 1
  spawned_again,    // rule 1
  resolved_again,   // rule 3
  merge_cycle,      // rule 4
  time_backwards,   // rule 5
  site_redeclared,  // a site id declared again with other contents; the first is kept
};
inline constexpr std::size_t kDerivationWarningKinds = 6;
// "implicit-thread", "spawned-again", ...: warnings.kind in the database.
[[nodiscard]] std::string_view derivation_warning_name(DerivationWarning kind);

struct ThreadRow {
  ThreadId id = 0;
  ThreadId parent = 0;       // when has_parent
  ThreadId merged_into = 0;  // when merged
  SiteId site = 0;           // when has_site
  TimeNs created = 0;
  TimeNs first_run = kNoTime;
  TimeNs resolved = kNoTime;  // kNoTime: pending at the end of the trace
  EventId resolve_event = 0;  // the resolve record that settled it (its group's, when by_group)
  TimeNs run_time = 0;
  EventId first_event = 0;  // the first and last records naming the thread
  EventId last_event = 0;
  std::int64_t first_activation = 0;  // its first and last activations; 0: none
  std::int64_t last_activation = 0;
  TextId kind = kNoText;
  TextId label = kNoText;  // the first label
  TextId failure = kNoText;
  Outcome outcome = Outcome::ok;  // when resolved != kNoTime
  bool has_parent = false;
  bool has_site = false;
  bool merged = false;
  bool implicit = false;  // no spawn record created it
  bool spawned = false;
  bool resolved_by_group = false;  // resolution taken from its merge group
};

// Rule 6: label number `position` (from 0, the thread's first label) of a
// thread with two or more distinct labels: thread_labels.
struct ThreadLabelRow {
  ThreadId thread = 0;
  std::int64_t position = 0;
  TextId label = kNoText;
};

// Activations are numbered from 1 in the order they start, which is the
// order they end (one thread runs at a time): activations.id.
struct ActivationRow {
  std::int64_t id = 0;
  ThreadId thread = 0;
  TimeNs start = 0;
  TimeNs end = 0;
  EventId event = 0;  // the record that made the thread the running one
};

struct SiteRow {
  SiteId id = 0;
  TextId file = kNoText;
  std::int64_t line = 0;
  TextId function = kNoText;
};

// The block range index: per kEventBlockSize consecutive events, the
// smallest and largest time among them (kNoTime when none has a time), and
// the first and last activations that start at one of them (0: none).
struct EventBlockRow {
  std::int64_t id = 0;
  EventId first_event = 0;
  EventId last_event = 0;
  TimeNs start = kNoTime;
  TimeNs end = kNoTime;
  std::int64_t first_activation = 0;
  std::int64_t last_activation = 0;
  // The block's records, packed (event_block_codec.hpp). Filled by the
  // import, which encodes each record as it reads it; the derivation
  // leaves it empty.
  std::string records;
};

struct DerivationWarningRow {
  DerivationWarning kind{};
  EventId event = 0;
  Diagnostic diagnostic;  // severity warning; where, when the caller could say
};

// Interned texts. Views stay valid while the pool lives.
class TextPool {
 public:
  TextPool();
  ~TextPool();
  TextPool(TextPool&&) noexcept;
  TextPool& operator=(TextPool&&) noexcept;
  [[nodiscard]] TextId intern(std::string_view text);
  [[nodiscard]] std::string_view get(TextId id) const;
  [[nodiscard]] std::size_t size() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

struct DerivedModel {
  TextPool texts;
  std::vector<ThreadRow> threads;          // by id
  std::vector<ActivationRow> activations;  // by event (so by start: one thread runs at a time),
                                           // those not taken by take_activations
  std::vector<SiteRow> sites;              // by id
  std::vector<ThreadLabelRow> thread_labels;  // by thread, then position (rule 6)
  std::vector<EventBlockRow> blocks;       // by id, those not taken by take_blocks
  // thread_spans, the R*Tree over threads: per thread, created to resolved
  // (to the trace's end while pending), packed for the writer.
  PackedRtree thread_spans;
  // The row of the timeline each thread is drawn on (thread_layout.hpp),
  // rows[i] for threads[i]: placed here, on the parser's thread, so the
  // writer only stores it (layout_v2, derived_tables.hpp).
  std::vector<std::int32_t> layout_rows;
  std::array<std::uint64_t, kRecordHeadCount> records_per_head{};
  std::uint64_t records = 0;
  TimeNs first_time = kNoTime;  // of the first record with a time
  TimeNs end_time = kNoTime;    // the latest time of any record: the trace's end
  bool ended = false;           // an (end) record was seen
  TimeNs longest_gc = 0;        // the longest gc record's duration: how far before a window a gc may start
  std::uint64_t lost_records = 0;  // the sum of (lost COUNT) records, held at INT64_MAX
  bool lost_records_saturated = false;  // the true sum is past INT64_MAX
  std::array<std::uint64_t, kDerivationWarningKinds> warning_counts{};

  [[nodiscard]] std::string_view text(TextId id) const { return texts.get(id); }
};

// The second half of finish(): packs the threads' R*Tree into nodes of
// `span_node_bytes` and places each thread on its row (thread_layout.hpp).
// Reads m.threads, m.texts and the times; writes only m.thread_spans and
// m.layout_rows, so another thread may read the threads meanwhile (the
// import writes them while this runs).
void place_threads(DerivedModel& m, std::size_t span_node_bytes);

class ModelDerivation {
 public:
  static constexpr std::size_t kMaxKeptWarnings = 100;
  // Says where the record being added is (file, line or "byte N: "), for
  // warnings; asked only when a warning is raised.
  using Locate = std::function<Diagnostic()>;

  explicit ModelDerivation(Locate locate = {});
  ~ModelDerivation();
  ModelDerivation(const ModelDerivation&) = delete;
  ModelDerivation& operator=(const ModelDerivation&) = delete;

  // The next record of the trace (its id: records() after the call).
  void add(const Record& record);

  [[nodiscard]] std::uint64_t records() const;
  // Moves the activations closed so far to the end of `into`, in order;
  // finish() gives only those closed after the last call. Lets the import
  // write them as it goes rather than hold them all.
  void take_activations(std::vector<ActivationRow>& into);
  // The same for the event blocks completed so far (every block but the
  // one the latest record is in).
  void take_blocks(std::vector<EventBlockRow>& into);
  [[nodiscard]] std::uint64_t warning_count() const;
  // The first kMaxKeptWarnings warnings.
  [[nodiscard]] const std::vector<DerivationWarningRow>& warnings() const;

  // Ends the pass: finish_threads(), then place_threads(). Call once.
  [[nodiscard]] DerivedModel finish(std::size_t span_node_bytes = rtree_node_bytes(kStorePageSize));
  // The first half of finish(): closes the running activation at the
  // trace's end, settles merged threads from their groups, sorts the
  // threads. The threads' rows are final; thread_spans and layout_rows
  // are still empty. Call once, instead of finish().
  [[nodiscard]] DerivedModel finish_threads();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace skein
