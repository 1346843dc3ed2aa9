// timeline_widget.cpp — see timeline_widget.hpp.
#include "viewer/app/timeline_widget.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "viewer/core/units.hpp"
#include "viewer/render/timeline_painter.hpp"

namespace skein {
namespace {

constexpr double kKeyZoom = 1.6;     // W / S
constexpr double kKeyPan = 0.15;     // A / D: a fraction of the width
constexpr double kWheelStep = 1.0015;  // per 1/8 degree of wheel

QString relative(const TimelineData& d, TimeNs t) {
  return QString::fromStdString(format_duration_ns(t - d.first_time));
}

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(400, 240);
}

TimelineGeometry TimelineWidget::geometry_now() const {
  static const TimelineData kEmpty;
  return TimelineGeometry(width(), height(), data_ ? *data_ : kEmpty);
}

void TimelineWidget::set_data(std::shared_ptr<const TimelineData> data) {
  data_ = std::move(data);
  view_ = TimelineViewState{};
  fit();
}

void TimelineWidget::replace_data(std::shared_ptr<const TimelineData> data) {
  if (!data_) return set_data(std::move(data));
  TimelineViewState kept;
  kept.mapping = view_.mapping;
  kept.row_offset = view_.row_offset;
  kept.folding = view_.folding;
  kept.hidden_rules = view_.hidden_rules;
  data_ = std::move(data);
  view_ = std::move(kept);
  changed();
  view_.clamp_rows();
  emit selection_changed();
}

void TimelineWidget::set_highlight(std::vector<std::uint32_t> threads) {
  view_.highlight(std::move(threads));
  update();
}

void TimelineWidget::set_current_match(std::optional<std::uint32_t> thread) {
  view_.current_match = thread;
  update();
}

void TimelineWidget::set_path(std::vector<TimelinePathLink> path) {
  view_.path = std::move(path);
  update();
}

void TimelineWidget::set_hidden_rules(std::vector<std::string> rules) {
  view_.hidden_rules = std::move(rules);
  update();
}

void TimelineWidget::fit() {
  if (!data_) return;
  view_.fit(*data_, width());
  view_.row_offset = 0;
  changed();
}

void TimelineWidget::show_window(double from, double to) {
  view_.mapping.fit(from, to, width());
  changed();
}

void TimelineWidget::set_folding(RowFolding folding) {
  view_.folding = folding;
  changed();
}

bool TimelineWidget::scroll_to_row(std::int32_t row) {
  const auto slot = view_.slot_of(row);
  if (!slot) return false;
  const TimelineGeometry g = geometry_now();
  if (*slot < view_.row_offset || *slot + 1 > view_.row_offset + g.visible_rows())
    view_.row_offset = std::max(0.0, *slot - g.visible_rows() / 2);
  view_.clamp_rows();
  update();
  return true;
}

void TimelineWidget::select(std::optional<std::uint32_t> thread) {
  if (!data_) return;
  view_.select(*data_, thread);
  update();
  emit selection_changed();
}

void TimelineWidget::changed() {
  if (data_) view_.refold(*data_, width());
  update();
  emit view_changed();
}

QPointF TimelineWidget::pointer_or_centre() const {
  if (pointer_.x() >= 0 && pointer_.x() < width()) return pointer_;
  return QPointF(width() / 2.0, height() / 2.0);
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!data_) {
    p.fillRect(rect(), QColor(0xfb, 0xfb, 0xfc));
    p.setPen(QColor(0x6b, 0x72, 0x80));
    p.drawText(rect(), Qt::AlignCenter,
               QStringLiteral("Open a trace or a trace database: File ▸ Open (Ctrl+O), or drop a file here."));
    return;
  }
  paint_timeline(p, *data_, view_, geometry_now());
  if (drag_ == Drag::range) {
    const double x0 = std::min(press_pos_.x(), last_pos_.x()), x1 = std::max(press_pos_.x(), last_pos_.x());
    p.fillRect(QRectF(x0, 0, x1 - x0, height()), QColor(37, 99, 235, 40));
    p.setPen(QPen(QColor(37, 99, 235), 1));
    p.drawLine(QPointF(x0, 0), QPointF(x0, height()));
    p.drawLine(QPointF(x1, 0), QPointF(x1, height()));
    p.drawText(QPointF(x0 + 4, TimelineGeometry::kRulerHeight + 20),
               QString::fromStdString(format_duration_ns(
                   static_cast<std::int64_t>(view_.mapping.t_of(x1) - view_.mapping.t_of(x0)))));
  }
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
  if (data_) changed();
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  if (!data_) return;
  const QPoint delta = event->angleDelta();
  if (delta.y() != 0) {
    view_.mapping.zoom_at(event->position().x(), std::pow(kWheelStep, delta.y()));
    changed();
  } else if (delta.x() != 0) {
    view_.mapping.pan_px(delta.x() / 4.0);
    changed();
  }
  event->accept();
}

