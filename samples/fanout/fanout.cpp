// fanout — a thread spawns ten parallel sleepers and joins them, nested:
// the shape that the 2014 discussion of MirageOS traces found hard to show
// as a flame graph, since the children overlap in time and none of them is
// "inside" another's stack.
//
// `fanout.root` (a bind thread) spawns --width `fanout.group` threads and
// joins them; each group, when it runs, spawns --width sleepers (sleeping
// 1 to 4 ms, a fixed pattern) and joins those. With the defaults that is 10
// groups of 10 sleepers: 100 timers, 11 joins. --depth 3 nests once more.
// Every thread finishes; the program prints how many sleepers ran and how
// many groups joined, and stops.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

struct Options {
  std::int64_t width = 10;
  std::int64_t depth = 2;
};

struct Tally {
  std::int64_t sleepers = 0;
  std::int64_t groups = 0;
  std::int64_t next_sleep = 0;  // a fixed pattern of durations: 1, 2, 3, 4, 1, ...
};

// A level of the tree: at depth 1 the sleepers themselves, above that a
// group thread that starts its children when it runs and joins them.
skein::Promise<void> fan(std::int64_t depth, const Options& options, Tally& tally) {
  if (depth == 0) {
    const auto duration = std::chrono::milliseconds(1 + tally.next_sleep++ % 4);
    return skein::sleep(duration).map([&tally] {
      skein::label("fanout.sleeper");
      ++tally.sleepers;
    });
  }
  // The group starts after a turn of the loop, so that it is a thread of
  // its own that spawns its children (not the caller doing it for it).
  return skein::pause().then([depth, &options, &tally] {
    skein::label(depth == options.depth ? "fanout.root" : "fanout.group");
    std::vector<skein::Promise<void>> children;
    for (std::int64_t i = 0; i < options.width; ++i) children.push_back(fan(depth - 1, options, tally));
    return skein::join(children).map([&tally] {
      skein::label("fanout.joined");
      ++tally.groups;
    });
  });
}

constexpr const char* kUsage =
    "Usage: fanout [--width W] [--depth D] [--trace FILE]\n"
    "A thread spawns W parallel children (default 10) and joins them, nested D\n"
    "levels deep (default 2): the leaves sleep 1 to 4 ms.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Options options;
  skein::samples::SampleCommandLine command_line("fanout", kUsage);
  command_line.add_integer("width", options.width, 1, 100);
  command_line.add_integer("depth", options.depth, 1, 4);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Tally tally;
  skein::run(fan(options.depth, options, tally));
  std::int64_t expected_sleepers = 1, expected_groups = 0;
  for (std::int64_t d = 0; d < options.depth; ++d) {
    expected_groups += expected_sleepers;
    expected_sleepers *= options.width;
  }
  std::printf("fanout: %lld sleepers joined in %lld groups\n", static_cast<long long>(tally.sleepers),
              static_cast<long long>(tally.groups));
  return tally.sleepers == expected_sleepers && tally.groups == expected_groups ? 0 : 1;
}
