// large_array.hpp — the vector type of the timeline's largest arrays (the
// threads, the edges and their times, each row's activations), whose
// allocator maps every array of 2 MiB or more on its own, aligned to 2 MiB
// and advised for transparent huge pages (madvise MADV_HUGEPAGE).
//
// Why: a 10M-record trace's arrays are about half a gigabyte, and they are
// written into fresh memory whenever a whole view is built (the load, a
// view filter toggled on). Each first touch of a 4 KiB page is a fault the
// kernel zero-fills; on a virtual machine a fault costs microseconds, and
// a memcpy of 520 MB into fresh memory took 0.5 to 1.1 s on the 2-core
// reference machine, against 0.12 s into 2 MiB pages. Kernels that run
// transparent huge pages "always" or "madvise" (Debian's default) back such
// a mapping with 2 MiB pages where they have them; with "never" it is an
// ordinary mapping.
//
// Invariants: an array below 2 MiB comes from malloc, as std::allocator's
// would; one at or above is a mapping of its size rounded up to 2 MiB,
// unmapped when freed (its memory goes back to the system at once, with no
// malloc_trim: freed_memory.hpp); allocate() throws std::bad_alloc as
// std::allocator's does. Allocators compare equal: any one frees what
// another allocated, by the size it is given back.
#pragma once

#include <cstddef>
#include <limits>
#include <new>
#include <vector>

namespace skein {

inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;

// The mapping of at least `bytes` (>= kHugePageBytes) bytes, aligned to
// kHugePageBytes, or nullptr when none can be made; and its release, given
// the same `bytes`.
[[nodiscard]] void* map_large_array(std::size_t bytes) noexcept;
void unmap_large_array(void* p, std::size_t bytes) noexcept;
// Below kHugePageBytes: malloc and free (nullptr when none).
[[nodiscard]] void* allocate_small_array(std::size_t bytes) noexcept;
void free_small_array(void* p) noexcept;

template <class T>
struct LargeArrayAllocator {
  using value_type = T;

  LargeArrayAllocator() noexcept = default;
  template <class U>
  LargeArrayAllocator(const LargeArrayAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = n * sizeof(T);
    void* p = bytes >= kHugePageBytes ? map_large_array(bytes) : allocate_small_array(bytes);
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (bytes >= kHugePageBytes) unmap_large_array(p, bytes);
    else free_small_array(p);
  }

  template <class U>
  bool operator==(const LargeArrayAllocator<U>&) const noexcept {
    return true;
  }
};

template <class T>
using LargeArray = std::vector<T, LargeArrayAllocator<T>>;

}  // namespace skein
