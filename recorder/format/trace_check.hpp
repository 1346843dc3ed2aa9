// trace_check.hpp — validates a whole trace and gathers what `skein check`
// prints: records per head, threads, time span, errors and warnings.
//
// Beyond the grammar (TraceReader), the check warns about what a trace may
// legally contain but usually means trouble: time going backwards, a spawn
// naming a site that no earlier (site ...) record declared, a site declared
// twice, records after (end), and a trace with no (end) (cut short).
// Memory grows with the number of distinct threads and sites, not records.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/format/trace_reader.hpp"

namespace skein {

struct TraceCheckOptions {
  std::size_t max_errors_kept = 100;   // beyond this, errors are only counted
  std::size_t max_warnings_kept = 100;
};

struct TraceCheckReport {
  std::string name;
  std::optional<TraceHeader> header;
  std::array<std::uint64_t, kRecordHeadCount> records_per_head{};
  std::uint64_t records = 0;
  std::vector<UnknownHead> unknown_heads;
  std::uint64_t threads = 0;  // distinct ids named, the scheduler (-1) excluded
  std::optional<TimeNs> first_time;
  std::optional<TimeNs> last_time;
  bool ended_cleanly = false;  // an (end) record was read
  bool truncated = false;
  std::vector<Diagnostic> errors;  // the first max_errors_kept
  std::uint64_t error_count = 0;
  std::vector<Diagnostic> warnings;  // the first max_warnings_kept
  std::uint64_t warning_count = 0;

  [[nodiscard]] bool valid() const { return error_count == 0; }
};

[[nodiscard]] TraceCheckReport check_trace(TraceReader& reader, const TraceCheckOptions& options = {});

}  // namespace skein
