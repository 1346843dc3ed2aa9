// trace_completeness.hpp — what a trace database says is missing from its
// trace, and the one sentence skein-view's banner shows about it: no
// `(end)` record (cut short, or a `(snapshot)` of a running program), a
// file cut mid-record, records the recorder dropped (`(lost COUNT)`), and
// a flight recorder's trace (header `mode ring`) that kept only its newest
// records. recorder/store/SCHEMA.md defines the meta keys read here (`ended`,
// `truncated`, `lost_records`, `lost_records_saturated`, `header.mode`) and
// the `heads` table whose `snapshot` count says a snapshot record was read. No Qt; it runs SQL (and
// may wait for a lock), so the viewer calls read_trace_completeness on a
// worker thread.
#pragma once

#include <cstdint>
#include <string>

#include "recorder/store/trace_database.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {

struct TraceCompleteness {
  bool ended = true;      // an (end) record was read
  bool snapshot = false;  // a (snapshot) record: taken from a program still running
  bool truncated = false; // the file stops inside a record (a partial line, a gzip stream cut short)
  bool ring = false;      // recorded in ring mode: the oldest records were overwritten
  std::int64_t lost_records = 0;
  // lost_records is the ceiling of its sum (SCHEMA.md), or may be: a
  // database made before `lost_records_saturated` was kept.
  bool lost_records_saturated = false;

  [[nodiscard]] bool complete() const { return ended && !truncated && !ring && lost_records <= 0; }
};

// Reads the meta keys and the snapshot count; a key that is absent keeps
// the field's default (a database without `ended` is taken as ended). An
// error reading them is returned, never taken for "complete".
[[nodiscard]] Result<TraceCompleteness> read_trace_completeness(TraceStore& store);
// Reads it through a reader of its own from `database`'s owner. Another
// connection may be writing to it meanwhile (the layout cache, a lint
// storing its findings): a lock is waited for, and an open that meets one
// is tried again, for up to kCompletenessPatienceMs.
inline constexpr int kCompletenessPatienceMs = 3000;
[[nodiscard]] Result<TraceCompleteness> read_trace_completeness(TraceDatabase& database);

// The banner's text: "" for a complete trace, else one sentence for each
// thing missing, in the order end, truncation, ring, lost records.
[[nodiscard]] std::string trace_completeness_notice(const TraceCompleteness& c);

}  // namespace skein
