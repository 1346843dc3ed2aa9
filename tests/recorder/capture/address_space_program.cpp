// address_space_program.cpp — a traced program that cannot have much memory:
// before anything else of the program runs (the capture SKEIN_TRACE starts
// included), it limits its own address space (RLIMIT_AS) to what it has
// mapped then plus kRoomBytes, so that a capture buffer larger than that
// cannot be mapped, on any machine and under AddressSanitizer alike (whose
// reservations are made by then, and counted). It then runs kSteps labelled
// steps on the runtime, prints "steps done" and exits with status 7, its
// own.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "runtime/runtime.hpp"

namespace {

constexpr unsigned long long kRoomBytes = 1ull << 30;
constexpr int kSteps = 20;

// Before the C++ static initializers of no stated priority, the capture's
// autostart among them.
[[gnu::constructor(101)]] void limit_address_space() {
  unsigned long long pages = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%llu", &pages) != 1) pages = 0;
    std::fclose(f);
  }
  if (pages == 0) std::abort();  // the limit could not be set: the case must not pass
  const unsigned long long limit = pages * static_cast<unsigned long long>(sysconf(_SC_PAGESIZE)) + kRoomBytes;
  const rlimit as{limit, limit};
  if (setrlimit(RLIMIT_AS, &as) != 0) std::abort();
}

}  // namespace

int main() {
  for (int i = 1; i <= kSteps; ++i) {
    auto [p, r] = skein::task<int>();
    p.label("step " + std::to_string(i));
    auto q = p.map([](int v) { return v + 1; });
    r.resolve(i);
    if (skein::run(q) != i + 1) std::abort();
  }
  std::printf("steps done\n");
  return 7;
}
