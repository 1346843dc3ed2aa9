// string_interner.hpp — Interner: every string once, by index into a
// vector the caller owns (TimelineData::strings), index 0 being "". The
// timeline's loaders intern thread labels, kinds, failures and notify
// reasons through it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace skein {

// Every string once, by index into `strings` (0 is ""). The index is an
// open-addressing table of (hash, string index) slots, linear probing, at
// most half full: a distinct string costs its one copy into `strings` and
// no allocation of its own (a node-based map allocated a node and a second
// copy of the key per string, which made a trace of many distinct labels
// open several times slower than one of repeats).
class Interner {
 public:
  explicit Interner(std::vector<std::string>& strings) : strings_(strings) {
    strings_.assign(1, std::string());
    slots_.assign(kInitialSlots, Slot{});
  }
  std::uint32_t intern(std::string_view s) {
    if (s.empty()) return 0;
    const std::uint64_t h = hash(s);
    std::size_t at = static_cast<std::size_t>(h) & (slots_.size() - 1);
    for (;; at = (at + 1) & (slots_.size() - 1)) {
      const Slot& slot = slots_[at];
      if (slot.index == 0) break;
      if (slot.hash == h && strings_[slot.index] == s) return slot.index;
    }
    const auto i = static_cast<std::uint32_t>(strings_.size());
    strings_.emplace_back(s);
    slots_[at] = Slot{h, i};
    if (++used_ * 2 > slots_.size()) grow(slots_.size() * 2);
    return i;
  }
  // Room for `more` strings, so that a table of many distinct ones is not
  // rehashed as it grows.
  void reserve(std::size_t more) {
    strings_.reserve(strings_.size() + more);
    std::size_t want = slots_.size();
    while (want < (used_ + more) * 2) want *= 2;
    if (want != slots_.size()) grow(want);
  }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t index = 0;  // into strings_; 0: empty (the empty string is never stored here)
  };
  static constexpr std::size_t kInitialSlots = 64;  // a power of two, as every size is

  static std::uint64_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }

  // (Not named `slots`: Qt defines that word, and this header reaches Qt's.)
  void grow(std::size_t slot_count) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(slot_count, Slot{});
    for (const Slot& slot : old) {
      if (slot.index == 0) continue;
      std::size_t at = static_cast<std::size_t>(slot.hash) & (slot_count - 1);
      while (slots_[at].index != 0) at = (at + 1) & (slot_count - 1);
      slots_[at] = slot;
    }
  }

  std::vector<std::string>& strings_;
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace skein
