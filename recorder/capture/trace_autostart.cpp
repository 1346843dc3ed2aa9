// trace_autostart.cpp — SKEIN_TRACE=PATH turns tracing on in any program that
// links skein::recorder, with no code change: this object's static
// initializer starts the capture from the environment. It is linked into
// every consumer whole (an object library), since nothing refers to it.
#include <cstdio>

#include "recorder/capture/trace_capture.hpp"

namespace {

struct AutoStart {
  AutoStart() {
    const skein::Status started = skein::trace::start_from_environment();
    if (!started.ok()) std::fprintf(stderr, "skein: tracing not started: %s\n", started.error().to_string().c_str());
  }
};
const AutoStart g_autostart;

}  // namespace
