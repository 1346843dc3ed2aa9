// chrome_trace_export.hpp — `skein export --format chrome`: a trace database
// as Chrome Trace Event JSON (the "JSON Object Format"), which Perfetto UI
// and chrome://tracing open.
//
// What goes where (P is the header's pid when it has one, else 1):
//   - one track (pid P, tid) per thread, named by its label (an unlabelled
//     thread by its kind and id, "bind 42"); tid is the thread id when every
//     id lies in 0..2^31-3, otherwise threads are numbered 1, 2... in id
//     order. Two more tracks: "scheduler" (tid 2^31-1: the thread id -1, and
//     the loop's idle spans) and "gc" (tid 2^31-2: runtime pauses);
//   - a complete slice (`"ph":"X"`, cat "thread") per thread, from its
//     creation to its resolution (the trace's end when pending), widened
//     when needed to enclose its activations (a thread may run on after
//     resolving itself), so that slices nest; the exact times, label, kind,
//     parent, site, outcome and failure are in its args;
//   - inside it a slice "run" (cat "run") per activation;
//   - per causal edge (SCHEMA.md, the edges view) a slice of duration 0
//     (cat "edge") on the source's track and one on the target's, at the
//     edge's time, named "spawn → poll" and "spawn ← main", and between
//     them a flow: `"ph":"s"` on the source's track and `"ph":"f"`,
//     `"bp":"e"` on the target's, with the same integer `id` (the event id),
//     `cat` ("causality") and `name` (the edge's kind), each at exactly the
//     `ts` of its edge slice. Chrome's DevTools binds a flow event only to a
//     slice with the same pid, tid and ts; Perfetto binds it to the slice
//     enclosing it. An edge from a thread to itself gets its slice and no
//     flow;
//   - labels as instant events (`"ph":"i"`, args.text) on their thread's
//     track, counters as `"ph":"C"` (args.value), `idle` as a slice on the
//     scheduler's track up to the next record, `gc` as a slice of its
//     duration on the gc track, `lost` as a process-wide instant;
//   - the lost wake-ups as thread instants (`"ph":"i"`, `"s":"t"`, cat
//     "lost-wakeup"): a `drop` named "drop" on the dropped thread's track
//     (args.by, the thread that let go), a `no-waiter` named "no-waiter" on
//     the signalling thread's track (args.object, args.reason, escaped as
//     every string is); both carry args.event. A `queued` is not drawn: its
//     thread's spawn edge is already at the same place.
// Times: ts and dur are microseconds written exactly from the integer
// nanoseconds (json_stream.hpp), so equal times are equal numbers.
//
// Streaming: threads, sites and one small extent per thread are held in
// memory; activations and events are read from the database and written as
// they come, so a million-record trace needs memory for its threads only.
#pragma once

#include <cstdint>
#include <memory>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {

inline constexpr std::int64_t kChromeSchedulerTid = 2147483647;
inline constexpr std::int64_t kChromeGcTid = 2147483646;

// Writes the JSON to `sink` and closes it; the count of trace events.
[[nodiscard]] Result<std::uint64_t> export_chrome_trace(TraceStore& store, std::unique_ptr<ByteSink> sink);

}  // namespace skein
