// folded_stacks_export.cpp — stacks interned as a tree: node 0 the empty
// stack, every other node one frame on its parent. A thread's node is found
// by walking up its creators to one whose node is known, then filling the
// path in top-down: no recursion, each thread visited a bounded number of
// times. Output order is one explicit-stack walk where each child is two
// entries, its line keyed "F" and its subtree "F;"; frames hold no ';', so
// sorting siblings by key gives byte order of the full text. Cut stacks
// that print alike are grouped by a hash of depth and frames, then compared.
#include "recorder/export/folded_stacks_export.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <unordered_map>

#include "recorder/format/checked_arithmetic.hpp"

namespace skein {
namespace {

constexpr std::uint32_t kUnknown = UINT32_MAX;
constexpr std::uint32_t kVisiting = UINT32_MAX - 1;
constexpr std::string_view kNoLabel = "(no label)";

class StackTree {
 public:
  explicit StackTree(const std::vector<StoredThread>& threads);

  // Calls line(frames, total_ns) for each stack a thread has, in the
  // output's order (stacks whose threads never ran only `with_idle`);
  // `frames` is valid during the call only.
  void for_each_line(bool with_idle, const std::function<void(std::string_view, TimeNs)>& line) const;

 private:
  struct Node {
    std::uint32_t parent = 0;
    std::uint32_t frame = 0;  // into frame_names_
    std::uint32_t depth = 0;  // frames from the root; 0 for the empty stack
    bool used = false;        // some thread has this stack
    TimeNs total = 0;
  };

  std::uint32_t frame_id(std::string name);
  std::uint32_t child(std::uint32_t parent, std::uint32_t frame);
  // The nodes whose lines are written, in order.
  [[nodiscard]] std::vector<std::uint32_t> line_order() const;
  // The innermost frames of `node`'s stack (at most kFoldedMaxFrames),
  // innermost first.
  void innermost_frames(std::uint32_t node, std::vector<std::uint32_t>& out) const;
  void append_line(std::uint32_t node, std::vector<std::uint32_t>& frames, std::string& out) const;

