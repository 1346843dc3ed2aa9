// flag_spin — a fiber that spins on a plain flag, and the mailbox it feeds.
//
// A sensor fires every 5 ms, three times: a bind loop on skein::sleep whose
// callback sets a plain bool `reading_ready` (and stores the reading). A
// relay fiber (spawn_fiber) spins on `skein::await(skein::pause())` until it
// sees the flag, clears it and puts the reading into a skein::Mailbox; a
// display loop (a bind loop on Mailbox::take) is waiting for each reading
// and shows it. Alongside, unrelated housekeeping runs: three cache warm-ups
// on timers, joined with skein::join. main joins the sensor, the relay, the
// display and the housekeeping; everything ends after three readings.
//
// THE FAULT: the flag is memory the runtime cannot see, so nothing records
// that the sensor woke the relay. The relay's turn that sees the flag was
// woken only by its own pause (a yield), yet it hands the reading to the
// waiting display through the mailbox. One run has 3 such hand-offs with no
// recorded cause: one per reading, 3 readings. The count does not depend on
// timing: the sensor arms its next reading only when it sets the flag, 5 ms
// later, and the relay, which is paused, runs again within two turns of the
// loop, before the loop looks at its timers again; so it sees every reading
// in its own turn, one reading per turn, and the display (which takes again
// as soon as it has shown a reading) is always waiting for it.
//
// --fixed: the sensor's callback records the wake-up where it sets the flag,
// skein::notify(relay), naming the relay fiber. The relay still spins with
// pause().
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "runtime/runtime.hpp"
#include "samples/common/sample_command_line.hpp"

namespace {

using namespace std::chrono_literals;

constexpr int kReadings = 3;

struct Shared {
  bool fixed = false;
  bool reading_ready = false;  // set by the sensor, cleared by the relay
  std::int64_t reading = 0;
  skein::Promise<void> relay;  // the relay fiber, for --fixed's notify
  skein::Mailbox<std::int64_t> display_box;
  std::vector<std::int64_t> shown;
  std::int64_t spins = 0;
  int warmed = 0;
};

// The sensor: a reading every 5 ms, kReadings times.
skein::Promise<void> sensor(Shared& s, int round) {
  return skein::sleep(5ms).then([&s, round] {
    skein::label("sensor");
    s.reading = 100 + round * 7;
    s.reading_ready = true;
    if (s.fixed) skein::notify(s.relay);
    if (round + 1 < kReadings) return sensor(s, round + 1);
    return skein::resolved();
  });
}

// The relay: spin until a reading is ready, pass it on.
void relay(Shared& s) {
  skein::label("relay");
  for (int i = 0; i < kReadings; ++i) {
    while (!s.reading_ready) {
      skein::await(skein::pause());
      ++s.spins;
    }
    s.reading_ready = false;
    skein::await(s.display_box.put(s.reading));
  }
}

// The display: take each reading and show it.
skein::Promise<void> display(Shared& s) {
  if (static_cast<int>(s.shown.size()) == kReadings) return skein::resolved();
  return s.display_box.take().then([&s](std::int64_t reading) {
    skein::label("display");
    s.shown.push_back(reading);
    skein::counter("display.last", reading);
    return display(s);
  });
}

// Unrelated housekeeping: three caches warmed up on timers of their own.
skein::Promise<void> housekeeping(Shared& s) {
  std::vector<skein::Promise<void>> warmups;
  for (int c = 1; c <= 3; ++c)
    warmups.push_back(skein::sleep(std::chrono::milliseconds(3 * c)).map([&s] {
      skein::label("cache warm-up");
      ++s.warmed;
    }));
  return skein::join(warmups);
}

constexpr const char* kUsage =
    "Usage: flag_spin [--fixed] [--trace FILE]\n"
    "A sensor sets a plain flag every 5 ms, three times; a relay fiber spins on\n"
    "pause() until it sees it and puts the reading into a mailbox a display waits\n"
    "on. Nothing records the flag; --fixed records it with skein::notify(relay).\n"
    "--trace FILE (or SKEIN_TRACE=FILE) records a Skein trace of the run.\n";

}  // namespace

int main(int argc, char** argv) {
  Shared s;
  skein::samples::SampleCommandLine command_line("flag_spin", kUsage);
  command_line.add_flag("fixed", s.fixed);
  if (const auto stop = command_line.parse(argc, argv)) return *stop;

  skein::Promise<void> shown = display(s);
  s.relay = skein::spawn_fiber([&s] { relay(s); });
  skein::Promise<void> readings = sensor(s, 0);
  skein::run(skein::join({readings, s.relay, shown, housekeeping(s)}));

  std::printf("flag_spin%s: shown", s.fixed ? " --fixed" : "");
  for (std::int64_t r : s.shown) std::printf(" %lld", static_cast<long long>(r));
  std::printf(" after %lld spins; %d caches warmed\n", static_cast<long long>(s.spins), s.warmed);
  const bool ok =
      s.shown == std::vector<std::int64_t>{100, 107, 114} && s.warmed == 3 && s.spins > 0;
  return ok ? 0 : 1;
}
