// fiber_stack_pool.hpp — the stacks fibers run on: mmap'd, each with a guard
// page below it, and pooled so that a finished fiber's stack serves the next.
//
// A stack is one mapping: the lowest page is PROT_NONE (the guard), the rest
// is readable and writable. Stacks grow down, so a fiber that overflows its
// stack touches the guard page and the process gets SIGSEGV at once, instead
// of writing over whatever lies below. Pages are committed by the kernel as
// they are touched, so a 64 KiB stack whose fiber uses 4 KiB costs one page
// of memory (plus the pages a pooled stack touched in its earlier lives).
//
// The pool keeps at most `max_pooled` free stacks; a stack released when the
// pool is full is unmapped. So memory is bounded by the peak number of fibers
// alive at once plus the pool, never by the number of fibers ever run.
//
// Invariants (checked by the counters the tests read):
//   1. in_use == mapped - unmapped - pooled: every mapping is either in use
//      by one fiber, on the free list, or gone;
//   2. pooled <= max_pooled;
//   3. every stack on the free list has the configured size (configuring a
//      new size unmaps the free list; stacks of the old size still in use are
//      unmapped when released).
// Single-threaded, like the runtime.
#pragma once

#include <cstddef>
#include <cstdint>

namespace skein {

// The default usable size of a fiber's stack. Under AddressSanitizer frames
// carry redzones and are several times larger, so the default is too.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr std::size_t kDefaultFiberStackSize = 256 * 1024;
#else
inline constexpr std::size_t kDefaultFiberStackSize = 64 * 1024;
#endif
inline constexpr std::size_t kMinFiberStackSize = 16 * 1024;

struct FiberStackConfig {
  std::size_t stack_size = kDefaultFiberStackSize;  // usable bytes, rounded up to whole pages
  std::size_t max_pooled = 64;                      // free stacks kept for reuse
};

struct FiberStackStats {
  std::uint64_t mapped = 0;    // stacks ever mapped
  std::uint64_t unmapped = 0;  // stacks ever unmapped
  std::uint64_t reused = 0;    // allocations served from the pool
  std::size_t in_use = 0;      // stacks held by fibers now
  std::size_t pooled = 0;      // free stacks in the pool now
  std::size_t peak_in_use = 0;
};

// Sets the size of stacks allocated from now on and the pool's bound. Throws
// std::invalid_argument for a size below kMinFiberStackSize.
void configure_fiber_stacks(const FiberStackConfig& config);
[[nodiscard]] FiberStackConfig fiber_stack_config();
[[nodiscard]] FiberStackStats fiber_stack_stats();
// Unmaps every pooled stack (for tests, and for a program that wants its
// memory back after a burst of fibers).
void trim_fiber_stack_pool();

namespace detail {

// One stack: [guard, guard + page) is the guard page, [low, low + size) the
// usable part; the stack pointer starts at low + size.
struct FiberStack {
  void* guard = nullptr;
  void* low = nullptr;
  std::size_t size = 0;
};

// A stack of the configured size: from the pool, or freshly mapped. Throws
// std::system_error if the kernel refuses the mapping.
[[nodiscard]] FiberStack allocate_fiber_stack();
// Gives a stack back: to the pool, or unmapped when the pool is full or the
// stack has an older size.
void release_fiber_stack(const FiberStack& stack) noexcept;

[[nodiscard]] std::size_t page_size() noexcept;

}  // namespace detail

}  // namespace skein
