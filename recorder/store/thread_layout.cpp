// thread_layout.cpp — the header's steps, in order: a union-find over
// merged_into (ids found through a sorted index) gives the chains, which are
// then identified by their head so the result does not depend on the input
// order (ids found in a table instead when they are dense); prominence is
// two binary searches per labelled chain over the sorted creation times;
// chains are placed in (not prominent, start, head id) order; a min segment
// tree of each row's busy-until time, a leaf per row used so far, finds the
// first row at or below the parent's that is free at the chain's start.
#include "recorder/store/thread_layout.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace skein {
namespace {

class UnionFind {
 public:
  explicit UnionFind(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0u); }
  std::uint32_t find(std::uint32_t x) {
    while (parent_[x] != x) {
      parent_[x] = parent_[parent_[x]];
      x = parent_[x];
    }
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::uint32_t> parent_;
};

// Rows' busy-until times; first_free(p, t) is the first row >= p whose
// busy-until is < t. Rows never used are busy until -infinity. The tree
// covers the rows used so far and one more (the first never used, which is
// free at any time), doubling as they grow: a trace uses far fewer rows
// than it has chains, and a tree of the rows used stays in cache.
class RowIndex {
 public:
  RowIndex() { tree_.assign(2 * size_, std::numeric_limits<TimeNs>::min()); }
  void occupy(std::size_t row, TimeNs until) {
    while (row + 1 >= size_) grow();
    std::size_t i = row + size_;
    tree_[i] = until;
    for (i /= 2; i >= 1; i /= 2) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
  }
  // Always found: a row from the last used on is free.
  [[nodiscard]] std::size_t first_free(std::size_t from, TimeNs t) const {
    return from >= size_ ? from : search(1, 0, size_, from, t);
  }

 private:
  void grow() {
    std::vector<TimeNs> bigger(4 * size_, std::numeric_limits<TimeNs>::min());
    for (std::size_t i = 0; i < size_; ++i) bigger[2 * size_ + i] = tree_[size_ + i];
    size_ *= 2;
    tree_ = std::move(bigger);
    for (std::size_t i = size_ - 1; i >= 1; --i) tree_[i] = std::min(tree_[2 * i], tree_[2 * i + 1]);
  }
  // The first leaf >= from under node (covering [lo, hi)) with value < t;
  // size_ when none.
  [[nodiscard]] std::size_t search(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from,
                                   TimeNs t) const {
    if (hi <= from || tree_[node] >= t) return size_;
    if (hi - lo == 1) return lo;
    const std::size_t mid = (lo + hi) / 2;
    const std::size_t left = search(2 * node, lo, mid, from, t);
    return left != size_ ? left : search(2 * node + 1, mid, hi, from, t);
  }
  std::size_t size_ = 2;
  std::vector<TimeNs> tree_;
};

struct Chain {
  TimeNs start = 0;
  TimeNs end = 0;
  ThreadId head_id = 0;
  std::uint32_t head = 0;  // index of the head thread
  bool labelled = false;   // some member is
  bool prominent = false;  // step 3
};

}  // namespace

