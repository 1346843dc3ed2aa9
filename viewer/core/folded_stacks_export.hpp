// folded_stacks_export.hpp — `skein export --format folded`: run time as
// folded stacks, the input of flamegraph.pl and inferno-flamegraph.
//
// A line per stack, sorted by the stack's text: `root;child;leaf COUNT`,
// frames joined by ';' with no space, then one space and COUNT, the run time
// in microseconds (the sum of the activations, SCHEMA.md) of every thread
// with that stack, rounded to the nearest microsecond; stacks whose total
// rounds to 0 are left out.
//
// A thread's stack is its label ancestry: the labels of the chain of its
// creators (threads.parent, up to a thread no spawn created or the
// scheduler) that have a label, outermost first, then its own label. A
// thread without a label adds no frame, so the run time of unlabelled
// helpers (binds, maps, waits) counts toward the nearest labelled creator,
// as a flame graph counts a callee's samples in its caller's frame. A
// thread with no labelled thread in its ancestry has the stack
// "(no label)".
//
// In frame names, ';' becomes ':' (it would split the frame), newlines and
// other control characters become spaces; spaces are kept (both tools
// split COUNT off at the last space); an empty label is "(empty label)".
//
// A parent cycle (impossible from an import, possible in a database made
// elsewhere) ends the chain where it closes.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "recorder/byte_sink.hpp"
#include "recorder/diagnostic.hpp"
#include "recorder/trace_store.hpp"

namespace skein {

struct FoldedStack {
  std::string frames;  // "root;child;leaf"
  TimeNs run_time = 0;  // ns
};

// The stacks of `threads` (any order), sorted by frames, with their summed
// run time in ns (zero totals included).
[[nodiscard]] std::vector<FoldedStack> folded_stacks(const std::vector<StoredThread>& threads);

// A label as one frame: ';' to ':', control characters to spaces.
[[nodiscard]] std::string folded_frame_name(std::string_view label);

// Writes the lines to `sink` and closes it; the count of lines.
[[nodiscard]] Result<std::uint64_t> export_folded_stacks(TraceStore& store, std::unique_ptr<ByteSink> sink);

}  // namespace skein
