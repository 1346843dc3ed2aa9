// site_table.cpp — the slow path of interning: the map keyed by the file
// and function string addresses and the line, then an append. The entry is
// written before the release store of the new size, so readers never see a
// partial one. Past capacity it returns kUnknownSite without caching that in
// the map. Cache entries start with line 0xffffffff, so an unused slot
// never matches a null site.
#include "recorder/capture/site_table.hpp"

namespace skein::capture {

SiteTable::SiteTable(std::size_t capacity, StringArena& strings)
    : strings_(strings), capacity_(capacity), entries_(new SiteEntry[capacity]) {
  // Slot 0 of the cache must not match a null site by accident.
  for (auto& e : cache_) e.line = 0xffffffffu;
}

std::uint32_t SiteTable::intern_slow(const std::source_location& site) {
  const Key key{reinterpret_cast<std::uintptr_t>(site.file_name()),
                reinterpret_cast<std::uintptr_t>(site.function_name()), site.line()};
  if (auto found = ids_.find(key); found != ids_.end()) return found->second;
  const std::uint32_t id = size_.load(std::memory_order_relaxed);
  if (id >= capacity_) return kUnknownSite;
  entries_[id] = SiteEntry{strings_.intern(site.file_name()), strings_.intern(site.function_name()), site.line()};
  size_.store(id + 1, std::memory_order_release);
  ids_.emplace(key, id);
  return id;
}

}  // namespace skein::capture
