// flame_graph_widget.cpp — graph() rebuilds from the index only when the
// dirty flag is set, widening the range to whole ns. The focus and the zoom
// history are kept as label paths and looked up again in each graph (the
// root when a path is gone); the layout is recomputed from the graph on
// every paint and hit test. A click is a release within kClickSlack px of
// its press. Frame colours hash the label (FNV-1a) into violet-blue hues,
// so a label keeps its colour across runs and ranges.
#include "viewer/app/flame_graph_widget.hpp"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <cmath>

#include "viewer/analysis/units.hpp"
#include "viewer/render/timeline_style.hpp"

namespace skein {
namespace {

constexpr double kClickSlack = 4;  // px a press may move and still be a click

QString text(const std::string& s) { return QString::fromStdString(s); }
QString duration(TimeNs ns) { return text(format_duration_ns(ns)); }
QString percent(double fraction) {
  return QString::number(fraction * 100, 'f', fraction >= 0.1 || fraction == 0 ? 0 : 1) + QLatin1Char('%');
}

QString joined(const std::vector<std::string>& path) {
  if (path.empty()) return QString::fromUtf8(kFlameRootName);
  QStringList parts;
  for (const std::string& p : path) parts << text(p);
  return parts.join(QStringLiteral(" ▸ "));
}

}  // namespace

FlameGraphWidget::FlameGraphWidget(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::ClickFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
}

QColor FlameGraphWidget::frame_colour(const std::string& name) {
  if (name == kFlameRootName) return QColor(0xd9, 0xdd, 0xe3);
  if (name == kFlameUnlabelledName) return QColor(0xc4, 0xc9, 0xd2);
  // FNV-1a: the same label has the same colour in every run and range.
  std::uint32_t h = 2166136261u;
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  // The running colour's family (violet to blue), light enough for dark text.
  const int hue = 225 + static_cast<int>(h % 60);
  const int saturation = 70 + static_cast<int>((h >> 8) % 60);
  return QColor(QColor::fromHsv(hue, saturation, 240).rgb());  // 8 bits a channel, as pixels are
}

void FlameGraphWidget::set_data(std::shared_ptr<const TimelineData> trace) {
  data_ = std::move(trace);
  index_ = data_ ? FlameGraphIndex(*data_) : FlameGraphIndex{};
  t0_ = data_ ? static_cast<double>(data_->first_time) : 0;
  t1_ = data_ ? static_cast<double>(data_->end_time) : 0;
  focus_path_.clear();
  history_.clear();
  dirty_ = true;
  update();
}

void FlameGraphWidget::set_range(double t0, double t1) {
  if (t1 < t0) std::swap(t0, t1);
  if (t0 == t0_ && t1 == t1_ && !dirty_) return;
  t0_ = t0;
  t1_ = t1;
  dirty_ = true;
  update();
}

const FlameGraph& FlameGraphWidget::graph() const {
  if (dirty_) {
    if (data_) {
      // Whole ns: an activation inside the range counts whole.
      graph_ = index_.build(*data_, static_cast<TimeNs>(std::floor(t0_)), static_cast<TimeNs>(std::ceil(t1_)));
    } else {
      graph_ = FlameGraph{};
      graph_.frames.push_back(FlameFrame{kFlameRootName, 0, 0, -1, 0, {}});
    }
    dirty_ = false;
  }
  return graph_;
}

std::int32_t FlameGraphWidget::focus() const { return graph().find(focus_path_).value_or(0); }

void FlameGraphWidget::set_focus_path(std::vector<std::string> path, bool remember) {
  if (path == focus_path_) return;
  if (remember) history_.push_back(focus_path_);
  focus_path_ = std::move(path);
  update();
  emit focus_changed();
}

void FlameGraphWidget::zoom_to(std::int32_t frame) {
  const FlameGraph& g = graph();
  if (frame < 0 || static_cast<std::size_t>(frame) >= g.frames.size() || frame == focus()) return;
  set_focus_path(g.path_of(frame), true);
}

bool FlameGraphWidget::zoom_back() {
  if (!history_.empty()) {
    std::vector<std::string> previous = std::move(history_.back());
    history_.pop_back();
    set_focus_path(std::move(previous), false);
    return true;
  }
  if (focus() == 0) return false;
  set_focus_path({}, false);
  return true;
}

void FlameGraphWidget::zoom_reset() {
  history_.clear();
  set_focus_path({}, false);
}

std::vector<FlameRect> FlameGraphWidget::frame_layout() const {
  return layout_flame_graph(graph(), focus(), width(), kMinFrameWidth);
}

QRectF FlameGraphWidget::frame_rect(std::int32_t frame) const {
  for (const FlameRect& r : frame_layout())
    if (r.frame == frame) return QRectF(r.x, kHeaderHeight + r.level * kRowHeight, r.w, kRowHeight);
  return {};
}

std::int32_t FlameGraphWidget::frame_at(QPointF pos) const {
  if (pos.y() < kHeaderHeight) return -1;
  const auto level = static_cast<std::int32_t>(std::floor((pos.y() - kHeaderHeight) / kRowHeight));
  const auto r = flame_rect_at(frame_layout(), pos.x(), level);
  return r ? r->frame : -1;
}

QString FlameGraphWidget::header_text() const {
  const FlameGraph& g = graph();
  if (!data_) return tr("Flame graph: no trace");
  QString line = tr("Run time by label ancestry, %1 to %2 (%3): %4 of run time")
                     .arg(duration(std::llround(t0_)), duration(std::llround(t1_)),
                          duration(std::llround(t1_ - t0_)), duration(g.total()));
  const std::int32_t f = focus();
  if (f != 0) line += tr(" — zoomed into %1 (Backspace: back, Esc: all)").arg(joined(g.path_of(f)));
  return line + QLatin1Char('\n') +
         tr("Parallel threads add up: this shows where run time went, not wall time.");
}

QString FlameGraphWidget::tooltip_for(std::int32_t frame) const {
  const FlameGraph& g = graph();
  if (frame < 0 || static_cast<std::size_t>(frame) >= g.frames.size()) return {};
  const FlameFrame& f = g.frames[static_cast<std::size_t>(frame)];
  QString tip = joined(g.path_of(frame)) + QLatin1Char('\n') + tr("run time %1").arg(duration(f.total));
  if (!f.children.empty() && frame != 0) tip += tr(" (itself: %1)").arg(duration(f.self));
  tip += QLatin1Char('\n') + tr("%1 of the run time in the range").arg(percent(g.share(frame)));
  const std::int32_t at = focus();
  if (at != 0 && frame != at && f.depth > g.frames[static_cast<std::size_t>(at)].depth)
    tip += QLatin1Char('\n') +
           tr("%1 of %2").arg(percent(g.share(frame, at)), text(g.frames[static_cast<std::size_t>(at)].name));
  return tip;
}

bool FlameGraphWidget::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString tip = tooltip_for(frame_at(help->pos()));
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(help->globalPos(), tip, this);
    return true;
  }
  return QWidget::event(event);
}

void FlameGraphWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), style::kCanvas);
  const QStringList header = header_text().split(QLatin1Char('\n'));
  p.setPen(style::kLabel);
  p.drawText(QRectF(4, 2, width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter, header.value(0));
  p.setPen(style::kCaptionText);
  p.drawText(QRectF(4, 20, width() - 8, 18), Qt::AlignLeft | Qt::AlignVCenter, header.value(1));

  const FlameGraph& g = graph();
  const std::int32_t at = focus();
  const std::int32_t focus_depth = g.frames[static_cast<std::size_t>(at)].depth;
  const QFontMetrics metrics(font());
  for (const FlameRect& r : frame_layout()) {
    const double y = kHeaderHeight + r.level * kRowHeight;
    if (y >= height()) continue;
    const FlameFrame& f = g.frames[static_cast<std::size_t>(r.frame)];
    QColor fill = frame_colour(f.name);
    // The focus's ancestors are context: paler.
    if (r.level < focus_depth) fill = fill.lighter(112);
    const double w = r.w > 2 ? r.w - 1 : r.w;  // a gap between neighbours
    p.fillRect(QRectF(r.x, y, w, kRowHeight - 1), fill);
    if (w > 24) {
      p.setPen(style::kLabel);
      const QString name = metrics.elidedText(text(f.name), Qt::ElideRight, static_cast<int>(w - 8));
      if (name.size() > 1)  // not a lone ellipsis
        p.drawText(QRectF(r.x + 4, y, w - 8, kRowHeight - 1), Qt::AlignLeft | Qt::AlignVCenter, name);
    }
  }
  if (g.total() == 0) {
    p.setPen(style::kCaptionText);
    p.drawText(QRectF(0, kHeaderHeight + kRowHeight, width(), kRowHeight * 2), Qt::AlignCenter,
               tr("Nothing ran in this range."));
  }
}

void FlameGraphWidget::mousePressEvent(QMouseEvent* event) {
  press_pos_ = event->position();
  pressed_ = true;
}

void FlameGraphWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (!pressed_) return;
  pressed_ = false;
  const QPointF d = event->position() - press_pos_;
  if (std::hypot(d.x(), d.y()) > kClickSlack) return;
  if (event->button() == Qt::RightButton) {
    zoom_back();
    return;
  }
  if (event->button() != Qt::LeftButton) return;
  const std::int32_t frame = frame_at(event->position());
  if (frame < 0) return;
  zoom_to(frame);
  const std::string& name = graph().frames[static_cast<std::size_t>(frame)].name;
  if (frame != 0 && name != kFlameUnlabelledName) emit label_activated(text(name));
}

void FlameGraphWidget::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Backspace) {
    zoom_back();
    return;
  }
  if (event->key() == Qt::Key_Escape && focus() != 0) {
    zoom_reset();
    return;
  }
  QWidget::keyPressEvent(event);
}

}  // namespace skein
