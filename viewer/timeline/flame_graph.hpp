// flame_graph.hpp — where run time went in a time range, aggregated by
// label ancestry. No Qt.
//
// A thread's label ancestry is the chain of its labelled creators: walk
// the parent links from the thread (itself included), keep the labelled
// ones, root first. A frame is one such chain; its run time is that of
// every thread whose ancestry is the chain (its `self`) plus its
// children's. An unlabelled thread counts under its nearest labelled
// ancestor; a thread with no labelled ancestor at all counts under
// "(unlabelled)", a child of the root. The root, "all", is everything.
//
// Run time in [t0, t1] is the overlap of each activation with the range,
// so an activation the range cuts counts only its inside part. Frames add
// up run time, not wall time: threads that ran in parallel (two rows at
// once, in a trace of several loops) both count, and a frame may exceed
// the range's length. It shows where run time went, not how long anything
// took; the widget says so.
//
// Design: FlameGraphIndex maps every thread to its frame of the label-path
// trie once, O(threads) (iterative with a cycle guard, so a chain of a
// million binds does not recurse). build(t0, t1) then binary-searches each
// row's sorted activations for the first one ending after t0 and walks
// those starting before t1: O(rows log n + activations in range + trie
// nodes). The result holds only frames with run time, in depth-first
// order, children sorted by name (as flame graphs do, so that frames keep
// their place when the range moves).
//
// Invariants of a FlameGraph: frames[0] is the root; a frame's parent
// comes before it; total == self + the children's totals; children are
// sorted by name; every frame but the root has total > 0.
//
// Layout: layout_flame_graph() places frames for a width, root at level 0
// (the top: an icicle, as in Perfetto and speedscope). A focused frame
// (a click zooms into it) spans the whole width with its ancestors above
// it, also full width (clicking one zooms back out); its descendants share
// the width by run time, in children order, left-aligned under their
// parent (the gap on the right is the parent's self time).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"

namespace skein {

inline constexpr const char* kFlameRootName = "all";
inline constexpr const char* kFlameUnlabelledName = "(unlabelled)";

struct FlameFrame {
  std::string name;  // a label (labels joined by " · "), "all" or "(unlabelled)"
  TimeNs total = 0;  // run time of its threads and its descendants' in the range, ns
  TimeNs self = 0;   // run time of the threads whose ancestry ends here, ns
  std::int32_t parent = -1;
  std::int32_t depth = 0;
  std::vector<std::int32_t> children;  // by name
};

struct FlameGraph {
  TimeNs t0 = 0;
  TimeNs t1 = 0;
  std::vector<FlameFrame> frames;  // frames[0]: the root

  [[nodiscard]] TimeNs total() const { return frames.empty() ? 0 : frames[0].total; }
  // The frame at `path` (names below the root); nullopt when absent.
  [[nodiscard]] std::optional<std::int32_t> find(const std::vector<std::string>& path) const;
  // The names from below the root down to `frame`.
  [[nodiscard]] std::vector<std::string> path_of(std::int32_t frame) const;
  // frame's total over of's total (0 when of ran nothing).
  [[nodiscard]] double share(std::int32_t frame, std::int32_t of = 0) const;
};

// The label ancestry of one thread, root first; empty when no thread on
// its parent chain (itself included) has a label.
[[nodiscard]] std::vector<std::string> label_ancestry(const TimelineData& data, std::uint32_t thread);

class FlameGraphIndex {
 public:
  FlameGraphIndex() = default;
  explicit FlameGraphIndex(const TimelineData& data);

  // `data` must be the TimelineData the index was made from.
  [[nodiscard]] FlameGraph build(const TimelineData& data, TimeNs t0, TimeNs t1) const;
  [[nodiscard]] std::size_t thread_count() const { return node_of_thread_.size(); }

 private:
  struct Node {
    std::uint32_t label = 0;  // index into strings
    std::int32_t parent = -1;
    std::vector<std::int32_t> children;  // by name once built
  };
  // nodes_[0]: the root; nodes_[1]: "(unlabelled)"; parents before children.
  std::vector<Node> nodes_;
  std::vector<std::int32_t> node_of_thread_;
};

// Convenience: index and build at once (the widget keeps the index).
[[nodiscard]] FlameGraph build_flame_graph(const TimelineData& data, TimeNs t0, TimeNs t1);

struct FlameRect {
  std::int32_t frame = 0;
  std::int32_t level = 0;  // row from the top: the frame's depth
  double x = 0;
  double w = 0;
};

// Frames placed across `width` with `focus` (a frame index) spanning it;
// frames narrower than min_width are left out with their descendants.
// Ancestors first, then the focus's subtree depth-first.
[[nodiscard]] std::vector<FlameRect> layout_flame_graph(const FlameGraph& graph, std::int32_t focus, double width,
                                                        double min_width = 0);
// The rectangle under x on `level`; nullopt when none.
[[nodiscard]] std::optional<FlameRect> flame_rect_at(const std::vector<FlameRect>& rects, double x,
                                                     std::int32_t level);

}  // namespace skein
