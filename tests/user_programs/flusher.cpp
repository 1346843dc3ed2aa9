// flusher — writers that wait for a periodic flush. Clean: no planted fault.
//
// Three writers (fibers) append records to a shared std::vector buffer, one
// record at a time, and after each append wait on a skein::Condition<void>
// `flushed` until it is on "disk" (like an fsync). A flusher loop (a bind
// loop on skein::sleep) runs every 2 ms for 8 ticks: each tick it writes the
// whole buffer out (moves it to the disk log and adds it to a checksum) and
// broadcasts `flushed`, whether the buffer held anything or not. Writers
// write 3, 4 and 5 records, so every record is flushed by the fifth tick
// (a writer woken by one tick appends its next record before the next
// tick); the last ticks flush nothing. Every wake-up is one the runtime
// performs: the flusher's timers, and the broadcast to the waiting writers.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

constexpr int kTicks = 8;

struct Log {
  std::vector<std::int64_t> buffer;  // appended by writers, emptied by the flusher
  std::vector<std::int64_t> disk;
  std::int64_t checksum = 0;
  skein::Condition<> flushed;
  int ticks = 0;
};

skein::Promise<void> flusher(Log& log) {
  return skein::sleep(2ms).then([&log] {
    skein::label("flusher");
    ++log.ticks;
    std::vector<std::int64_t> batch;
    batch.swap(log.buffer);
    for (std::int64_t record : batch) log.checksum += record;
    log.disk.insert(log.disk.end(), batch.begin(), batch.end());
    skein::counter("flusher.batch", static_cast<std::int64_t>(batch.size()));
    log.flushed.broadcast();
    if (log.ticks == kTicks) return skein::resolved();
    return flusher(log);
  });
}

// A writer: `records` records, each waited for until it is flushed.
void writer(Log& log, int id, int records, int& confirmed) {
  skein::label("writer " + std::to_string(id));
  for (int r = 1; r <= records; ++r) {
    log.buffer.push_back(id * 1000 + r);
    skein::await(log.flushed.wait());
    ++confirmed;
  }
}

constexpr const char* kUsage =
    "Usage: flusher [--trace FILE]\n"
    "Three writer fibers append records to a shared buffer and wait on a condition\n"
    "until a flusher, ticking every 2 ms for 8 ticks, has written the buffer out\n"
    "and broadcast the condition.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  skein::samples::SampleCommandLine command_line("flusher", kUsage);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Log log;
  const int records[] = {3, 4, 5};
  int confirmed[] = {0, 0, 0};
  std::vector<skein::Promise<void>> everyone;
  for (int w = 0; w < 3; ++w)
    everyone.push_back(skein::spawn_fiber(
        [&log, w, &records, &confirmed] { writer(log, w + 1, records[w], confirmed[w]); }));
  everyone.push_back(flusher(log));
  skein::run(skein::join(everyone));

  std::int64_t expected = 0;
  for (int w = 0; w < 3; ++w)
    for (int r = 1; r <= records[w]; ++r) expected += (w + 1) * 1000 + r;
  std::printf("flusher: %d ticks, %zu records on disk, checksum %lld, confirmed %d/%d/%d\n",
              log.ticks, log.disk.size(), static_cast<long long>(log.checksum), confirmed[0],
              confirmed[1], confirmed[2]);
  bool ok = log.ticks == kTicks && log.disk.size() == 12 && log.checksum == expected &&
            log.buffer.empty();
  for (int w = 0; w < 3; ++w) ok = ok && confirmed[w] == records[w];
  return ok ? 0 : 1;
}
