// flame_graph.cpp — the index is a trie of label paths: node 0 the root,
// node 1 "(unlabelled)", children keyed by (parent node, interned label) in
// a hash map, so parents precede children. Each unplaced thread is walked
// up to a placed one (a thread met again on one walk is a cycle, cut
// there), then its chain is placed root first; children are sorted by name
// once. build() sums activation overlaps into each node's self, totals
// subtrees in one backward pass and emits the frames that ran depth-first
// from an explicit stack. The layout scales by the focus's total.
#include "viewer/timeline/flame_graph.hpp"

#include <algorithm>
#include <unordered_map>

#include "recorder/format/checked_arithmetic.hpp"

namespace skein {
namespace {

constexpr std::int32_t kRootNode = 0;
constexpr std::int32_t kUnlabelledNode = 1;
// node_of_thread_ while the index is being made.
constexpr std::int32_t kUnknown = -3;
constexpr std::int32_t kVisiting = -2;
constexpr std::int32_t kNoLabel = -1;  // no labelled ancestor (yet)

}  // namespace

std::optional<std::int32_t> FlameGraph::find(const std::vector<std::string>& path) const {
  if (frames.empty()) return std::nullopt;
  std::int32_t at = 0;
  for (const std::string& name : path) {
    const auto& children = frames[static_cast<std::size_t>(at)].children;
    const auto it = std::find_if(children.begin(), children.end(), [&](std::int32_t c) {
      return frames[static_cast<std::size_t>(c)].name == name;
    });
    if (it == children.end()) return std::nullopt;
    at = *it;
  }
  return at;
}

std::vector<std::string> FlameGraph::path_of(std::int32_t frame) const {
  std::vector<std::string> path;
  for (std::int32_t f = frame; f > 0; f = frames[static_cast<std::size_t>(f)].parent)
    path.push_back(frames[static_cast<std::size_t>(f)].name);
  std::reverse(path.begin(), path.end());
  return path;
}

double FlameGraph::share(std::int32_t frame, std::int32_t of) const {
  const TimeNs whole = frames[static_cast<std::size_t>(of)].total;
  return whole > 0 ? static_cast<double>(frames[static_cast<std::size_t>(frame)].total) / static_cast<double>(whole)
                   : 0;
}

std::vector<std::string> label_ancestry(const TimelineData& data, std::uint32_t thread) {
  std::vector<std::string> out;
  std::vector<bool> seen(data.threads.size(), false);
  std::optional<std::uint32_t> at = thread;
  while (at && *at < data.threads.size() && !seen[*at]) {
    seen[*at] = true;
    const TimelineThread& t = data.threads[*at];
    if (t.label != 0) out.push_back(data.text(t.label));
    at = data.thread_index(t.parent);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

FlameGraphIndex::FlameGraphIndex(const TimelineData& data) {
  nodes_.push_back(Node{0, -1, {}});
  nodes_.push_back(Node{0, kRootNode, {}});
  nodes_[kRootNode].children.push_back(kUnlabelledNode);
  std::unordered_map<std::uint64_t, std::int32_t> child_of;  // (parent node, label) -> node
  const auto child = [&](std::int32_t parent, std::uint32_t label) {
    const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(parent)) << 32) | label;
    const auto [it, added] = child_of.emplace(key, static_cast<std::int32_t>(nodes_.size()));
    if (added) {
      nodes_.push_back(Node{label, parent, {}});
      nodes_[static_cast<std::size_t>(parent)].children.push_back(it->second);
    }
    return it->second;
  };

  const std::size_t n = data.threads.size();
  node_of_thread_.assign(n, kUnknown);
  std::vector<std::uint32_t> chain;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (node_of_thread_[i] != kUnknown) continue;
    // Up the parent links to a thread already placed, or the top.
    chain.clear();
    std::int32_t base = kNoLabel;
    std::uint32_t t = i;
    for (;;) {
      const std::int32_t known = node_of_thread_[t];
      if (known == kVisiting) break;  // a cycle: cut it here
      if (known != kUnknown) {
        base = known == kUnlabelledNode ? kNoLabel : known;
        break;
      }
      node_of_thread_[t] = kVisiting;
      chain.push_back(t);
      const auto parent = data.thread_index(data.threads[t].parent);
      if (!parent) break;
      t = *parent;
    }
    // Back down, root first.
    for (std::size_t k = chain.size(); k-- > 0;) {
      const std::uint32_t c = chain[k];
      const std::uint32_t label = data.threads[c].label;
      if (label != 0) base = child(base == kNoLabel ? kRootNode : base, label);
      node_of_thread_[c] = base == kNoLabel ? kUnlabelledNode : base;
    }
  }

  const auto name = [&](std::int32_t node) -> const std::string& {
    static const std::string unlabelled = kFlameUnlabelledName;
    return node == kUnlabelledNode ? unlabelled : data.text(nodes_[static_cast<std::size_t>(node)].label);
  };
  for (Node& node : nodes_)
    std::sort(node.children.begin(), node.children.end(), [&](std::int32_t a, std::int32_t b) {
      const int c = name(a).compare(name(b));
      return c != 0 ? c < 0 : a < b;
    });
}

