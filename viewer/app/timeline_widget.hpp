// timeline_widget.hpp — the timeline on screen: a QWidget that owns a
// TimelineViewState (viewer/core/timeline_view.hpp) and draws with the
// shared painter (viewer/render/timeline_painter.hpp). It holds no trace
// logic of its own: positions, picking and folding are the core's, so
// tests drive it with events at positions the core computes.
//
// Interaction, as in Perfetto: the wheel zooms around the pointer (the
// time under it stays put); dragging pans (both ways); Shift-drag selects
// a time range and zooms into it; W/S zoom in/out around the pointer, A/D
// pan, arrow keys and PgUp/PgDn scroll rows; Home fits the whole trace;
// hovering shows a tooltip (thread, arrow or lint marker); a click selects
// a thread and highlights its merge chain and its direct edges; Esc
// clears the selection.
#pragma once

#include <QWidget>
#include <memory>
#include <optional>

#include "viewer/core/timeline_data.hpp"
#include "viewer/core/timeline_view.hpp"

namespace skein {

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineWidget(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> data);
  // Another view of the same trace (a declutter toggle): keeps the time
  // window and the row scroll, drops the selection and the marks.
  void replace_data(std::shared_ptr<const TimelineData> data);
  [[nodiscard]] const TimelineData* data() const { return data_.get(); }
  [[nodiscard]] const TimelineViewState& view() const { return view_; }
  [[nodiscard]] TimelineGeometry geometry_now() const;

  // The window [from, to] (ns, the store's times) across the width.
  void show_window(double from, double to);
  void fit();
  void select(std::optional<std::uint32_t> thread);
  void set_folding(RowFolding folding);
  // Scrolls so that `row` is shown (unfolding nothing); false when folded.
  bool scroll_to_row(std::int32_t row);
  // The inspection docks' marks (TimelineViewState's highlighted,
  // current_match and path; indexes into data()).
  void set_highlight(std::vector<std::uint32_t> threads);
  void set_current_match(std::optional<std::uint32_t> thread);
  void set_path(std::vector<TimelinePathLink> path);
  void set_hidden_rules(std::vector<std::string> rules);
  // The time of the last click that selected a thread (ns, the store's).
  [[nodiscard]] TimeNs last_click_time() const { return last_click_time_; }
  // The tooltip text for a point (empty when nothing is there).
  [[nodiscard]] QString tooltip_at(QPointF pos) const;

  QSize sizeHint() const override { return {1400, 800}; }

 signals:
  void view_changed();
  void selection_changed();
  // A right click on a thread (its index), at a global position.
  void context_requested(std::uint32_t thread, QPoint global);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;

 private:
  void changed();  // after any change of the window: refold, repaint, notify
  [[nodiscard]] QPointF pointer_or_centre() const;

  std::shared_ptr<const TimelineData> data_;
  TimelineViewState view_;
  // The drag in progress.
  enum class Drag : std::uint8_t { none, pan, range } drag_ = Drag::none;
  QPointF press_pos_;
  QPointF last_pos_;
  bool moved_ = false;
  QPointF pointer_{-1, -1};
  TimeNs last_click_time_ = 0;
};

}  // namespace skein
