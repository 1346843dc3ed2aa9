// site_table.hpp — creation sites (file, line, function) interned to small
// ids for the capture, so a spawn record carries a 32-bit site id and the
// writer emits each (site ...) record once, before its first use.
//
// The producer (scheduler thread) looks sites up by the addresses of their
// file and function strings, which std::source_location keeps static, and
// the line: a direct-mapped cache answers the common case in a few ns, a map
// the rest. Entries are appended to a fixed array and published with a
// release store of the count, so the writer and the crash handler read them
// without locks. Past capacity, sites get kUnknownSite.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <source_location>
#include <unordered_map>

#include "recorder/capture/string_arena.hpp"

namespace skein::capture {

// No default member initializers: the table's array of entries is left
// unwritten until an entry is interned (an entry is read only below size()),
// so starting a capture does not fault in the whole table.
struct SiteEntry {
  std::uint32_t file;      // string id
  std::uint32_t function;  // string id
  std::uint32_t line;
};

class SiteTable {
 public:
  static constexpr std::uint32_t kUnknownSite = 0xffffffffu;

  SiteTable(std::size_t capacity, StringArena& strings);

  // Producer: the id of a site, interning it on first sight.
  [[nodiscard]] std::uint32_t intern(const std::source_location& site) {
    const auto file = reinterpret_cast<std::uintptr_t>(site.file_name());
    const auto function = reinterpret_cast<std::uintptr_t>(site.function_name());
    const std::uint32_t line = site.line();
    const std::size_t slot = ((file >> 3) ^ (function >> 3) ^ (line * 0x9e3779b1u)) & (kCacheSize - 1);
    CacheEntry& e = cache_[slot];
    if (e.file == file && e.function == function && e.line == line) [[likely]] return e.id;
    const std::uint32_t id = intern_slow(site);
    e = CacheEntry{file, function, line, id};
    return id;
  }

  // Readers: entries [0, size()) are complete.
  [[nodiscard]] std::uint32_t size() const noexcept { return size_.load(std::memory_order_acquire); }
  [[nodiscard]] const SiteEntry& entry(std::uint32_t id) const noexcept { return entries_[id]; }

 private:
  static constexpr std::size_t kCacheSize = 256;
  struct CacheEntry {
    std::uintptr_t file = 0;
    std::uintptr_t function = 0;
    std::uint32_t line = 0;
    std::uint32_t id = 0;
  };
  struct Key {
    std::uintptr_t file, function;
    std::uint32_t line;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<std::uintptr_t>{}(k.file * 31 + k.function) ^ (k.line * 0x9e3779b97f4a7c15ull);
    }
  };
  std::uint32_t intern_slow(const std::source_location& site);

  StringArena& strings_;
  std::size_t capacity_;
  std::unique_ptr<SiteEntry[]> entries_;
  std::atomic<std::uint32_t> size_{0};
  CacheEntry cache_[kCacheSize]{};
  std::unordered_map<Key, std::uint32_t, KeyHash> ids_;
};

}  // namespace skein::capture
