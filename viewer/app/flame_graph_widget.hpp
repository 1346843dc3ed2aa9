// flame_graph_widget.hpp — where run time went in a time range, by label
// ancestry (viewer/timeline/flame_graph.hpp), drawn root at the top: each
// frame's width is its run time in the range, its children below it.
//
// Honest about what it is: frames add up run time, and threads running in
// parallel both count, so it shows where run time went, not wall time; the
// header says so in words, under the range and its total run time.
//
// Interaction: a click on a frame zooms into it (it spans the width, its
// ancestors stay above it, full width); clicking an ancestor zooms out to
// it, Backspace or a right click goes back one zoom, Esc back to the root.
// A click on a labelled frame also emits label_activated(label), for the
// owner to highlight those threads. Hovering a frame shows its label
// path, run time and share of the range's run time (and of the focus's,
// when zoomed).
//
// The graph is rebuilt lazily: set_range() only records the range, and
// the next paint (or graph()) builds it, O(activations in range), from an
// index made once per set_data; a hidden dock costs nothing while the
// timeline scrolls. A zoom survives a new range when its label path still
// ran in it.
//
// Frames are laid out by layout_flame_graph() across the widget's width,
// level L at y = kHeaderHeight + L * kRowHeight; frame_rect() says where.
#pragma once

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

#include "viewer/timeline/flame_graph.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

class FlameGraphWidget : public QWidget {
  Q_OBJECT

 public:
  static constexpr int kHeaderHeight = 40;  // two lines of text
  static constexpr int kRowHeight = 18;
  static constexpr double kMinFrameWidth = 0.5;  // narrower frames are not drawn

  explicit FlameGraphWidget(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> trace);
  // The range to aggregate, ns (store times).
  void set_range(double t0, double t1);

  [[nodiscard]] const FlameGraph& graph() const;
  // The frame spanning the width (0: the root).
  [[nodiscard]] std::int32_t focus() const;
  void zoom_to(std::int32_t frame);
  // Back one zoom; false when at the root already.
  bool zoom_back();
  void zoom_reset();
  [[nodiscard]] std::vector<FlameRect> frame_layout() const;
  // Where `frame` is drawn; empty when it is not.
  [[nodiscard]] QRectF frame_rect(std::int32_t frame) const;
  // The frame drawn under pos; -1 when none.
  [[nodiscard]] std::int32_t frame_at(QPointF pos) const;
  // The two header lines.
  [[nodiscard]] QString header_text() const;
  // "server ▸ handler\nrun time 1.00 ms\n24% of the run time in the range"; empty for -1.
  [[nodiscard]] QString tooltip_for(std::int32_t frame) const;
  // A frame's fill, from its name (stable across runs and ranges).
  [[nodiscard]] static QColor frame_colour(const std::string& name);

  QSize sizeHint() const override { return {800, 300}; }
  QSize minimumSizeHint() const override { return {240, 120}; }

 signals:
  void label_activated(const QString& label);
  void focus_changed();

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void set_focus_path(std::vector<std::string> path, bool remember);

  std::shared_ptr<const TimelineData> data_;
  FlameGraphIndex index_;
  double t0_ = 0;
  double t1_ = 0;
  mutable FlameGraph graph_;
  mutable bool dirty_ = true;
  // Zooms as label paths, so that they survive a rebuild.
  std::vector<std::string> focus_path_;
  std::vector<std::vector<std::string>> history_;
  QPointF press_pos_;
  bool pressed_ = false;
};

}  // namespace skein