  std::vector<std::string> frame_names_;
  std::unordered_map<std::string, std::uint32_t> frame_ids_;
  std::vector<Node> nodes_{Node{}};
  std::unordered_map<std::uint64_t, std::uint32_t> children_;  // parent << 32 | frame -> node
};

StackTree::StackTree(const std::vector<StoredThread>& threads) {
  std::unordered_map<ThreadId, std::size_t> index;
  index.reserve(threads.size());
  for (std::size_t i = 0; i < threads.size(); ++i) index.emplace(threads[i].id, i);

  std::vector<std::uint32_t> stack_of(threads.size(), kUnknown);
  std::vector<std::size_t> path;
  for (std::size_t start = 0; start < threads.size(); ++start) {
    // Walk up to a thread whose stack is known, or to the top.
    std::uint32_t base = 0;
    for (std::size_t i = start;;) {
      if (stack_of[i] == kVisiting) break;  // a cycle: it closes here
      if (stack_of[i] != kUnknown) {
        base = stack_of[i];
        break;
      }
      stack_of[i] = kVisiting;
      path.push_back(i);
      const auto& parent = threads[i].parent;
      const auto up = parent ? index.find(*parent) : index.end();
      if (up == index.end()) break;
      i = up->second;
    }
    // Fill in top-down: a labelled thread adds its frame to its creator's stack.
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const StoredThread& t = threads[*it];
      if (t.label) base = child(base, frame_id(folded_frame_name(*t.label)));
      stack_of[*it] = base;
    }
    path.clear();
  }
  for (std::size_t i = 0; i < threads.size(); ++i) {
    Node& n = nodes_[stack_of[i]];
    n.total = saturating_add(n.total, threads[i].run_time);
    n.used = true;
  }
  // The empty stack prints as "(no label)": one line with a root frame
  // named so (a thread labelled "(no label)").
  if (nodes_[0].used) {
    const std::uint32_t root = child(0, frame_id(std::string(kNoLabel)));
    nodes_[root].total = saturating_add(nodes_[root].total, nodes_[0].total);
    nodes_[root].used = true;
    nodes_[0].used = false;
  }
}

std::uint32_t StackTree::frame_id(std::string name) {
  const auto [it, added] = frame_ids_.try_emplace(std::move(name), static_cast<std::uint32_t>(frame_names_.size()));
  if (added) frame_names_.push_back(it->first);
  return it->second;
}

std::uint32_t StackTree::child(std::uint32_t parent, std::uint32_t frame) {
  const std::uint64_t key = std::uint64_t{parent} << 32 | frame;
  const auto [it, added] = children_.try_emplace(key, static_cast<std::uint32_t>(nodes_.size()));
  if (added) nodes_.push_back(Node{parent, frame, nodes_[parent].depth + 1, false, 0});
  return it->second;
}

std::vector<std::uint32_t> StackTree::line_order() const {
  // The children of each node, contiguous (counting sort by parent), as
  // entries: child << 1 for its own line, child << 1 | 1 for its subtree.
  const std::size_t n = nodes_.size();
  std::vector<std::uint32_t> first(n + 1, 0);
  for (std::size_t c = 1; c < n; ++c) first[nodes_[c].parent + 1] += 2;
  for (std::size_t p = 0; p < n; ++p) first[p + 1] += first[p];
  std::vector<std::uint32_t> entries(first[n]);
  {
    std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
    for (std::size_t c = 1; c < n; ++c) {
      const auto id = static_cast<std::uint32_t>(c);
      entries[fill[nodes_[c].parent]++] = id << 1;
      entries[fill[nodes_[c].parent]++] = id << 1 | 1;
    }
  }
  // Entry keys: the frame, and the frame followed by ';' for a subtree.
  const auto less = [this](std::uint32_t a, std::uint32_t b) {
    const std::string_view fa = frame_names_[nodes_[a >> 1].frame];
    const std::string_view fb = frame_names_[nodes_[b >> 1].frame];
    const std::size_t common = std::min(fa.size(), fb.size());
    for (std::size_t i = 0; i < common; ++i)
      if (fa[i] != fb[i]) return static_cast<unsigned char>(fa[i]) < static_cast<unsigned char>(fb[i]);
    // One frame is a prefix of the other (or they are the same child's).
    const int next_a = fa.size() > common ? static_cast<unsigned char>(fa[common]) : (a & 1) ? ';' : -1;
    const int next_b = fb.size() > common ? static_cast<unsigned char>(fb[common]) : (b & 1) ? ';' : -1;
    if (next_a != next_b) return next_a < next_b;
    return fa.size() < fb.size() || (fa.size() == fb.size() && (a & 1) < (b & 1));
  };
  for (std::size_t p = 0; p < n; ++p)
    std::sort(entries.begin() + first[p], entries.begin() + first[p + 1], less);

  std::vector<std::uint32_t> order;
  struct Cursor {
    std::uint32_t next, end;
  };
  std::vector<Cursor> walk{Cursor{first[0], first[1]}};
  while (!walk.empty()) {
    Cursor& top = walk.back();
    if (top.next == top.end) {
      walk.pop_back();
      continue;
    }
    const std::uint32_t entry = entries[top.next++];
    const std::uint32_t node = entry >> 1;
    if ((entry & 1) == 0) {
      if (nodes_[node].used) order.push_back(node);
    } else if (first[node] != first[node + 1]) {
      walk.push_back(Cursor{first[node], first[node + 1]});  // may move `top`: not used after
    }
  }
  return order;
}

void StackTree::innermost_frames(std::uint32_t node, std::vector<std::uint32_t>& out) const {
  out.clear();
  for (std::uint32_t at = node; at != 0 && out.size() < kFoldedMaxFrames; at = nodes_[at].parent)
    out.push_back(nodes_[at].frame);
}

void StackTree::append_line(std::uint32_t node, std::vector<std::uint32_t>& frames, std::string& out) const {
  innermost_frames(node, frames);
  const std::uint32_t depth = nodes_[node].depth;
  if (depth > frames.size()) {
    const std::uint32_t left_out = depth - static_cast<std::uint32_t>(frames.size());
    char digits[16];
    out += "[... ";
    out.append(digits, std::to_chars(digits, digits + sizeof digits, left_out).ptr);
    out += left_out == 1 ? " frame]" : " frames]";
    out += ';';
  }
  // Sized first, then copied: a line is up to kFoldedMaxFrames names.
  std::size_t size = frames.empty() ? 0 : frames.size() - 1;
  for (const std::uint32_t f : frames) size += frame_names_[f].size();
  const std::size_t start = out.size();
  out.resize(start + size);
  char* p = out.data() + start;
  for (auto it = frames.rbegin(); it != frames.rend(); ++it) {
    if (it != frames.rbegin()) *p++ = ';';
    const std::string& name = frame_names_[*it];
    p = std::copy(name.begin(), name.end(), p);
  }
}

void StackTree::for_each_line(bool with_idle, const std::function<void(std::string_view, TimeNs)>& line) const {
  std::vector<std::uint32_t> order = line_order();
  if (!with_idle)
    order.erase(std::remove_if(order.begin(), order.end(), [&](std::uint32_t n) { return nodes_[n].total == 0; }),
                order.end());
  // Cut stacks that print alike are one line, at the first one's place:
  // grouped by a hash of their depth and innermost frames, compared frame
  // by frame within a group.
  std::vector<TimeNs> totals(order.size());
  std::vector<bool> merged(order.size(), false);
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> cut;
  std::vector<std::uint32_t> frames, other;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Node& node = nodes_[order[k]];
    totals[k] = node.total;
    if (node.depth <= kFoldedMaxFrames) continue;
    innermost_frames(order[k], frames);
    std::uint64_t hash = 0xcbf29ce484222325ULL ^ node.depth;
    for (const std::uint32_t f : frames) hash = (hash ^ f) * 0x100000001b3ULL;
    std::vector<std::size_t>& alike = cut[hash];
    for (const std::size_t first : alike) {
      innermost_frames(order[first], other);
      if (nodes_[order[first]].depth == node.depth && other == frames) {
        totals[first] = saturating_add(totals[first], totals[k]);
        merged[k] = true;
        break;
      }
    }
    if (!merged[k]) alike.push_back(k);
  }
  std::string text;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (merged[k]) continue;
    text.clear();
    append_line(order[k], frames, text);
    line(text, totals[k]);
  }
}

}  // namespace

