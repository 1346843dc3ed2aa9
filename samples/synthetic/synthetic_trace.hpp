// synthetic_trace.hpp — generates a trace with the shape of a real
// cooperative program, for benchmarks, fuzz seeds and the demo until the
// runtime records real ones.
//
// The generator simulates a small Lwt-style program rather than drawing heads
// at random: threads are spawned by the running thread with a kind and a
// creation site, bind-like threads wait on an input and read it when it
// resolves, the scheduler switches between runnable threads and idles,
// counters move, some threads fail and a few merge into their tail call. The
// mix of heads and the size of fields therefore match what the runtime
// writes (and the 2014 MirageOS traces), which is what the format's
// benchmarks need. Deterministic for a given seed.
//
// Every string a record points to is static, so the records may be kept.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recorder/format/record.hpp"

namespace skein::samples {

struct SyntheticOptions {
  std::uint64_t records = 1'000'000;  // about this many (the last step may add a few)
  std::uint64_t seed = 1;
  // Mean time between records: a busy scheduler records every few tens of
  // ns; idle spans are modelled by the idle/switch records, not by gaps.
  std::int64_t mean_gap_ns = 100;
};

[[nodiscard]] TraceHeader synthetic_header(const SyntheticOptions& options);
[[nodiscard]] std::vector<Record> synthetic_trace(const SyntheticOptions& options);
// The same trace as the text of a trace file (FORMAT.md), header first.
[[nodiscard]] std::string synthetic_trace_text(const SyntheticOptions& options);

}  // namespace skein::samples
