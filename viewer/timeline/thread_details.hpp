// thread_details.hpp — everything the viewer knows about one thread, for
// the "Thread details" dock and its "Copy details" text: id, labels, kind,
// creation site, parent chain, children, the threads it waits on, that read
// it, resolved it and notified it, its outcome, its times and its edges.
// Plain code over TimelineData (timeline_data.hpp); no Qt.
//
// Computed on demand for one thread (a click): the children come from one
// pass over `threads` (their `parent`), the relations and the edge list from
// one pass over `edges`, so the cost is O(threads + edges) per call and
// nothing is precomputed or kept.
//
// Invariants of a ThreadDetails:
//   - every time is a record time, from the trace's origin, as every view and
//     the CLI show it (FORMAT.md, "Times as Skein shows them");
//   - thread references are indexes into data.threads; -1 stands for the
//     scheduler or a thread the trace does not know;
//   - parent_chain lists the ancestors, root first, ending with the direct
//     parent (the thread itself is not in it); it stops at a parent the
//     trace does not know and never loops;
//   - children are sorted by (start, id); each relation list holds each
//     other thread once, in the order of its first edge, with the number of
//     such edges; `edges` is in the data's (time) order, an edge from the
//     thread to itself listed once, as incoming.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"

namespace skein {

// Another thread linked to this one by edges of one kind.
struct ThreadRelation {
  std::int32_t thread = -1;  // index into threads; -1: the scheduler / unknown
  TimeNs first_time = 0;     // the first such edge's time (a record time)
  std::uint32_t count = 0;   // how many such edges
};

// One edge touching the thread.
struct ThreadEdgeItem {
  TimeNs time = 0;  // a record time
  EdgeKind kind = EdgeKind::spawn;
  bool outgoing = false;     // the thread is the edge's source (not a self-edge)
  std::int32_t other = -1;   // the thread at the other end; -1: the scheduler / unknown
  std::string reason;        // a notify's reason ("" otherwise)
};

struct ThreadDetails {
  std::uint32_t index = 0;  // into data.threads
  ThreadId id = 0;
  std::string label;  // its row text: the first of its labels joined by " · " (then "+N more"); "" when none
  std::vector<std::string> labels;  // every distinct label, in the order first given
  std::size_t label_count = 0;      // how many there are, known while labels_pending
  bool labels_pending = false;      // several labels, their texts not read yet (TimelineData::labels_pending)
  std::string labels_error;         // several labels, whose texts could not be read
  std::string kind;
  bool has_site = false;
  std::string site_file;  // when has_site
  std::int64_t site_line = 0;
  std::string site_function;
  ThreadId parent = -1;  // its parent's id; -1: none or the scheduler
  std::vector<std::uint32_t> parent_chain;
  std::vector<std::uint32_t> children;
  std::vector<ThreadRelation> waits_on;     // wait edges from it
  std::vector<ThreadRelation> read_by;      // read edges to it
  std::vector<ThreadRelation> resolved_by;  // resolve edges to it
  std::vector<ThreadRelation> notified_by;  // notify edges to it
  ThreadOutcome outcome = ThreadOutcome::pending;
  std::string failure;  // the failure message ("" when none)
  ThreadId merged_into = -1;
  TimeNs created = 0;
  std::optional<TimeNs> first_run;  // nullopt: it never ran
  std::optional<TimeNs> resolved;   // nullopt: pending at the end
  TimeNs lifetime = 0;              // resolved (or the trace's end) - created, as `skein summary`
  TimeNs run_time = 0;
  std::vector<ThreadEdgeItem> edges;
};

[[nodiscard]] ThreadDetails thread_details(const TimelineData& data, std::uint32_t thread_index);

// "thread 3 (poll)", "thread 3" without a label, "the scheduler" for -1.
[[nodiscard]] std::string thread_display_name(const TimelineData& data, std::int32_t thread_index);
// "ok", "fail", "cancel", "pending".
[[nodiscard]] std::string_view thread_outcome_name(ThreadOutcome outcome);
// "spawn", "wait", "read", "notify", "resolve".
[[nodiscard]] std::string_view edge_kind_name(EdgeKind kind);
// The edge seen from the thread: "created thread 4", "created by thread 0",
// "waits on thread 1", "waited on by ...", "read thread 1", "read by ...",
// "notified thread 4 (io)", "notified by ... (io)", "resolved thread 2",
// "resolved by ...".
[[nodiscard]] std::string describe_thread_edge(const TimelineData& data, const ThreadEdgeItem& edge);

// The "Copy details" text: one fact a line, lists indented (see
// thread_details_test.cpp for an exact example).
[[nodiscard]] std::string thread_details_text(const TimelineData& data, const ThreadDetails& details);
[[nodiscard]] std::string thread_details_text(const TimelineData& data, std::uint32_t thread_index);

}  // namespace skein
