// overview_strip.hpp — the whole trace in one strip above the timeline:
// a bar per pixel column whose height is the column's activity level
// (viewer/timeline/activity_overview.hpp: run time in the column over the
// busiest column's), with the timeline's visible range marked on it.
//
// Gestures (each ends in range_requested(t0, t1), which the owner applies
// to the timeline and hands back through set_visible_range()):
//   - a click centres the window there, keeping its length; pressed
//     outside the window, it centres at once and the drag goes on moving
//     it;
//   - a drag that starts on the marked window moves it;
//   - Shift-drag selects a new range (a Shift-click centres, as a click).
// Windows are kept inside the trace when they fit (OverviewWindow).
//
// All times are the store's ns, as TimelineData's. The x axis spans the
// whole widget: mapping() says where each time is, and the tests use it.
// The overview is built once per set_data (O(activations)) and resampled
// when the width changes (O(width)).
#pragma once

#include <QWidget>
#include <memory>
#include <vector>

#include "viewer/timeline/activity_overview.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

class OverviewStrip : public QWidget {
  Q_OBJECT

 public:
  // Space above and below the bars, px.
  static constexpr int kPad = 3;

  explicit OverviewStrip(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> trace);
  // The timeline's visible window, ns (store times).
  void set_visible_range(double t0, double t1);

  [[nodiscard]] const TimelineData* data() const { return data_.get(); }
  [[nodiscard]] const ActivityOverview& overview() const { return overview_; }
  [[nodiscard]] double visible_t0() const { return window_.t0; }
  [[nodiscard]] double visible_t1() const { return window_.t1; }
  // The whole trace across the widget's width.
  [[nodiscard]] OverviewMapping mapping() const;
  // "at 1.25 ms: busy 40% (run time 4.00 µs in 10.0 µs)"; empty without data.
  [[nodiscard]] QString tooltip_at(double x) const;

  QSize sizeHint() const override { return {1400, 48}; }
  QSize minimumSizeHint() const override { return {120, 28}; }

 signals:
  void range_requested(double t0, double t1);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;

 private:
  void request(OverviewWindow w);
  [[nodiscard]] bool on_window(double x) const;
  const std::vector<OverviewColumn>& columns_now() const;

  std::shared_ptr<const TimelineData> data_;
  ActivityOverview overview_;
  OverviewWindow window_;
  mutable std::vector<OverviewColumn> columns_;  // for columns_width_
  mutable int columns_width_ = -1;

  enum class Drag : std::uint8_t { none, move, select } drag_ = Drag::none;
  double press_x_ = 0;
  double drag_x_ = 0;
  bool press_on_window_ = false;  // a click there (no drag) centres too
  OverviewWindow press_window_;
};

}  // namespace skein
