// hello — the smallest program on Skein's runtime, as shown in the README: a
// timer, a bound callback that labels its thread, and run(). With
// SKEIN_TRACE=FILE it leaves a trace of those few steps.
#include <chrono>
#include <cstdio>

#include "runtime/runtime.hpp"

int main() {
  using namespace std::chrono_literals;
  skein::Promise<int> answer = skein::sleep(10ms).then([] {
    skein::label("compute");  // names the current thread in the trace
    return skein::resolved(42);
  });
  std::printf("%d\n", skein::run(answer));  // runs the loop until answer resolves
}
