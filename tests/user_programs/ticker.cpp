// ticker — a heartbeat loop feeding a logger through a stream. Clean: no
// planted fault.
//
// The heartbeat is a bind loop on skein::sleep: every 2 ms it counts a tick
// (skein::counter "heartbeat.tick"), pushes the tick's number into a
// skein::Stream<int> of capacity 4, waits until the stream has taken it, and
// sleeps again; after 40 ticks it closes the stream and ends. A logger fiber
// reads the stream with skein::await(next()) until it is closed, keeping a
// log line per tick. Every wake-up is one the runtime performs: the
// heartbeat's timers, and the stream handing each tick to the waiting
// logger. About 80 ms.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

constexpr int kTicks = 40;

struct Ticker {
  skein::Stream<int> ticks{4};
  int beats = 0;
  std::vector<std::string> log;
};

skein::Promise<void> heartbeat(Ticker& t) {
  return skein::sleep(2ms).then([&t] {
    skein::label("heartbeat");
    ++t.beats;
    skein::counter("heartbeat.tick", t.beats);
    return t.ticks.push(t.beats).then([&t] {
      if (t.beats < kTicks) return heartbeat(t);
      t.ticks.close();
      return skein::resolved();
    });
  });
}

void logger(Ticker& t) {
  skein::label("logger");
  while (const std::optional<int> tick = skein::await(t.ticks.next()))
    t.log.push_back("tick " + std::to_string(*tick));
}

constexpr const char* kUsage =
    "Usage: ticker [--trace FILE]\n"
    "A heartbeat ticks every 2 ms, 40 times, counting and pushing each tick into a\n"
    "stream that a logger fiber reads; then it closes the stream.\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  skein::samples::SampleCommandLine command_line("ticker", kUsage);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  Ticker t;
  skein::Promise<void> logging = skein::spawn_fiber([&t] { logger(t); });
  skein::run(skein::join({heartbeat(t), logging}));

  std::printf("ticker: %d beats, %zu logged, last '%s'\n", t.beats, t.log.size(),
              t.log.empty() ? "" : t.log.back().c_str());
  bool ok = t.beats == kTicks && static_cast<int>(t.log.size()) == kTicks;
  for (int i = 0; ok && i < kTicks; ++i)
    ok = t.log[static_cast<std::size_t>(i)] == "tick " + std::to_string(i + 1);
  return ok ? 0 : 1;
}
