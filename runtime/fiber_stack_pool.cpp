// fiber_stack_pool.cpp — mapping, guarding, pooling and unmapping fiber
// stacks (fiber_stack_pool.hpp has the invariants).
#include "runtime/fiber_stack_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

namespace skein {

namespace detail {

namespace {

struct Pool {
  FiberStackConfig config;
  FiberStackStats stats;
  std::vector<FiberStack> free;  // all of config.stack_size (invariant 3)
};
Pool& pool() {
  static Pool* p = new Pool;  // never destroyed: fibers may release stacks during static destruction
  return *p;
}

std::size_t round_to_pages(std::size_t bytes) {
  const std::size_t page = page_size();
  return (bytes + page - 1) / page * page;
}

// Frames of an earlier fiber may have left the stack's shadow poisoned
// (a fiber's entry frame never returns); a new fiber must start clean.
void unpoison(const FiberStack& stack) noexcept {
#if defined(__SANITIZE_ADDRESS__)
  ASAN_UNPOISON_MEMORY_REGION(stack.low, stack.size);
#else
  (void)stack;
#endif
}

void unmap(const FiberStack& stack) noexcept {
  unpoison(stack);
  const int rc = ::munmap(stack.guard, stack.size + page_size());
  assert(rc == 0);
  (void)rc;
  ++pool().stats.unmapped;
}

FiberStack map_stack(std::size_t size) {
  const std::size_t page = page_size();
  void* base = ::mmap(nullptr, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (base == MAP_FAILED)
    throw std::system_error(errno, std::generic_category(),
                            "skein: mapping a fiber stack of " + std::to_string(size) + " bytes");
  if (::mprotect(base, page, PROT_NONE) != 0) {
    const int error = errno;
    ::munmap(base, size + page);
    throw std::system_error(error, std::generic_category(), "skein: protecting a fiber stack's guard page");
  }
  ++pool().stats.mapped;
  return FiberStack{base, static_cast<char*>(base) + page, size};
}

}  // namespace

std::size_t page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

FiberStack allocate_fiber_stack() {
  Pool& p = pool();
  FiberStack stack;
  if (!p.free.empty()) {
    stack = p.free.back();
    p.free.pop_back();
    ++p.stats.reused;
  } else {
    stack = map_stack(p.config.stack_size);
  }
  unpoison(stack);
  p.stats.pooled = p.free.size();
  p.stats.in_use += 1;
  p.stats.peak_in_use = std::max(p.stats.peak_in_use, p.stats.in_use);
  return stack;
}

void release_fiber_stack(const FiberStack& stack) noexcept {
  Pool& p = pool();
  assert(p.stats.in_use > 0);
  p.stats.in_use -= 1;
  if (stack.size == p.config.stack_size && p.free.size() < p.config.max_pooled) {
    try {
      p.free.push_back(stack);
    } catch (...) {  // defensive: no room to remember it, so give it back
      unmap(stack);
    }
  } else {
    unmap(stack);
  }
  p.stats.pooled = p.free.size();
}

}  // namespace detail

void configure_fiber_stacks(const FiberStackConfig& config) {
  if (config.stack_size < kMinFiberStackSize)
    throw std::invalid_argument("skein::configure_fiber_stacks: stack_size " + std::to_string(config.stack_size) +
                                " is below the minimum of " + std::to_string(kMinFiberStackSize) + " bytes");
  detail::Pool& p = detail::pool();
  const std::size_t size = detail::round_to_pages(config.stack_size);
  if (size != p.config.stack_size) trim_fiber_stack_pool();
  p.config.stack_size = size;
  p.config.max_pooled = config.max_pooled;
  while (p.free.size() > p.config.max_pooled) {
    detail::unmap(p.free.back());
    p.free.pop_back();
  }
  p.stats.pooled = p.free.size();
}

FiberStackConfig fiber_stack_config() { return detail::pool().config; }

FiberStackStats fiber_stack_stats() { return detail::pool().stats; }

void trim_fiber_stack_pool() {
  detail::Pool& p = detail::pool();
  for (const detail::FiberStack& stack : p.free) detail::unmap(stack);
  p.free.clear();
  p.stats.pooled = 0;
}

}  // namespace skein
