// long_coroutine — an indexer coroutine that hogs the loop after a sleep.
//
// An indexer (a C++20 coroutine returning skein::Promise) rebuilds an index
// twice: each time it waits 2 ms (`co_await skein::sleep(2ms)`, new entries
// arriving), then rebuilds for 30 ms of CPU time (a busy loop that reads
// std::chrono::steady_clock until 30 ms have passed, hashing as it goes).
// Meanwhile a status coroutine reports every millisecond for 40 reports
// (`co_await skein::sleep(1ms)` in a loop), noting how late each one comes.
// main joins the two.
//
// THE FAULT: after `co_await skein::sleep(...)` the coroutine resumes inside
// the timer's wake-up and runs the whole rebuild there, so the event loop
// can do nothing else for 30 ms. One run has 2 activations that block the
// loop for 30 ms or more: the indexer's two resumptions after its sleeps,
// each a single uninterrupted 30 ms burst (wall time, measured by the burst
// itself, so a loaded machine can only make it longer). Every other
// resumption (the status reports) takes microseconds.
//
// --fixed: the rebuild runs in slices of at most 2 ms with
// `co_await skein::pause()` between them, so no resumption holds the loop
// for more than one slice. The status reports are still late: while
// something keeps pausing, the loop looks at its timers only every
// kIoPollInterval (64) turns (runtime/scheduler.hpp), and a rebuild takes
// at most 15 slices, far fewer turns than that. The program prints the
// status coroutine's worst lateness in both modes.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr auto kRebuild = 30ms;  // CPU time one rebuild needs
constexpr auto kSlice = 2ms;     // --fixed: the longest run between two pauses
constexpr int kRebuilds = 2;
constexpr int kReports = 40;

struct Index {
  std::uint64_t digest = 1469598103934665603ull;
  Clock::duration work{0};
  int slices = 0;
};

// Hash entries until `budget` has passed.
void rebuild_for(Index& index, Clock::duration budget) {
  const Clock::time_point start = Clock::now();
  Clock::time_point now = start;
  std::uint64_t x = index.digest;
  while (now - start < budget) {
    for (int i = 0; i < 256; ++i) x = (x ^ static_cast<std::uint64_t>(i)) * 1099511628211ull;
    now = Clock::now();
  }
  index.digest = x;
  index.work += now - start;
  ++index.slices;
}

skein::Promise<std::vector<Index>> indexer(bool fixed) {
  skein::label("indexer");
  std::vector<Index> built;
  for (int round = 0; round < kRebuilds; ++round) {
    co_await skein::sleep(2ms);  // new entries arrive
    Index index;
    if (!fixed) {
      rebuild_for(index, kRebuild);  // 30 ms without giving the loop back
    } else {
      for (;;) {
        rebuild_for(index, std::min<Clock::duration>(kSlice, kRebuild - index.work));
        if (index.work >= kRebuild) break;
        co_await skein::pause();
      }
    }
    skein::counter("indexer.rebuilds", round + 1);
    built.push_back(index);
  }
  co_return built;
}

struct Status {
  int reports = 0;
  Clock::duration worst_lateness{0};
};

skein::Promise<void> status(Status& s) {
  skein::label("status");
  while (s.reports < kReports) {
    const Clock::time_point due = Clock::now() + 1ms;
    co_await skein::sleep(1ms);
    s.worst_lateness = std::max(s.worst_lateness, Clock::now() - due);
    ++s.reports;
  }
}

constexpr const char* kUsage =
    "Usage: long_coroutine [--fixed] [--trace FILE]\n"
    "A coroutine rebuilds an index twice, each time 30 ms of CPU work right after\n"
    "co_await skein::sleep(2ms), while a status coroutine reports every millisecond.\n"
    "--fixed rebuilds in slices of at most 2 ms with co_await skein::pause().\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  bool fixed = false;
  skein::samples::SampleCommandLine command_line("long_coroutine", kUsage);
  command_line.add_flag("fixed", fixed);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Status s;
  skein::Promise<std::vector<Index>> indexes = indexer(fixed);
  skein::Promise<void> reporting = status(s);
  skein::run(skein::join({indexes.map([](const std::vector<Index>&) {}), reporting}));

  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  const std::vector<Index>& built = indexes.value();
  bool ok = static_cast<int>(built.size()) == kRebuilds && s.reports == kReports;
  for (const Index& index : built) {
    std::printf("long_coroutine%s: rebuild of %.1f ms in %d slice(s), digest %016llx\n",
                fixed ? " --fixed" : "", ms(index.work), index.slices,
                static_cast<unsigned long long>(index.digest));
    ok = ok && index.work >= kRebuild && (fixed ? index.slices > 1 : index.slices == 1);
  }
  std::printf("status: %d reports, worst lateness %.1f ms\n", s.reports, ms(s.worst_lateness));
  return ok ? 0 : 1;
}
