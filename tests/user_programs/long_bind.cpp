// long_bind — a report built inside a bind callback, blocking the loop.
//
// A report job runs twice: after a short sleep (2 ms), a `.map` callback
// crunches numbers for 30 ms of CPU time (a busy loop that reads
// std::chrono::steady_clock until 30 ms have passed, hashing as it goes) and
// returns the digest. Meanwhile a heartbeat, a bind loop on skein::sleep,
// ticks every millisecond for 40 ticks and keeps track of how late its
// timer fires. main joins the two.
//
// THE FAULT: the crunching runs inside one callback, so the event loop can
// do nothing else until it returns: the heartbeat's timer is due but cannot
// fire. One run has 2 activations that block the loop for 30 ms or more:
// the two report callbacks, each one a single uninterrupted 30 ms burst
// (wall time, measured by the burst itself, so a loaded machine can only
// make it longer). Every other callback (heartbeat ticks, the report's
// bookkeeping) takes microseconds.
//
// --fixed: the same 30 ms of work done in slices of at most 2 ms, with
// skein::pause() between slices (a bind loop), so no callback holds the
// loop for more than one slice, and anything already queued runs between
// the slices. The heartbeat is still late: while something keeps pausing,
// the loop looks at its timers only every kIoPollInterval (64) turns
// (runtime/scheduler.hpp), and a report takes at most 15 slices, far fewer
// turns than that, so the heartbeat's timer fires only once the report is
// done. The program prints the heartbeat's worst lateness in both modes.
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

constexpr auto kWork = 30ms;  // CPU time one report needs
constexpr auto kSlice = 2ms;  // --fixed: the longest run between two pauses
constexpr int kReports = 2;
constexpr int kHeartbeats = 40;

// The report's state: how much work is done, and its digest so far.
struct Crunch {
  std::uint64_t digest = 1469598103934665603ull;
  Clock::duration done{0};
  int slices = 0;
};

// Hash numbers until `budget` has passed; returns the time it ran.
Clock::duration crunch_for(Crunch& c, Clock::duration budget) {
  const Clock::time_point start = Clock::now();
  Clock::time_point now = start;
  std::uint64_t x = c.digest;
  while (now - start < budget) {
    for (int i = 0; i < 256; ++i) x = (x ^ static_cast<std::uint64_t>(i)) * 1099511628211ull;
    now = Clock::now();
  }
  c.digest = x;
  c.done += now - start;
  ++c.slices;
  return now - start;
}

// --fixed: crunch in slices, yielding to the loop between them.
skein::Promise<Crunch> crunch_in_slices(Crunch c) {
  crunch_for(c, std::min<Clock::duration>(kSlice, kWork - c.done));
  if (c.done >= kWork) return skein::resolved(c);
  return skein::pause().then([c] {
    skein::label("report slice");
    return crunch_in_slices(c);
  });
}

struct Reports {
  bool fixed = false;
  std::vector<Crunch> done;
};

skein::Promise<void> report(Reports& r, int left) {
  if (left == 0) return skein::resolved();
  skein::Promise<Crunch> crunched;
  if (r.fixed) {
    crunched = skein::sleep(2ms).then([] {
      skein::label("report");
      return crunch_in_slices(Crunch{});
    });
  } else {
    crunched = skein::sleep(2ms).map([] {
      skein::label("report");
      Crunch c;
      crunch_for(c, kWork);  // 30 ms without giving the loop back
      return c;
    });
  }
  return crunched.then([&r, left](const Crunch& c) {
    skein::label("report done");
    r.done.push_back(c);
    return report(r, left - 1);
  });
}

struct Heartbeat {
  int ticks = 0;
  Clock::duration worst_lateness{0};
};

skein::Promise<void> heartbeat(Heartbeat& h) {
  const Clock::time_point due = Clock::now() + 1ms;
  return skein::sleep(1ms).then([&h, due] {
    skein::label("heartbeat");
    h.worst_lateness = std::max(h.worst_lateness, Clock::now() - due);
    skein::counter("heartbeat.ticks", ++h.ticks);
    if (h.ticks == kHeartbeats) return skein::resolved();
    return heartbeat(h);
  });
}

constexpr const char* kUsage =
    "Usage: long_bind [--fixed] [--trace FILE]\n"
    "Two reports, each 30 ms of CPU work in a .map callback after a 2 ms sleep,\n"
    "while a heartbeat ticks every millisecond. --fixed does the work in slices\n"
    "of at most 2 ms with skein::pause() between them.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Reports r;
  skein::samples::SampleCommandLine command_line("long_bind", kUsage);
  command_line.add_flag("fixed", r.fixed);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Heartbeat h;
  skein::run(skein::join({report(r, kReports), heartbeat(h)}));

  const auto ms = [](Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
  };
  bool ok = static_cast<int>(r.done.size()) == kReports && h.ticks == kHeartbeats;
  for (const Crunch& c : r.done) {
    std::printf("long_bind%s: report of %.1f ms in %d slice(s), digest %016llx\n",
                r.fixed ? " --fixed" : "", ms(c.done), c.slices,
                static_cast<unsigned long long>(c.digest));
    ok = ok && c.done >= kWork && (r.fixed ? c.slices > 1 : c.slices == 1);
  }
  std::printf("heartbeat: %d ticks, worst lateness %.1f ms\n", h.ticks, ms(h.worst_lateness));
  return ok ? 0 : 1;
}
