// node_pool.hpp — size-class free lists for promise nodes, waiter links and
// callback holders: in the steady state no promise operation calls malloc.
//
// Blocks are rounded up to 16 bytes; classes go up to kMaxPooledBytes, larger
// blocks (a join over hundreds of inputs) go to operator new. A freed block
// goes back on its class's list and is never returned to malloc, so memory
// is the high-water mark of live nodes. Single-threaded, like the runtime.
//
// Invariants: live() counts blocks handed out and not given back; a block on
// a free list is never handed out twice. Built with AddressSanitizer the pool
// is bypassed, so use-after-free of a node is reported, not recycled.
#pragma once

#include <array>
#include <cstddef>
#include <new>

namespace skein::detail::node_pool {

inline constexpr std::size_t kGranule = 16;
inline constexpr std::size_t kMaxPooledBytes = 512;
inline constexpr std::size_t kClassCount = kMaxPooledBytes / kGranule;

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kPoolEnabled = false;
#else
inline constexpr bool kPoolEnabled = true;
#endif

struct FreeBlock {
  FreeBlock* next;
};

struct State {
  std::array<FreeBlock*, kClassCount> free{};
  std::size_t live = 0;
};
inline State g_pool;

[[nodiscard]] inline void* allocate(std::size_t bytes) {
  ++g_pool.live;
  if (!kPoolEnabled || bytes > kMaxPooledBytes) return ::operator new(bytes);
  const std::size_t cls = (bytes - 1) / kGranule;
  if (FreeBlock* block = g_pool.free[cls]) [[likely]] {
    g_pool.free[cls] = block->next;
    return block;
  }
  return ::operator new((cls + 1) * kGranule);
}

inline void deallocate(void* p, std::size_t bytes) noexcept {
  --g_pool.live;
  if (!kPoolEnabled || bytes > kMaxPooledBytes) {
    ::operator delete(p);
    return;
  }
  const std::size_t cls = (bytes - 1) / kGranule;
  auto* block = static_cast<FreeBlock*>(p);
  block->next = g_pool.free[cls];
  g_pool.free[cls] = block;
}

// Blocks currently handed out: nodes, links and callback holders.
[[nodiscard]] inline std::size_t live() { return g_pool.live; }

}  // namespace skein::detail::node_pool
