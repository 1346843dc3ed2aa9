// overview_strip.cpp — the columns are resampled only when the width
// differs from the cached one. Painting puts the visible window behind the
// bars (bars at least 1 px tall), then its edges. A drag moves the window
// the press held, offset by the mouse's travel; a press outside the window
// (3 px slack) centres it first. A release within kMinSelectPx of its press
// is a click. request() sets the window locally before emitting
// range_requested, so the strip is right before the owner answers.
#include "viewer/app/overview_strip.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "viewer/analysis/units.hpp"
#include "viewer/render/timeline_style.hpp"

namespace skein {
namespace {

constexpr double kGrabSlack = 3;   // px either side of the window that still grab it
constexpr double kMinSelectPx = 3;  // a drag shorter than this is a click

QString percent(double fraction) { return QString::number(std::lround(fraction * 100)) + QLatin1Char('%'); }

QString duration(double ns) { return QString::fromStdString(format_duration_ns(std::llround(ns))); }

}  // namespace

OverviewStrip::OverviewStrip(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("Overview: run time per pixel column over the whole trace; the marked window is the visible "
                "range. Click to centre it, drag to move it, Shift-drag to select a range."));
}

void OverviewStrip::set_data(std::shared_ptr<const TimelineData> trace) {
  data_ = std::move(trace);
  // The import's histogram when the loader read one: no activation is
  // walked on this thread.
  overview_ = !data_            ? ActivityOverview{}
              : data_->activity ? ActivityOverview::from_histogram(data_->activity->binning, data_->activity->run_ns)
                                : ActivityOverview::build(*data_);
  columns_width_ = -1;
  window_ = {static_cast<double>(overview_.first_time()), static_cast<double>(overview_.end_time())};
  drag_ = Drag::none;
  update();
}

void OverviewStrip::set_visible_range(double t0, double t1) {
  if (t1 < t0) std::swap(t0, t1);
  window_ = {t0, t1};
  update();
}

OverviewMapping OverviewStrip::mapping() const {
  return {static_cast<double>(overview_.first_time()), static_cast<double>(overview_.end_time()),
          static_cast<double>(width())};
}

const std::vector<OverviewColumn>& OverviewStrip::columns_now() const {
  if (columns_width_ != width()) {
    columns_ = overview_.columns(width());
    columns_width_ = width();
  }
  return columns_;
}

QString OverviewStrip::tooltip_at(double x) const {
  if (!data_ || overview_.empty()) return {};
  const auto& columns = columns_now();
  if (x < 0 || x >= static_cast<double>(columns.size())) return {};
  const OverviewColumn& c = columns[static_cast<std::size_t>(x)];
  const double first = static_cast<double>(overview_.first_time());
  return tr("at %1: busy %2 (run time %3 in %4)")
      .arg(duration(c.t0 - first), percent(c.density), duration(c.run_ns), duration(c.t1 - c.t0));
}

bool OverviewStrip::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString tip = tooltip_at(help->pos().x());
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(event);
}

void OverviewStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), style::kCanvas);
  if (!data_ || overview_.empty()) {
    p.setPen(style::kCaptionText);
    p.drawText(rect(), Qt::AlignCenter, tr("No trace"));
    return;
  }
  const OverviewMapping m = mapping();
  const double x0 = m.x_of(window_.t0), x1 = m.x_of(window_.t1);
  // The visible window behind the bars, so the bars stay readable.
  p.fillRect(QRectF(x0, 0, x1 - x0, height()), style::kSelection);

  const double full = std::max(0, height() - 2 * kPad);
  const auto& columns = columns_now();
  for (std::size_t x = 0; x < columns.size(); ++x) {
    const double h = columns[x].level * full;
    if (h <= 0) continue;
    // At least one pixel, so that any activity shows.
    const double bar = std::max(h, 1.0);
    p.fillRect(QRectF(static_cast<double>(x), height() - kPad - bar, 1, bar), style::kDensity);
  }

  // The window's edges, two pixels wide, inside it.
  p.fillRect(QRectF(x0, 0, 2, height()), style::kSelectedLine);
  p.fillRect(QRectF(x1 - 2, 0, 2, height()), style::kSelectedLine);

  if (drag_ == Drag::select) {
    const double a = std::min(press_x_, drag_x_), b = std::max(press_x_, drag_x_);
    QColor band = style::kRead;
    band.setAlpha(60);
    p.fillRect(QRectF(a, 0, b - a, height()), band);
  }
  p.setPen(style::kBorder);
  p.drawLine(QPointF(0, height() - 0.5), QPointF(width(), height() - 0.5));
}

bool OverviewStrip::on_window(double x) const {
  const OverviewMapping m = mapping();
  return x >= m.x_of(window_.t0) - kGrabSlack && x <= m.x_of(window_.t1) + kGrabSlack;
}

void OverviewStrip::request(OverviewWindow w) {
  window_ = w;
  update();
  emit range_requested(w.t0, w.t1);
}

void OverviewStrip::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || !data_ || overview_.empty()) return QWidget::mousePressEvent(event);
  const double x = event->position().x();
  press_x_ = drag_x_ = x;
  if (event->modifiers() & Qt::ShiftModifier) {
    drag_ = Drag::select;
    update();
    return;
  }
  press_on_window_ = on_window(x);
  if (!press_on_window_) {
    const OverviewMapping m = mapping();
    request(window_.centred_at(m.t_of(x), m.first, m.end));
  }
  drag_ = Drag::move;
  press_window_ = window_;
  setCursor(Qt::ClosedHandCursor);
}

void OverviewStrip::mouseMoveEvent(QMouseEvent* event) {
  const double x = event->position().x();
  switch (drag_) {
    case Drag::move: {
      drag_x_ = x;
      const OverviewMapping m = mapping();
      const double dt = (x - press_x_) * (m.end - m.first) / std::max(m.width, 1.0);
      request(press_window_.moved_by(dt, m.first, m.end));
      break;
    }
    case Drag::select:
      drag_x_ = x;
      update();
      break;
    case Drag::none:
      setCursor(data_ && on_window(x) ? Qt::OpenHandCursor : Qt::ArrowCursor);
      break;
  }
}

void OverviewStrip::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return QWidget::mouseReleaseEvent(event);
  const Drag drag = drag_;
  drag_ = Drag::none;
  unsetCursor();
  drag_x_ = event->position().x();
  const OverviewMapping m = mapping();
  const bool click = std::fabs(drag_x_ - press_x_) < kMinSelectPx;
  if (drag == Drag::move && click && press_on_window_) {
    request(press_window_.centred_at(m.t_of(press_x_), m.first, m.end));
    return;
  }
  if (drag != Drag::select) return;
  if (click) {
    request(window_.centred_at(m.t_of(press_x_), m.first, m.end));
    return;
  }
  const double a = std::clamp(std::min(press_x_, drag_x_), 0.0, m.width);
  const double b = std::clamp(std::max(press_x_, drag_x_), 0.0, m.width);
  request({m.t_of(a), m.t_of(b)});
}

}  // namespace skein
