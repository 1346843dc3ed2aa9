// large_array_test.cpp — the timeline's large arrays (viewer/timeline/
// large_array.hpp): an array of 2 MiB or more is a mapping of its own,
// aligned to 2 MiB, advised for huge pages where the kernel has them, and
// gone from the address space once freed; a smaller one is malloc's; a
// vector growing across the boundary keeps its elements.
#include <sys/mman.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "viewer/timeline/large_array.hpp"

using namespace skein;

namespace {

// Whether [p, p + bytes) is mapped, page by page: msync fails with ENOMEM
// on memory that is not.
bool mapped(const void* p, std::size_t bytes) {
  return msync(const_cast<void*>(p), bytes, MS_ASYNC) == 0 || errno != ENOMEM;
}

// The smaps block of the mapping that starts at `p`.
std::string smaps_of(const void* p) {
  std::ifstream in("/proc/self/smaps");
  std::ostringstream start;
  start << std::hex << reinterpret_cast<std::uintptr_t>(p) << '-';
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    // A mapping's first line is "START-END perms offset dev inode path";
    // its fields are "Name: value".
    const bool header = line.find(':') > line.find(' ');
    if (header) {
      if (inside) break;
      inside = line.rfind(start.str(), 0) == 0;
    }
    if (inside) block += line + '\n';
  }
  return block;
}

// Whether the kernel gives huge pages to a mapping advised for them.
bool kernel_advises_huge_pages() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string setting;
  std::getline(in, setting);
  return setting.find("[always]") != std::string::npos || setting.find("[madvise]") != std::string::npos;
}

}  // namespace

TEST_CASE("an array of 2 MiB or more is a mapping of its own, aligned, and unmapped when freed", "[timeline][memory]") {
  LargeArrayAllocator<std::int64_t> allocator;
  const std::size_t n = (kHugePageBytes / sizeof(std::int64_t)) * 3 + 5;  // 6 MiB and 40 bytes
  std::int64_t* p = allocator.allocate(n);
  REQUIRE(p != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes == 0);
  for (std::size_t i = 0; i < n; ++i) p[i] = static_cast<std::int64_t>(i);
  CHECK(p[n - 1] == static_cast<std::int64_t>(n - 1));
  const std::size_t rounded = 4 * kHugePageBytes;  // the size, rounded up to 2 MiB
  CHECK(mapped(p, rounded));
  const std::string smaps = smaps_of(p);
  REQUIRE_FALSE(smaps.empty());  // the mapping starts at the array
  // Advised: the kernel marks it eligible for huge pages where it has them.
  const std::size_t field = smaps.find("THPeligible:");
  REQUIRE(field != std::string::npos);
  std::istringstream eligible(smaps.substr(field + 12));
  int flag = -1;
  eligible >> flag;
  CHECK(flag == (kernel_advises_huge_pages() ? 1 : 0));
  allocator.deallocate(p, n);
  CHECK_FALSE(mapped(p, rounded));
}

TEST_CASE("an array below 2 MiB is malloc's, and a vector growing past 2 MiB keeps its elements",
          "[timeline][memory]") {
  LargeArray<std::uint32_t> v;
  v.push_back(7);
  REQUIRE(v.capacity() * sizeof(std::uint32_t) < kHugePageBytes);
  const std::size_t n = kHugePageBytes / sizeof(std::uint32_t) * 2;
  for (std::uint32_t i = 1; i < n; ++i) v.push_back(i * 3);
  REQUIRE(v.capacity() * sizeof(std::uint32_t) >= kHugePageBytes);
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % kHugePageBytes == 0);
  CHECK(v[0] == 7);
  bool same = true;
  for (std::uint32_t i = 1; i < n; ++i) same = same && v[i] == i * 3;
  CHECK(same);
  // A copy and a move keep them too.
  LargeArray<std::uint32_t> copy = v;
  CHECK(copy == v);
  LargeArray<std::uint32_t> moved = std::move(copy);
  CHECK(moved == v);
}

TEST_CASE("an array too large to map is std::bad_alloc, as std::allocator's", "[timeline][memory]") {
  LargeArrayAllocator<std::uint64_t> allocator;
  CHECK_THROWS_AS(allocator.allocate(std::size_t{1} << 61), std::bad_alloc);
  CHECK(map_large_array(SIZE_MAX - 16) == nullptr);
}
