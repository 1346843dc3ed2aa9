// summary.hpp — what `skein summary` computes, in the spirit of `strace -c`
// and `perf trace -s`: threads grouped by label, kind or creation site, with
// each group's share of the run time, its total run time, thread and
// failure counts, and min / avg / max / stddev of the threads' lifetimes
// and run times. Also the `--duration` list (threads that lived or ran
// longer than a bound, like `perf trace --duration`). Plain code over rows
// read from the store (trace_store.hpp); no Qt, no SQL; the command line
// only parses options and prints.
//
// Definitions (also in `skein summary --help`):
//   - lifetime: resolved - created; a thread pending at the end lives until
//     the trace's end time;
//   - run time: the sum of its activations (SCHEMA.md, activations);
//   - % time: the group's run time over all threads' run time;
//   - a failure: outcome fail (cancel is not a failure);
//   - stddev: the population standard deviation over the group's threads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"

namespace skein {

enum class SummaryGrouping : std::uint8_t { label, kind, site };
[[nodiscard]] std::optional<SummaryGrouping> summary_grouping_from_name(std::string_view name);

enum class SummaryColumn : std::uint8_t {
  time, threads, failures, life_min, life_avg, life_max, life_stddev, run_min, run_avg, run_max,
  run_stddev, name
};
// "time" (or "seconds"), "threads", "failures", "life-min", "life-avg",
// "life-max", "life-stddev", "run-min", "run-avg", "run-max", "run-stddev",
// "name".
[[nodiscard]] std::optional<SummaryColumn> summary_column_from_name(std::string_view name);
[[nodiscard]] std::string_view summary_column_names();

struct DurationStats {
  double min = 0;  // ns
  double avg = 0;
  double max = 0;
  double stddev = 0;
};

struct SummaryRow {
  std::string name;
  double percent_time = 0;
  TimeNs run_time = 0;  // the group's total, ns
  std::uint64_t threads = 0;
  std::uint64_t failures = 0;
  DurationStats lifetime;
  DurationStats run;
};

struct Summary {
  std::vector<SummaryRow> rows;
  SummaryRow total;  // every thread, named "total"
};

// Groups `threads` (sites name site groups: "function (file:line)");
// `end_time` is the trace's end, for pending threads' lifetimes. Rows come
// sorted by `sort` (numbers descending, names ascending; ties by name).
[[nodiscard]] Summary summarize(const std::vector<StoredThread>& threads,
                                const std::vector<StoredSite>& sites, TimeNs end_time, SummaryGrouping by,
                                SummaryColumn sort = SummaryColumn::time);

[[nodiscard]] TimeNs thread_lifetime(const StoredThread& t, TimeNs end_time);

// The threads whose lifetime or run time exceeds `bound`, by creation time.
[[nodiscard]] std::vector<StoredThread> threads_longer_than(const std::vector<StoredThread>& threads,
                                                            TimeNs end_time, TimeNs bound);

// The table `skein summary` prints, and the --duration list: text for a
// terminal, names, kinds, labels and outcomes through terminal_text()
// (output_escape.hpp).
[[nodiscard]] std::string render_summary(const Summary& summary, SummaryGrouping by);
[[nodiscard]] std::string render_long_threads(const std::vector<StoredThread>& threads, TimeNs end_time);

}  // namespace skein