namespace {

// Steps 1 and 2: the chains, each thread's chain number, and the id index.
struct Chains {
  std::vector<Chain> list;
  std::vector<std::uint32_t> chain_of;  // thread index -> chain number
  std::vector<std::uint32_t> by_id;     // thread indexes sorted by id
  // When the ids are dense (the runtime numbers threads from 0): the index
  // of id k at dense[k - dense_base], or -1; else empty.
  ThreadId dense_base = 0;
  std::vector<std::int32_t> dense;
};

std::optional<std::uint32_t> find_id(std::span<const LayoutThread> threads, const Chains& chains, ThreadId id) {
  if (!chains.dense.empty()) {
    if (id < chains.dense_base) return std::nullopt;
    const auto k = static_cast<std::uint64_t>(id) - static_cast<std::uint64_t>(chains.dense_base);
    if (k >= chains.dense.size() || chains.dense[k] < 0) return std::nullopt;
    return static_cast<std::uint32_t>(chains.dense[k]);
  }
  const std::vector<std::uint32_t>& by_id = chains.by_id;
  auto it = std::lower_bound(by_id.begin(), by_id.end(), id,
                             [&](std::uint32_t i, ThreadId v) { return threads[i].id < v; });
  if (it == by_id.end() || threads[*it].id != id) return std::nullopt;
  return *it;
}

Chains find_chains(std::span<const LayoutThread> threads) {
  const std::size_t n = threads.size();
  Chains out;
  // Thread ids to indexes, through a sorted permutation (ids are unique in
  // the store; a duplicate keeps the first).
  out.by_id.resize(n);
  std::iota(out.by_id.begin(), out.by_id.end(), 0u);
  const auto by_id = [&](std::uint32_t a, std::uint32_t b) { return threads[a].id < threads[b].id; };
  // The store and the view filters give the threads in id order already.
  if (!std::is_sorted(out.by_id.begin(), out.by_id.end(), by_id))
    std::stable_sort(out.by_id.begin(), out.by_id.end(), by_id);
  if (n > 0) {
    const ThreadId low = threads[out.by_id.front()].id, high = threads[out.by_id.back()].id;
    // The span in unsigned arithmetic: ids may be any int64.
    const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    if (range < 2 * static_cast<std::uint64_t>(n) + 16) {
      out.dense_base = low;
      out.dense.assign(static_cast<std::size_t>(range) + 1, -1);
      // In id order, so a duplicate id keeps the first, as the search does.
      for (std::size_t k = n; k-- > 0;)
        out.dense[static_cast<std::size_t>(static_cast<std::uint64_t>(threads[out.by_id[k]].id) -
                                           static_cast<std::uint64_t>(low))] = static_cast<std::int32_t>(out.by_id[k]);
    }
  }
  UnionFind chains(n);
  for (std::size_t i = 0; i < n; ++i)
    if (threads[i].merged_into)
      if (auto into = find_id(threads, out, *threads[i].merged_into))
        chains.join(static_cast<std::uint32_t>(i), *into);
  // The union-find's representative depends on input order, so chains are
  // identified by their head from here on.
  std::vector<std::int64_t> chain_of_root(n, -1);
  out.chain_of.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t root = chains.find(static_cast<std::uint32_t>(i));
    const LayoutThread& t = threads[i];
    if (chain_of_root[root] < 0) {
      chain_of_root[root] = static_cast<std::int64_t>(out.list.size());
      out.list.push_back(Chain{t.start, std::max(t.start, t.end), t.id, static_cast<std::uint32_t>(i), t.labelled});
    } else {
      Chain& c = out.list[static_cast<std::size_t>(chain_of_root[root])];
      c.end = std::max(c.end, std::max(t.start, t.end));
      c.labelled = c.labelled || t.labelled;
      if (t.start < c.start || (t.start == c.start && t.id < c.head_id)) {
        c.start = t.start;
        c.head_id = t.id;
        c.head = static_cast<std::uint32_t>(i);
      }
    }
    out.chain_of[i] = static_cast<std::uint32_t>(chain_of_root[root]);
  }
  return out;
}

// Step 3: a labelled chain is prominent when at least kProminentShare of
// all creations fall within its span.
void mark_prominent(std::span<const LayoutThread> threads, std::vector<Chain>& chains) {
  std::vector<TimeNs> starts;
  starts.reserve(threads.size());
  for (const LayoutThread& t : threads) starts.push_back(t.start);
  std::sort(starts.begin(), starts.end());
  const double needed = kProminentShare * static_cast<double>(starts.size());
  for (Chain& c : chains) {
    if (!c.labelled) continue;
    const auto from = std::lower_bound(starts.begin(), starts.end(), c.start);
    const auto to = std::upper_bound(from, starts.end(), c.end);
    c.prominent = static_cast<double>(to - from) >= needed;
  }
}

}  // namespace

std::vector<std::uint32_t> merge_chain_heads(std::span<const LayoutThread> threads) {
  const Chains chains = find_chains(threads);
  std::vector<std::uint32_t> heads(threads.size());
  for (std::size_t i = 0; i < threads.size(); ++i) heads[i] = chains.list[chains.chain_of[i]].head;
  return heads;
}

ThreadLayout layout_threads(std::span<const LayoutThread> threads) {
  const std::size_t n = threads.size();
  ThreadLayout out;
  out.rows.assign(n, 0);
  out.chain_head.assign(n, 0);
  if (n == 0) return out;
  Chains chains = find_chains(threads);
  mark_prominent(threads, chains.list);
  const std::vector<Chain>& list = chains.list;

  // 4. Placement in (not prominent, start, head id) order.
  std::vector<std::uint32_t> order(list.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (list[a].prominent != list[b].prominent) return list[a].prominent;
    return list[a].start != list[b].start ? list[a].start < list[b].start : list[a].head_id < list[b].head_id;
  });
  std::vector<std::int32_t> chain_row(list.size(), -1);
  RowIndex rows;
  for (const std::uint32_t c : order) {
    const Chain& chain = list[c];
    std::size_t from = 0;
    if (const auto& parent = threads[chain.head].parent; parent && *parent >= 0)
      if (auto p = find_id(threads, chains, *parent)) {
        const std::uint32_t parent_chain = chains.chain_of[*p];
        if (parent_chain != c && chain_row[parent_chain] >= 0)
          from = static_cast<std::size_t>(chain_row[parent_chain]);
      }
    const std::size_t row = rows.first_free(from, chain.start);
    rows.occupy(row, chain.end);
    chain_row[c] = static_cast<std::int32_t>(row);
    out.row_count = std::max(out.row_count, static_cast<std::int32_t>(row) + 1);
  }
  out.prominent.assign(n, false);
  for (std::size_t i = 0; i < n; ++i) {
    out.rows[i] = chain_row[chains.chain_of[i]];
    out.chain_head[i] = list[chains.chain_of[i]].head;
    out.prominent[i] = list[chains.chain_of[i]].prominent;
  }
  return out;
}

}  // namespace skein
