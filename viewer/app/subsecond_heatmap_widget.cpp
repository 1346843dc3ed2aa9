// subsecond_heatmap_widget.cpp — set_data() builds the map and renders it
// once into a QImage of a pixel per cell (a linear mix from a pale tint to
// the running colour; empty cells row-stripe grey, cells past the trace's
// end bare canvas); paint scales that image over the grid, then draws the
// labels and outlines each column's selected cells. A drag anchors on the
// pressed cell and follows the nearest cell, even off the grid; release
// emits range_selected only for a non-empty range.
#include "viewer/app/subsecond_heatmap_widget.hpp"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "viewer/timeline/time_ruler.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/render/timeline_style.hpp"

namespace skein {
namespace {

// The scale runs from a pale tint of the running colour to the running
// colour itself (the timeline's thick spans), so "busy" reads alike in
// both views. Cells with no run time are the row-stripe grey; the grid's
// part past the trace's end is the bare canvas.
const QColor kColdest{0xe4, 0xdc, 0xfa};

QString text(const std::string& s) { return QString::fromStdString(s); }

// The smallest of 1, 2, 5, 10, 20, 50, ... columns that is `min_px` wide.
int label_step(double cell_w, double min_px) {
  if (!(cell_w > 0)) return 1;
  for (int base = 1; base < 100'000'000; base *= 10)
    for (int m : {1, 2, 5})
      if (cell_w * base * m >= min_px) return base * m;
  return 100'000'000;
}

}  // namespace

SubsecondHeatmapWidget::SubsecondHeatmapWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::ClickFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

QColor SubsecondHeatmapWidget::cell_colour(double level) {
  if (!(level > 0)) return style::kRowStripe;
  level = std::min(level, 1.0);
  const auto mix = [&](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * level)); };
  return QColor(mix(kColdest.red(), style::kRunning.red()), mix(kColdest.green(), style::kRunning.green()),
                mix(kColdest.blue(), style::kRunning.blue()));
}

void SubsecondHeatmapWidget::set_data(std::shared_ptr<const TimelineData> trace) {
  data_ = std::move(trace);
  map_ = data_ ? SubsecondHeatmap::build(*data_) : SubsecondHeatmap{};
  selection_.reset();
  anchor_.reset();
  image_ = QImage();
  if (!map_.empty()) {
    image_ = QImage(map_.columns(), map_.rows(), QImage::Format_RGB32);
    for (int c = 0; c < map_.columns(); ++c)
      for (int r = 0; r < map_.rows(); ++r) {
        const HeatmapCell cell{c, r};
        const QColor colour =
            map_.cell_range(cell).t0 >= map_.end_time() ? style::kCanvas : cell_colour(map_.level(cell));
        image_.setPixel(c, r, colour.rgb());
      }
  }
  update();
}

HeatmapGeometry SubsecondHeatmapWidget::grid() const {
  return HeatmapGeometry::fit(map_, kLeft, kHeader, width() - kLeft - kRight, height() - kHeader - kBottom);
}

void SubsecondHeatmapWidget::clear_selection() {
  selection_.reset();
  anchor_.reset();
  update();
}

QString SubsecondHeatmapWidget::caption() const {
  if (map_.empty()) return tr("Subsecond heat map: no trace");
  return tr("Subsecond heat map — %1; colour: run time in the cell").arg(text(map_.caption()));
}

QString SubsecondHeatmapWidget::tooltip_at(QPointF pos) const {
  if (map_.empty()) return {};
  const auto cell = grid().cell_at(pos.x(), pos.y());
  if (!cell) return {};
  const HeatmapRange r = map_.cell_range(*cell);
  const auto unit = static_cast<double>(map_.unit_ns());
  const TimeNs column_start = map_.first_time() + cell->column * map_.unit_ns();
  return tr("%1 + %2 to %3: busy %4% (run time %5)")
      .arg(text(format_ruler_time(static_cast<double>(column_start), unit)),
           text(format_duration_ns(r.t0 - column_start)), text(format_duration_ns(r.t1 - column_start)),
           QString::number(std::lround(map_.busy(*cell) * 100)), text(format_duration_ns(map_.run_ns(*cell))));
}

bool SubsecondHeatmapWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString tip = tooltip_at(help->pos());
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(event);
}

void SubsecondHeatmapWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), style::kCanvas);
  p.setPen(style::kCaptionText);
  p.drawText(QRectF(4, 0, width() - 8, kHeader), Qt::AlignLeft | Qt::AlignVCenter, caption());
  if (map_.empty() || image_.isNull()) return;

  const HeatmapGeometry g = grid();
  const QRectF area(g.left, g.top, g.cell_w * g.columns, g.cell_h * g.rows);
  p.drawImage(area, image_);  // nearest-neighbour: a cell is a flat rectangle
  p.setPen(style::kBorder);
  p.drawRect(area.adjusted(-0.5, -0.5, 0.5, 0.5));

  // Row labels: the offset within the column, every 10 rows.
  const auto cell = static_cast<double>(map_.cell_ns());
  p.setPen(style::kRulerText);
  for (int r = 0; r < g.rows; r += 10)
    p.drawText(QRectF(0, g.y_of(r) - 1, kLeft - 6, 14), Qt::AlignRight | Qt::AlignTop,
               text(format_ruler_time(r * cell, 10 * cell)));
  // Column labels: every 1, 2, 5, 10, ... columns, at least 48 px apart;
  // each column's start as a record time, as the timeline's ruler reads.
  const int step = label_step(g.cell_w, 48);
  const auto unit = static_cast<double>(map_.unit_ns());
  const auto first_column = static_cast<double>(map_.first_time());
  for (int c = 0; c < g.columns; c += step)
    p.drawText(QRectF(g.x_of(c) + 1, g.top + g.rows * g.cell_h + 2, 60, kBottom - 2), Qt::AlignLeft | Qt::AlignTop,
               text(format_ruler_time(first_column + c * unit, step * unit)));

  // The selection: each column's selected cells outlined.
  if (selection_) {
    p.setPen(QPen(style::kSelectedLine, 2));
    p.setBrush(Qt::NoBrush);
    for (int c = 0; c < g.columns; ++c) {
      int first = -1, last = -1;
      for (int r = 0; r < g.rows; ++r)
        if (map_.cell_in({c, r}, *selection_)) {
          if (first < 0) first = r;
          last = r;
        }
      if (first >= 0)
        p.drawRect(QRectF(g.x_of(c) + 1, g.y_of(first) + 1, g.cell_w - 2, (last - first + 1) * g.cell_h - 2));
    }
  }
}

void SubsecondHeatmapWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mousePressEvent(event);
  const auto cell = grid().cell_at(event->position().x(), event->position().y());
  if (!cell) return;
  anchor_ = cell;
  selection_ = map_.selection(*cell, *cell);
  update();
}

void SubsecondHeatmapWidget::mouseMoveEvent(QMouseEvent* event) {
  if (!anchor_) return;
  selection_ = map_.selection(*anchor_, grid().nearest_cell(event->position().x(), event->position().y()));
  update();
}

void SubsecondHeatmapWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !anchor_) return QWidget::mouseReleaseEvent(event);
  selection_ = map_.selection(*anchor_, grid().nearest_cell(event->position().x(), event->position().y()));
  anchor_.reset();
  update();
  if (selection_->t1 > selection_->t0)
    emit range_selected(static_cast<double>(selection_->t0), static_cast<double>(selection_->t1));
}

void SubsecondHeatmapWidget::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Escape && selection_) {
    clear_selection();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace skein
