// timeline_widget.hpp — the timeline on screen: a QWidget that owns a
// TimelineViewState (viewer/timeline/timeline_view.hpp) and draws with the
// shared painter (viewer/render/timeline_painter.hpp). It holds no trace
// logic of its own: positions, picking, folding and the moves of the time
// window (viewer/timeline/timeline_navigation.hpp) are the core's, so tests
// drive it with events at positions the core computes.
//
// Interaction, as in Perfetto and Tracy:
//   wheel, Ctrl+wheel    zoom around the pointer (the time under it stays put)
//   Shift+wheel          scroll rows (kWheelRows a notch)
//   drag                 pan, both ways; Shift-drag selects a range and zooms into it
//   W / S, + / −         zoom in / out by kKeyZoom around the pointer when it is
//                        over the canvas, else the centre (= and the keypad's + and −
//                        too)
//   A / D                pan by kKeyPan of the window
//   ← / →                pan by kArrowPan of the window (with Shift, kArrowPanShift)
//   ↑ ↓ PgUp PgDn        scroll rows; the scroll bar at the right of the rows too
//   Home                 fit the whole trace (the rows stay scrolled as they were)
//   End                  the end of the trace, at the same zoom
//   Backspace, Alt+←     back to the previous window (zoom_history.hpp); Alt+→ forward
//   hover                a tooltip (thread with its full label, arrow or lint marker)
//   click                select a thread, its merge chain and its direct edges
//   Esc                  clear the selection
// Every move is limited to the trace (timeline_navigation.hpp: never wider
// than the fitted window, never off it), and every window change a user
// makes (keys, wheel, drags, Home, End, show_window, reveal_thread) is
// recorded in the zoom history; continuous gestures coalesce there.
//
// Invariants: the scroll bar's value is row_offset * kRowHeight and its
// range is [0, (slots - 1) * kRowHeight] after every change of the window,
// the folding or the row scroll (sync_row_bar); it is hidden while every
// row fits and the rows are not scrolled.
#pragma once

#include <QElapsedTimer>
#include <QWidget>
#include <memory>
#include <optional>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_first_frame.hpp"
#include "viewer/timeline/timeline_navigation.hpp"
#include "viewer/timeline/timeline_view.hpp"
#include "viewer/timeline/zoom_history.hpp"

class QScrollBar;

namespace skein {

class TimelineWidget : public QWidget {
  Q_OBJECT

 public:
  static constexpr double kKeyZoom = 1.6;        // W / S, + / −: the factor a press
  static constexpr double kKeyPan = 0.15;        // A / D: a share of the window
  static constexpr double kArrowPan = 1.0 / 8;   // ← / →
  static constexpr double kArrowPanShift = 0.5;  // Shift+← / Shift+→
  static constexpr double kWheelStep = 1.0015;   // zoom factor per 1/8 degree of wheel
  static constexpr double kWheelRows = 3;        // rows per notch of Shift+wheel

  explicit TimelineWidget(QWidget* parent = nullptr);

  // A new trace: the first screen (the fitted window, start-up rows folded:
  // timeline_view.hpp), no selection, an empty zoom history.
  void set_data(std::shared_ptr<const TimelineData> data);
  // Another view of the same trace (a declutter toggle): keeps the time
  // window, the row scroll and the zoom history, drops the selection and
  // the marks.
  void replace_data(std::shared_ptr<const TimelineData> data);
  // While the trace loads: its first frame read from the levels
  // (timeline_first_frame.hpp), drawn as is, with nothing to interact
  // with, until set_data() brings the whole trace; shown only while the
  // canvas has the size it was read for. Cleared by set_data().
  void show_first_frame(std::shared_ptr<const TimelineFirstFrame> frame);
  [[nodiscard]] const TimelineFirstFrame* first_frame() const { return first_frame_.get(); }
  [[nodiscard]] const TimelineData* data() const { return data_.get(); }
  [[nodiscard]] const TimelineViewState& view() const { return view_; }
  [[nodiscard]] TimelineGeometry geometry_now() const;
  [[nodiscard]] const ZoomHistory& zoom_history() const { return history_; }
  [[nodiscard]] QScrollBar* row_scroll_bar() const { return rows_bar_; }

  // The window [from, to] (ns, the store's times) across the width, as far
  // as the limits allow; recorded in the zoom history.
  void show_window(double from, double to);
  // Home: the whole trace; the rows stay scrolled where they were.
  void fit();
  // End: the end of the trace at the same zoom.
  void show_end();
  // Back and Forward in the zoom history; false when there is nothing there.
  bool go_back();
  bool go_forward();
  // Selects thread `index` (into data()) and brings it into view: when it is
  // not wholly in the window, or too thin there to see, the window moves
  // (reveal_window: zooming in on a short thread until it fills a third of
  // the width, out on one that does not fit, else centring it), then its
  // row is scrolled into view. Its row stays shown while it is selected
  // (folding never hides the selection). One entry in the zoom history when
  // the window moved. The search, the Thread dock and the Why? steps call
  // this to go to a thread.
  void reveal_thread(std::uint32_t index);
  // Opens a finding (finding_focus.hpp): its window (one step of the zoom
  // history), its turn selected with only its edges, its rows named and
  // scrolled into view.
  void show_focus(const FindingFocus& focus);
  // The same finding's turn selected and its rows named, in the window as
  // it is (the finding open in another view of the trace).
  void select_turn(const FindingFocus& focus);
  void select(std::optional<std::uint32_t> thread);
  void set_folding(RowFolding folding);
  // Scrolls so that `row` is shown (unfolding nothing); false when folded.
  bool scroll_to_row(std::int32_t row);
  // The inspection docks' marks (TimelineViewState's highlighted,
  // current_match and path; indexes into data()), as TimelineSelection
  // resolves them from ids.
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
  // A frame of a trace was painted (not the empty widget's prompt): what
  // the benchmarks time a user's wait by.
  void frame_painted();

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
  // A user's change of the window to `next` (already limited): recorded in
  // the history when it changed anything, then changed().
  void apply_window(const TimeMapping& next, WindowGesture gesture);
  void zoom(double x, double factor, WindowGesture gesture);
  void pan(double fraction, WindowGesture gesture);
  void scroll_rows(double rows);
  void changed();  // after any change of the window: refold, sync the bar, repaint, notify
  void rows_changed();  // after a change of row_offset: clamp, sync the bar, repaint
  void sync_row_bar();
  [[nodiscard]] TimeWindow trace_window() const;
  [[nodiscard]] QPointF pointer_or_centre() const;
  [[nodiscard]] std::int64_t now_ms() const { return clock_.elapsed(); }

  std::shared_ptr<const TimelineData> data_;
  std::shared_ptr<const TimelineFirstFrame> first_frame_;
  TimelineViewState view_;
  ZoomHistory history_;
  QElapsedTimer clock_;
  QScrollBar* rows_bar_ = nullptr;
  // The drag in progress.
  enum class Drag : std::uint8_t { none, pan, range } drag_ = Drag::none;
  QPointF press_pos_;
  QPointF last_pos_;
  TimeMapping drag_start_window_;
  bool moved_ = false;
  QPointF pointer_{-1, -1};
  TimeNs last_click_time_ = 0;
};

}  // namespace skein