std::vector<FoldedStack> folded_stacks(const std::vector<StoredThread>& threads) {
  std::vector<FoldedStack> out;
  StackTree(threads).for_each_line(/*with_idle=*/true, [&](std::string_view frames, TimeNs total) {
    out.push_back(FoldedStack{std::string(frames), total});
  });
  return out;
}

Result<std::uint64_t> write_folded_stacks(const std::vector<StoredThread>& threads, std::unique_ptr<ByteSink> sink) {
  constexpr std::size_t kChunk = std::size_t{1} << 20;
  std::string text;
  text.reserve(kChunk + 4096);
  std::uint64_t lines = 0;
  Status written;
  StackTree(threads).for_each_line(/*with_idle=*/false, [&](std::string_view frames, TimeNs total) {
    const TimeNs us = saturating_add(total, 500) / 1000;
    if (us <= 0) return;
    text += frames;
    text += ' ';
    char digits[24];
    text.append(digits, std::to_chars(digits, digits + sizeof digits, us).ptr);
    text += '\n';
    ++lines;
    if (text.size() >= kChunk) {
      if (written.ok()) written = sink->write(text);
      text.clear();
    }
  });
  if (written.ok() && !text.empty()) written = sink->write(text);
  Status closed = sink->close();
  if (!written.ok()) return written.error();
  if (!closed.ok()) return closed.error();
  return lines;
}

Result<std::uint64_t> export_folded_stacks(TraceStore& store, std::unique_ptr<ByteSink> sink) {
  auto threads = store.threads();
  if (!threads) return threads.error();
  return write_folded_stacks(threads.value(), std::move(sink));
}

}  // namespace skein
