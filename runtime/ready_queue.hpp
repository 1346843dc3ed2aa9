// ready_queue.hpp — the scheduler's queue of deferred waiter lists: callbacks
// that would have run past the depth limit (settle.hpp), in the order their
// inputs settled.
//
// A ring buffer of (settled node, detached waiter list); it grows by doubling
// and never shrinks, so the steady state does not allocate. Each entry holds
// a reference on its node.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/promise_node.hpp"

namespace skein::detail {

struct ReadyEntry {
  Node* settled;
  Waiter* last;
};

class ReadyQueue {
 public:
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  void push(ReadyEntry entry) {
    if (size_ == ring_.size()) grow();
    ring_[(head_ + size_) & (ring_.size() - 1)] = entry;
    ++size_;
  }
  ReadyEntry pop() noexcept {
    ReadyEntry entry = ring_[head_];
    head_ = (head_ + 1) & (ring_.size() - 1);
    --size_;
    return entry;
  }

 private:
  void grow() {
    std::vector<ReadyEntry> bigger(ring_.empty() ? 64 : ring_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
    ring_.swap(bigger);
    head_ = 0;
  }
  std::vector<ReadyEntry> ring_;  // size: zero or a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace skein::detail
