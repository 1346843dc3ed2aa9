// counter_runs.hpp — the rows of the counters table (SCHEMA.md,
// "counters"), gathered from the counter records as they come into sorted
// runs of bounded size, for the writer to insert run by run.
//
// Why runs. The table is keyed by (name, time, value, event), not by
// arrival, so a row inserted as its record comes lands inside the B-tree
// (at the right edge of its counter's range), which costs SQLite about
// twice an append. Rows held and sorted go in as appends; holding them all
// made memory grow with the trace (a gzip bomb of counters). So rows are
// held up to kCounterRunBytes, sorted and handed over; a trace whose
// counters fit in one run (most do) is written as one sorted append, a
// larger one as a sorted run per kCounterRunBytes, each an append for the
// last counter name and a run at the right edge of each other's range.
//
// Invariants:
//   1. A run's rows are sorted by the key: name (as text), time, value,
//      event; its names are interned in the run's own pool, which lives as
//      long as the run.
//   2. A run's bytes (its rows, its names' text and their bookkeeping)
//      stay within kCounterRunBytes plus one name: a row that would take it
//      past starts the next run. With kCounterRunBytes a power of two, the
//      rows' vector, growing by doubling, never holds more than that either
//      (half again while it grows).
//   3. Every record added is in exactly one run handed over, in the order
//      of the runs (take_full, then finish).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/store/model_derivation.hpp"

namespace skein {

inline constexpr std::size_t kCounterRunBytes = 32u << 20;  // 32 MiB: a million rows and more

struct CounterRow {
  TextId name = kNoText;  // in the run's pool
  TimeNs time = 0;
  std::int64_t value = 0;
  EventId event = 0;
};

// One counter's smallest and largest value over the whole trace.
struct CounterRange {
  std::string name;
  std::int64_t min = 0;
  std::int64_t max = 0;
};

struct CounterRun {
  TextPool names;
  std::vector<CounterRow> rows;  // by (name, time, value, event) once handed over
};

class CounterRuns {
 public:
  explicit CounterRuns(std::size_t max_bytes = kCounterRunBytes);

  // A counter record: event `event` says counter `name` is `value` at `time`.
  void add(std::string_view name, TimeNs time, std::int64_t value, EventId event);
  // The runs filled since the last call, sorted, in order (usually none;
  // one at a time when names are short).
  [[nodiscard]] std::vector<std::unique_ptr<CounterRun>> take_full();
  // The runs not taken yet, the last one included, sorted (perhaps one
  // empty run). Call once, at the end.
  [[nodiscard]] std::vector<std::unique_ptr<CounterRun>> finish();
  // Every counter's range over the records added, by name.
  [[nodiscard]] std::vector<CounterRange> ranges() const;

 private:
  [[nodiscard]] std::unique_ptr<CounterRun> take_sorted();

  std::size_t max_bytes_;
  std::unique_ptr<CounterRun> run_;
  std::vector<std::unique_ptr<CounterRun>> full_;
  std::size_t text_bytes_ = 0;  // the names interned in run_, with their bookkeeping
  std::map<std::string, std::pair<std::int64_t, std::int64_t>, std::less<>> ranges_;  // name -> (min, max)
};

}  // namespace skein
