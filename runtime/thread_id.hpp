// thread_id.hpp — the identity of a thread (a promise, in Lwt's sense) as the
// trace names it.
//
// Ids are plain integers so the recorder can use them as they are:
//   -1  the scheduler (the loop in run(); "nobody")
//    0  the program's main thread (the code that calls run)
//   1.. every promise the runtime creates, counted up in creation order
//   -2  kNoThread: a constant promise (resolved(), failed()) that is not a
//       thread and is never named in a trace.
// The alias is the same as recorder/format/record.hpp's, so both headers can meet in
// one translation unit; the constants live in skein::trace to keep apart.
#pragma once

#include <cstdint>

namespace skein {
using ThreadId = std::int64_t;
}  // namespace skein

namespace skein::trace {
inline constexpr ThreadId kScheduler = -1;
inline constexpr ThreadId kMainThread = 0;
inline constexpr ThreadId kNoThread = -2;
}  // namespace skein::trace