FlameGraph FlameGraphIndex::build(const TimelineData& data, TimeNs t0, TimeNs t1) const {
  FlameGraph g;
  g.t0 = t0;
  g.t1 = t1;
  if (nodes_.empty()) {
    g.frames.push_back(FlameFrame{kFlameRootName, 0, 0, -1, 0, {}});
    return g;
  }
  std::vector<TimeNs> self(nodes_.size(), 0);
  if (t1 > t0) {
    for (const TimelineRow& row : data.rows) {
      // Activations are sorted and disjoint, so their ends are sorted too.
      auto it = std::partition_point(row.activations.begin(), row.activations.end(),
                                     [&](const TimelineActivation& a) { return a.end <= t0; });
      for (; it != row.activations.end() && it->start < t1; ++it) {
        const TimeNs overlap = saturating_sub(std::min(it->end, t1), std::max(it->start, t0));
        if (overlap <= 0 || it->thread >= node_of_thread_.size()) continue;
        TimeNs& sum = self[static_cast<std::size_t>(node_of_thread_[it->thread])];
        sum = saturating_add(sum, overlap);
      }
    }
  }
  // Parents come before children: one backward pass sums the subtrees.
  // Sums saturate: only rows whose activations overlap (a damaged or
  // hand-made trace) can pass INT64_MAX.
  std::vector<TimeNs> total = self;
  for (std::size_t k = nodes_.size(); k-- > 1;) {
    TimeNs& sum = total[static_cast<std::size_t>(nodes_[k].parent)];
    sum = saturating_add(sum, total[k]);
  }

  // Depth-first, children in name order, only frames that ran.
  struct Pending {
    std::int32_t node;
    std::int32_t parent_frame;
    std::int32_t depth;
  };
  std::vector<Pending> stack{{kRootNode, -1, 0}};
  while (!stack.empty()) {
    const Pending p = stack.back();
    stack.pop_back();
    const auto frame = static_cast<std::int32_t>(g.frames.size());
    const auto node = static_cast<std::size_t>(p.node);
    FlameFrame f;
    f.name = p.node == kRootNode        ? kFlameRootName
             : p.node == kUnlabelledNode ? kFlameUnlabelledName
                                         : data.text(nodes_[node].label);
    f.total = total[node];
    f.self = self[node];
    f.parent = p.parent_frame;
    f.depth = p.depth;
    g.frames.push_back(std::move(f));
    if (p.parent_frame >= 0) g.frames[static_cast<std::size_t>(p.parent_frame)].children.push_back(frame);
    const auto& children = nodes_[node].children;
    for (auto c = children.rbegin(); c != children.rend(); ++c)
      if (total[static_cast<std::size_t>(*c)] > 0) stack.push_back({*c, frame, p.depth + 1});
  }
  return g;
}

FlameGraph build_flame_graph(const TimelineData& data, TimeNs t0, TimeNs t1) {
  return FlameGraphIndex(data).build(data, t0, t1);
}

std::vector<FlameRect> layout_flame_graph(const FlameGraph& graph, std::int32_t focus, double width,
                                          double min_width) {
  std::vector<FlameRect> rects;
  if (graph.frames.empty() || width <= 0) return rects;
  if (focus < 0 || static_cast<std::size_t>(focus) >= graph.frames.size()) focus = 0;
  const auto frame = [&](std::int32_t f) -> const FlameFrame& { return graph.frames[static_cast<std::size_t>(f)]; };
  // The focus and its ancestors, full width.
  std::vector<std::int32_t> chain;
  for (std::int32_t f = focus; f >= 0; f = frame(f).parent) chain.push_back(f);
  for (auto f = chain.rbegin(); f != chain.rend(); ++f) rects.push_back({*f, frame(*f).depth, 0, width});
  if (frame(focus).total <= 0) return rects;
  const double scale = width / static_cast<double>(frame(focus).total);
  // Its subtree, depth-first: each child left-aligned after its elder siblings.
  struct Pending {
    std::int32_t frame;
    double x;
  };
  std::vector<Pending> stack{{focus, 0}};
  std::vector<Pending> children;
  while (!stack.empty()) {
    const Pending p = stack.back();
    stack.pop_back();
    if (p.frame != focus) {
      const double w = static_cast<double>(frame(p.frame).total) * scale;
      rects.push_back({p.frame, frame(p.frame).depth, p.x, w});
    }
    children.clear();
    double x = p.x;
    for (std::int32_t c : frame(p.frame).children) {
      const double w = static_cast<double>(frame(c).total) * scale;
      if (w >= min_width && w > 0) children.push_back({c, x});
      x += w;
    }
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
  return rects;
}

std::optional<FlameRect> flame_rect_at(const std::vector<FlameRect>& rects, double x, std::int32_t level) {
  for (const FlameRect& r : rects)
    if (r.level == level && x >= r.x && x < r.x + r.w) return r;
  return std::nullopt;
}

}  // namespace skein
