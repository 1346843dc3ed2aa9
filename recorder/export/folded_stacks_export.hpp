// folded_stacks_export.hpp — `skein export --format folded`: run time as
// folded stacks, the input of flamegraph.pl and inferno-flamegraph.
//
// A line per stack: `root;child;leaf COUNT`, frames joined by ';' with no
// space, then one space and COUNT, the run time in microseconds (the sum of
// the activations, SCHEMA.md) of every thread with that stack, rounded to
// the nearest microsecond; stacks whose total rounds to 0 are left out.
// Lines come in byte order of the stacks' full text, so a stack comes
// before the stacks that extend it; a cut stack (below) keeps the place of
// its full text.
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
// Frame names go through folded_frame_name() (output_escape.hpp): ';'
// becomes ':' (it would split the frame), control characters become
// spaces, bytes that are not UTF-8 become U+FFFD; spaces are kept (both
// tools split COUNT off at the last space); an empty label is
// "(empty label)".
//
// Deep stacks are cut to their innermost kFoldedMaxFrames frames, under one
// first frame "[... K frames]" that counts the K outer frames left out. Full
// stacks would make the output quadratic in the depth of a spawn chain: a
// chain of n labelled threads that each run has n stacks of 1, 2 ... n
// frames, n(n+1)/2 frames in all (300,000 deep: 4.5 * 10^10 frames, hundreds
// of gigabytes). Cut, a line has at most kFoldedMaxFrames + 1 frames and the
// output is linear in the number of threads. 128 frames is already beyond
// what a flame graph can show (flamegraph.pl draws a frame 16 pixels tall:
// 2,048 pixels), and the innermost frames are the ones a flame graph's
// narrow towers are read for. Cut stacks that print alike (the same K and
// the same innermost frames) are one line, with their run times summed.
//
// The work is linear in the number of threads: stacks are interned as a
// tree of (parent stack, frame) nodes, so equal stacks are one node and a
// stack costs one node whatever its depth; a line is built from its node
// (at most kFoldedMaxFrames steps up) only when it is written, and written
// to the sink in chunks. A parent cycle (impossible from an import,
// possible in a database made elsewhere) ends the chain where it closes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "recorder/format/byte_sink.hpp"
#include "recorder/format/diagnostic.hpp"
#include "recorder/store/trace_store.hpp"
#include "recorder/export/output_escape.hpp"

namespace skein {

// The innermost frames a line keeps of a deeper stack.
inline constexpr std::size_t kFoldedMaxFrames = 128;

struct FoldedStack {
  std::string frames;  // "root;child;leaf", or "[... K frames];..." when cut
  TimeNs run_time = 0;  // ns
};

// The stacks of `threads` (any order), in the output's order, with their
// summed run time in ns (zero totals included).
[[nodiscard]] std::vector<FoldedStack> folded_stacks(const std::vector<StoredThread>& threads);

// Writes the lines of `threads` to `sink` and closes it; the count of lines.
[[nodiscard]] Result<std::uint64_t> write_folded_stacks(const std::vector<StoredThread>& threads,
                                                        std::unique_ptr<ByteSink> sink);

// write_folded_stacks() for the threads of `store`.
[[nodiscard]] Result<std::uint64_t> export_folded_stacks(TraceStore& store, std::unique_ptr<ByteSink> sink);

}  // namespace skein