void TimelineWidget::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::RightButton && data_) {
    const TimelineGeometry g = geometry_now();
    if (const auto t = pick_thread(*data_, view_, g, event->position().x(), event->position().y())) {
      last_click_time_ = static_cast<TimeNs>(view_.mapping.t_of(event->position().x()));
      if (view_.selected != t) select(t);
      emit context_requested(*t, event->globalPosition().toPoint());
    }
    return;
  }
  if (event->button() != Qt::LeftButton) return;
  press_pos_ = last_pos_ = event->position();
  moved_ = false;
  drag_ = event->modifiers() & Qt::ShiftModifier ? Drag::range : Drag::pan;
  if (drag_ == Drag::pan) setCursor(Qt::ClosedHandCursor);
}

void TimelineWidget::mouseMoveEvent(QMouseEvent* event) {
  pointer_ = event->position();
  if (drag_ == Drag::none) {
    const QString tip = tooltip_at(event->position());
    if (tip.isEmpty()) QToolTip::hideText();
    else QToolTip::showText(event->globalPosition().toPoint(), tip, this);
    return;
  }
  const QPointF d = event->position() - last_pos_;
  if ((event->position() - press_pos_).manhattanLength() > 3) moved_ = true;
  last_pos_ = event->position();
  if (drag_ == Drag::pan && data_) {
    view_.mapping.pan_px(d.x());
    view_.row_offset -= d.y() / TimelineGeometry::kRowHeight;
    view_.clamp_rows();
    changed();
  } else {
    update();
  }
}

void TimelineWidget::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || drag_ == Drag::none) return;
  const Drag was = drag_;
  drag_ = Drag::none;
  unsetCursor();
  if (!data_) return;
  if (!moved_) {
    const TimelineGeometry g = geometry_now();
    last_click_time_ = static_cast<TimeNs>(view_.mapping.t_of(event->position().x()));
    select(pick_thread(*data_, view_, g, event->position().x(), event->position().y()));
    return;
  }
  if (was == Drag::range) {
    const double x0 = std::min(press_pos_.x(), event->position().x());
    const double x1 = std::max(press_pos_.x(), event->position().x());
    if (x1 - x0 >= 3) show_window(view_.mapping.t_of(x0), view_.mapping.t_of(x1));
    else update();
  }
}

void TimelineWidget::keyPressEvent(QKeyEvent* event) {
  if (!data_) return QWidget::keyPressEvent(event);
  const TimelineGeometry g = geometry_now();
  switch (event->key()) {
    case Qt::Key_W: view_.mapping.zoom_at(pointer_or_centre().x(), kKeyZoom); break;
    case Qt::Key_S: view_.mapping.zoom_at(pointer_or_centre().x(), 1 / kKeyZoom); break;
    case Qt::Key_A: view_.mapping.pan_px(width() * kKeyPan); break;
    case Qt::Key_D: view_.mapping.pan_px(-width() * kKeyPan); break;
    case Qt::Key_Up: view_.row_offset -= 1; break;
    case Qt::Key_Down: view_.row_offset += 1; break;
    case Qt::Key_PageUp: view_.row_offset -= g.visible_rows(); break;
    case Qt::Key_PageDown: view_.row_offset += g.visible_rows(); break;
    case Qt::Key_Home: fit(); return;
    case Qt::Key_Escape: select(std::nullopt); return;
    default: QWidget::keyPressEvent(event); return;
  }
  view_.clamp_rows();
  changed();
}

void TimelineWidget::leaveEvent(QEvent*) { pointer_ = QPointF(-1, -1); }

