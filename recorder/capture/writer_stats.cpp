// writer_stats.cpp — the writer thread's CPU time (CLOCK_THREAD_CPUTIME_ID)
// and the one stats line: records, lost, unwritten, bytes, writer_cpu_ns,
// refused.
#include "recorder/capture/writer_stats.hpp"

#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace skein::capture {

void WriterStats::take_writer_cpu_time() noexcept {
  timespec cpu{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu);
  writer_cpu_ns = static_cast<std::int64_t>(cpu.tv_sec) * 1'000'000'000 + cpu.tv_nsec;
}

void WriterStats::print(std::uint64_t refused) const {
  std::fprintf(stderr,
               "skein: trace stats: records=%llu lost=%llu unwritten=%llu bytes=%llu writer_cpu_ns=%lld "
               "refused=%llu\n",
               static_cast<unsigned long long>(records_written), static_cast<unsigned long long>(records_lost),
               static_cast<unsigned long long>(records_unwritten.load()),
               static_cast<unsigned long long>(bytes_written), static_cast<long long>(writer_cpu_ns),
               static_cast<unsigned long long>(refused));
}

bool stats_requested() {
  const char* stats = std::getenv("SKEIN_TRACE_STATS");
  return stats != nullptr && std::strcmp(stats, "1") == 0;
}

}  // namespace skein::capture
