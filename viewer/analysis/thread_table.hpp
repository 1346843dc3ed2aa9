// thread_table.hpp — per-thread state for the lints, indexed by thread id.
//
// Thread ids are the source's: Skein's runtime and the 2014 MirageOS traces
// count up from 0 (with -1, the scheduler), so ids are dense and a vector
// indexed by id costs one bounds check per lookup; a replay of a million
// records does several lookups per record, and a hash map would be most of
// its time. The vector grows only by doubling near the ids already seen;
// other ids (a hostile or odd trace: 10^9, negative ones) go to a hash map,
// so any id works and memory stays proportional to the threads seen.
// Past kDenseLimit slots (a trace of a hundred million records has more
// threads than that), the vector grows only while at least half of it
// holds ids seen rising (each new highest id counts once): ids that count
// up keep their one-lookup slots at any size, and a few ids spaced to
// double the vector each time cannot make it huge.
//
// Invariant: a reference returned by at() stays valid until the next call
// to at() (the vector may grow); callers do not hold two at once across one.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "recorder/format/record.hpp"

namespace skein {

template <class T>
class ThreadTable {
 public:
  // Below this many slots the vector grows near any id seen; past it, only
  // while half of it is in use (above).
  static constexpr ThreadId kDenseLimit = ThreadId{1} << 24;

  // The state of `id`, default-constructed on first use.
  T& at(ThreadId id) {
    if (id >= -1 && id < kMaxDense) {
      const auto slot = static_cast<std::size_t>(id + 1);
      if (slot < dense_.size()) {
        note(slot);
        return dense_[slot];
      }
      // Grow only near the ids already seen, so one huge id cannot cost
      // memory for every id below it; ids that count up always qualify.
      if (slot < 2 * dense_.size() + kGrowthSlack && (slot < static_cast<std::size_t>(kDenseLimit) || rising_ >= dense_.size() / 2)) {
        grow(std::max(slot + 1, dense_.size() * 2));
        note(slot);
        return dense_[slot];
      }
    }
    return sparse_[id];
  }
  // The slots of the vector (the ids it can hold without the hash map).
  [[nodiscard]] std::size_t dense_slots() const { return dense_.size(); }
  // The state of `id`, or nullptr when it was never touched.
  [[nodiscard]] const T* find(ThreadId id) const {
    if (id >= -1 && id < kMaxDense) {
      const auto slot = static_cast<std::size_t>(id + 1);
      if (slot < dense_.size()) return &dense_[slot];
    }
    const auto it = sparse_.find(id);
    return it == sparse_.end() ? nullptr : &it->second;
  }
  // Calls f(id, state) for every id with a slot, dense ids in order first.
  template <class F>
  void for_each(F&& f) const {
    for (std::size_t i = 0; i < dense_.size(); ++i) f(static_cast<ThreadId>(i) - 1, dense_[i]);
    for (const auto& [id, state] : sparse_) f(id, state);
  }

 private:
  static constexpr std::size_t kGrowthSlack = 4096;
  static constexpr ThreadId kMaxDense = ThreadId{1} << 40;

  void note(std::size_t slot) {
    if (slot > highest_ || rising_ == 0) {
      highest_ = slot;
      ++rising_;
    }
  }

  // Extends the dense range and moves into it the sparse ids it now covers
  // (invariant: an id lives in exactly one of the two).
  void grow(std::size_t size) {
    dense_.resize(size);
    for (auto it = sparse_.begin(); it != sparse_.end();) {
      if (it->first >= -1 && it->first < kMaxDense && static_cast<std::size_t>(it->first + 1) < size) {
        dense_[static_cast<std::size_t>(it->first + 1)] = std::move(it->second);
        it = sparse_.erase(it);
      } else {
        ++it;
      }
    }
  }

  std::vector<T> dense_;  // slot = id + 1
  std::size_t highest_ = 0;  // the highest slot used
  std::size_t rising_ = 0;   // how many times a use was the highest yet
  std::unordered_map<ThreadId, T> sparse_;
};

}  // namespace skein
