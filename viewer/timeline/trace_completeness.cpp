// trace_completeness.cpp — reads the meta table once, keeping only the five
// keys that matter (integers parsed with strtoll, so junk reads as 0), and
// the per-head record counts for `snapshot`. Opening by path retries, every
// 50 ms until kCompletenessPatienceMs has passed, an open or a read that
// fails, since a lock can be met before a busy timeout can be set; the last
// error is returned. The notice joins its sentences with two spaces.
#include "viewer/timeline/trace_completeness.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <thread>

#include "viewer/analysis/units.hpp"

namespace skein {

Result<TraceCompleteness> read_trace_completeness(TraceStore& store) {
  auto meta = store.meta();
  if (!meta) return meta.error();
  auto counts = store.record_counts();
  if (!counts) return counts.error();
  TraceCompleteness c;
  const auto integer = [](const std::string& v) { return std::strtoll(v.c_str(), nullptr, 10); };
  for (const auto& [key, value] : meta.value()) {
    if (key == "ended") c.ended = integer(value) != 0;
    else if (key == "truncated") c.truncated = integer(value) != 0;
    else if (key == "lost_records") c.lost_records = integer(value);
    else if (key == "lost_records_saturated") c.lost_records_saturated = integer(value) != 0;
    else if (key == "header.mode") c.ring = value == "ring";
  }
  for (const HeadCount& h : counts.value())
    if (h.head == "snapshot" && h.records > 0) c.snapshot = true;
  // A database made before the key was kept: a sum at its ceiling may be one.
  if (c.lost_records == std::numeric_limits<std::int64_t>::max()) {
    bool marked = false;
    for (const auto& [key, value] : meta.value()) marked = marked || key == "lost_records_saturated";
    if (!marked) c.lost_records_saturated = true;
  }
  return c;
}

Result<TraceCompleteness> read_trace_completeness(TraceDatabase& database) {
  using Clock = std::chrono::steady_clock;
  const auto give_up = Clock::now() + std::chrono::milliseconds(kCompletenessPatienceMs);
  for (;;) {
    // Opening checks the schema before a busy timeout can be set: a lock
    // met there is met again after a pause.
    auto store = database.reader();
    if (store) {
      sqlite3_busy_timeout(store.value().database().handle(), kCompletenessPatienceMs);
      auto read = read_trace_completeness(store.value());
      if (read || Clock::now() >= give_up) return read;
    } else if (Clock::now() >= give_up) {
      return store.error();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string trace_completeness_notice(const TraceCompleteness& c) {
  std::string out;
  const auto add = [&out](const std::string& sentence) { out += (out.empty() ? "" : "  ") + sentence; };
  if (!c.ended) {
    if (c.snapshot)
      add("This trace has no end record: it is a snapshot of a running program, so threads pending at its end "
          "may still have been waiting, and may have settled later.");
    else
      add("This trace has no end record: it was cut short (the program was stopped, crashed or is still "
          "running), so threads pending at its end may still have been waiting.");
  }
  if (c.truncated) add("The trace file stops inside a record: its last record is lost.");
  if (c.ring)
    add("It was recorded in ring mode: only the newest records were kept, so the start of the run is missing.");
  if (c.lost_records > 0)
    add("The recorder dropped " + std::string(c.lost_records_saturated ? "at least " : "") +
        group_thousands(c.lost_records) + (c.lost_records == 1 && !c.lost_records_saturated ? " record" : " records") +
        ": causes and effects around the gaps may be missing.");
  return out;
}

}  // namespace skein
