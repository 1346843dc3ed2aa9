// subsecond_heatmap_widget.hpp — the subsecond heat map on screen
// (viewer/timeline/subsecond_heatmap.hpp, FlameScope's view): columns of one
// unit left to right, the offset within the column top to bottom, each
// cell coloured by its run time relative to the busiest cell.
//
// The header says what a column and a row are, and when the trace is too
// short for columns of a second, that a smaller unit was chosen ("trace
// shorter than 5 s: columns of 100 ms, rows of 2 ms"). A drag from one
// cell to another selects, as FlameScope does, the time from the earlier
// cell's start to the later cell's end (the selected cells are outlined);
// on release the widget emits range_selected(t0, t1) in the store's ns,
// for the owner to zoom the timeline to. A click selects one cell; Esc
// clears the selection. Hovering a cell shows its time and activity.
//
// grid() gives the cells' rectangles for the current size (the tests press
// and read pixels where it says).
#pragma once

#include <QImage>
#include <QWidget>
#include <memory>
#include <optional>

#include "viewer/timeline/subsecond_heatmap.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

class SubsecondHeatmapWidget : public QWidget {
  Q_OBJECT

 public:
  // Margins around the grid, px: the header, the row labels on the left,
  // the column labels below.
  static constexpr int kHeader = 22;
  static constexpr int kLeft = 64;
  static constexpr int kRight = 8;
  static constexpr int kBottom = 20;

  explicit SubsecondHeatmapWidget(QWidget* parent = nullptr);

  void set_data(std::shared_ptr<const TimelineData> trace);

  [[nodiscard]] const SubsecondHeatmap& heatmap() const { return map_; }
  [[nodiscard]] HeatmapGeometry grid() const;
  [[nodiscard]] std::optional<HeatmapRange> selection() const { return selection_; }
  void clear_selection();
  // The header line: the caption of the grid's units.
  [[nodiscard]] QString caption() const;
  // "1 s + 240 ms to 260 ms: busy 35% (run time 7.00 ms)"; empty off the grid.
  [[nodiscard]] QString tooltip_at(QPointF pos) const;
  // The colour of a cell at `level` (run time over the busiest cell's).
  [[nodiscard]] static QColor cell_colour(double level);

  QSize sizeHint() const override { return {640, 320}; }
  QSize minimumSizeHint() const override { return {240, 160}; }

 signals:
  void range_selected(double t0, double t1);

 protected:
  bool event(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  std::shared_ptr<const TimelineData> data_;
  SubsecondHeatmap map_;
  QImage image_;  // a pixel per cell, made once per trace
  std::optional<HeatmapRange> selection_;
  std::optional<HeatmapCell> anchor_;  // the cell a drag started on
};

}  // namespace skein