QString TimelineWidget::tooltip_at(QPointF pos) const {
  if (!data_) return {};
  const TimelineData& d = *data_;
  const TimelineGeometry g = geometry_now();
  const double slack_px = 4;
  // A lint marker first: it is drawn on top.
  for (const TimelineAnomaly& a : d.anomalies) {
    if (a.thread < 0 || view_.is_rule_hidden(a.rule)) continue;
    const auto slot = view_.slot_of(d.threads[static_cast<std::size_t>(a.thread)].row);
    if (!slot) continue;
    const double x = view_.mapping.x_of(double(a.time)), y = g.line_y(*slot, view_.row_offset);
    if (std::fabs(x - pos.x()) <= 7 && std::fabs(y - pos.y()) <= 8)
      return QStringLiteral("<b>%1</b> at %2<br>%3")
          .arg(QString::fromStdString(a.rule).toHtmlEscaped(), relative(d, a.time),
               QString::fromStdString(a.message).toHtmlEscaped());
  }
  // A notify arrow: its reason.
  const double t0 = view_.mapping.t_of(pos.x() - slack_px), t1 = view_.mapping.t_of(pos.x() + slack_px);
  auto i = std::lower_bound(d.edge_times.begin(), d.edge_times.end(), t0, [](TimeNs t, double v) { return double(t) < v; });
  for (int n = 0; i != d.edge_times.end() && double(*i) <= t1 && n < 8; ++i, ++n) {
    const TimelineEdge& e = d.edges[static_cast<std::size_t>(i - d.edge_times.begin())];
    if (e.src < 0 || e.dst < 0) continue;
    const auto s0 = view_.slot_of(d.threads[static_cast<std::size_t>(e.src)].row);
    const auto s1 = view_.slot_of(d.threads[static_cast<std::size_t>(e.dst)].row);
    if (!s0 || !s1 || *s0 == *s1) continue;
    const double y0 = g.line_y(std::min(*s0, *s1), view_.row_offset) + 6;
    const double y1 = g.line_y(std::max(*s0, *s1), view_.row_offset) - 6;
    if (pos.y() < y0 || pos.y() > y1) continue;
    static const char* const kNames[] = {"spawn", "wait", "read", "notify", "resolve"};
    QString tip = QStringLiteral("<b>%1</b> #%2 → #%3 at %4")
                      .arg(QLatin1String(kNames[static_cast<int>(e.kind)]))
                      .arg(d.threads[static_cast<std::size_t>(e.src)].id)
                      .arg(d.threads[static_cast<std::size_t>(e.dst)].id)
                      .arg(relative(d, e.time));
    if (e.kind == EdgeKind::notify && e.text != 0)
      tip += QStringLiteral("<br>reason: %1").arg(QString::fromStdString(d.text(e.text)).toHtmlEscaped());
    return tip;
  }
  const auto picked = pick_thread(d, view_, g, pos.x(), pos.y());
  if (!picked) return {};
  const TimelineThread& t = d.threads[*picked];
  QString tip = QStringLiteral("<b>#%1</b>").arg(t.id);
  if (t.label != 0) tip += QStringLiteral(" %1").arg(QString::fromStdString(d.text(t.label)).toHtmlEscaped());
  if (t.kind != 0) tip += QStringLiteral("<br>kind: %1").arg(QString::fromStdString(d.text(t.kind)).toHtmlEscaped());
  if (const StoredSite* site = d.site(t.site))
    tip += QStringLiteral("<br>created at: %1 (%2:%3)")
               .arg(QString::fromStdString(site->function).toHtmlEscaped(),
                    QString::fromStdString(site->file).toHtmlEscaped())
               .arg(site->line);
  if (t.parent >= 0) tip += QStringLiteral("<br>parent: #%1").arg(t.parent);
  tip += QStringLiteral("<br>created: %1").arg(relative(d, t.start));
  switch (t.outcome) {
    case ThreadOutcome::pending: tip += QStringLiteral("<br>pending at the end (%1)").arg(relative(d, t.end)); break;
    case ThreadOutcome::ok: tip += QStringLiteral("<br>resolved: %1, ok").arg(relative(d, t.end)); break;
    case ThreadOutcome::cancel: tip += QStringLiteral("<br>cancelled: %1").arg(relative(d, t.end)); break;
    case ThreadOutcome::fail:
      tip += QStringLiteral("<br><span style='color:#dc2626'>failed: %1 — %2</span>")
                 .arg(relative(d, t.end), QString::fromStdString(d.text(t.failure)).toHtmlEscaped());
      break;
  }
  tip += QStringLiteral("<br>lifetime: %1").arg(QString::fromStdString(format_duration_ns(t.end - t.start)));
  return tip;
}

}  // namespace skein
