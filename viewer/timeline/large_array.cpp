// large_array.cpp — a mapping of the size rounded up to 2 MiB plus 2 MiB
// more, whose unaligned head and tail are unmapped again, leaving the
// aligned middle; then the advice (whose failure, on a kernel without
// transparent huge pages, leaves an ordinary mapping).
#include "viewer/timeline/large_array.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>

namespace skein {
namespace {

std::size_t rounded(std::size_t bytes) { return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes; }

}  // namespace

void* map_large_array(std::size_t bytes) noexcept {
  if (bytes > std::numeric_limits<std::size_t>::max() - 2 * kHugePageBytes) return nullptr;
  const std::size_t size = rounded(bytes);
  const std::size_t span = size + kHugePageBytes;
  void* raw = mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) munmap(raw, aligned - start);
  if (const std::uintptr_t tail = start + span - (aligned + size); tail > 0)
    munmap(reinterpret_cast<void*>(aligned + size), tail);
#ifdef MADV_HUGEPAGE
  madvise(reinterpret_cast<void*>(aligned), size, MADV_HUGEPAGE);
#endif
  return reinterpret_cast<void*>(aligned);
}

void unmap_large_array(void* p, std::size_t bytes) noexcept {
  if (p) munmap(p, rounded(bytes));
}

void* allocate_small_array(std::size_t bytes) noexcept { return std::malloc(bytes > 0 ? bytes : 1); }

void free_small_array(void* p) noexcept { std::free(p); }

}  // namespace skein
