// consumer — three timers gathered by all(), each callback labelling its
// thread, run on Skein's runtime. Built against the installed package; with
// SKEIN_TRACE=FILE it leaves a trace (the capture starts by itself).
#include <chrono>
#include <cstdio>
#include <vector>

#include "recorder/capture/trace_capture.hpp"
#include "runtime/runtime.hpp"

int main() {
  std::vector<skein::Promise<int>> parts;
  for (int i = 1; i <= 3; ++i)
    parts.push_back(skein::sleep(std::chrono::milliseconds(i)).then([i] {
      skein::label("consumer.part");
      return skein::resolved(i * 10);
    }));
  int sum = 0;
  for (const int value : skein::run(skein::all(parts))) sum += value;
  std::printf("sum %d, tracing %s\n", sum, skein::trace::capturing() ? "on" : "off");
  return sum == 60 ? 0 : 1;
}
