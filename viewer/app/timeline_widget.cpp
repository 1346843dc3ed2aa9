// timeline_widget.cpp — window changes funnel through apply_window(), which
// records the old window in the history only when it changed, then
// changed(): refold, sync the scroll bar, repaint, emit view_changed. A
// pan drag moves the mapping directly and records one entry on release; a
// release that moved at most 3 px is a click. Code-driven moves select
// first, so the refold keeps the selected rows. The bar is synced under a
// QSignalBlocker so its valueChanged does not feed back. Tooltips look for
// a lint marker first, then an edge arrow near x, then the thread.
#include "viewer/app/timeline_widget.hpp"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>
#include <cmath>

#include "viewer/analysis/units.hpp"
#include "viewer/models/qt_text.hpp"
#include "viewer/render/timeline_painter.hpp"

namespace skein {
namespace {

// A record time as the user reads it everywhere: from the trace's origin.
QString record_time(TimeNs t) { return QString::fromStdString(format_duration_ns(t)); }

}  // namespace

TimelineWidget::TimelineWidget(QWidget* parent) : QWidget(parent) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(400, 240);
  clock_.start();
  rows_bar_ = new QScrollBar(Qt::Vertical, this);
  rows_bar_->setFocusPolicy(Qt::NoFocus);
  rows_bar_->setCursor(Qt::ArrowCursor);
  rows_bar_->hide();
  connect(rows_bar_, &QScrollBar::valueChanged, this, [this](int value) {
    view_.row_offset = double(value) / TimelineGeometry::kRowHeight;
    view_.clamp_rows();
    update();
  });
}

TimelineGeometry TimelineWidget::geometry_now() const {
  static const TimelineData kEmpty;
  return TimelineGeometry(width(), height(), data_ ? *data_ : kEmpty);
}

TimeWindow TimelineWidget::trace_window() const {
  return data_ ? fitted_window(data_->first_time, data_->end_time) : TimeWindow{0, 1};
}

void TimelineWidget::show_first_frame(std::shared_ptr<const TimelineFirstFrame> frame) {
  first_frame_ = std::move(frame);
  if (first_frame_ && !data_) view_ = first_frame_->view;
  sync_row_bar();
  update();
}

void TimelineWidget::set_data(std::shared_ptr<const TimelineData> data) {
  first_frame_.reset();
  data_ = std::move(data);
  view_ = TimelineViewState{};
  history_.clear();
  if (data_) view_.fit(*data_, width());
  changed();
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
  rows_changed();
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

void TimelineWidget::apply_window(const TimeMapping& next, WindowGesture gesture) {
  if (!data_) return;
  const TimeMapping before = view_.mapping;
  view_.mapping = next;
  if (view_.mapping != before) history_.record(before, gesture, now_ms());
  changed();
}

void TimelineWidget::fit() {
  if (!data_) return;
  const TimeWindow w = trace_window();
  apply_window(TimeMapping::fitted(w.from, w.to, width()), WindowGesture::once);
}

void TimelineWidget::show_window(double from, double to) {
  if (!data_) return;
  TimeMapping m = TimeMapping::fitted(from, to, width());
  limit_window(m, trace_window(), width(), width() / 2.0);
  apply_window(m, WindowGesture::once);
}

void TimelineWidget::show_end() {
  if (!data_) return;
  apply_window(at_end(view_.mapping, data_->end_time, trace_window(), width()), WindowGesture::once);
}

void TimelineWidget::zoom(double x, double factor, WindowGesture gesture) {
  if (!data_) return;
  apply_window(zoomed(view_.mapping, trace_window(), width(), x, factor), gesture);
}

void TimelineWidget::pan(double fraction, WindowGesture gesture) {
  if (!data_) return;
  apply_window(panned(view_.mapping, trace_window(), width(), fraction), gesture);
}

bool TimelineWidget::go_back() {
  if (!data_) return false;
  const auto to = history_.back(view_.mapping);
  if (!to) return false;
  view_.mapping = *to;
  changed();
  return true;
}

bool TimelineWidget::go_forward() {
  if (!data_) return false;
  const auto to = history_.forward(view_.mapping);
  if (!to) return false;
  view_.mapping = *to;
  changed();
  return true;
}

void TimelineWidget::reveal_thread(std::uint32_t index) {
  if (!data_ || index >= data_->threads.size()) return;
  const TimelineThread& t = data_->threads[index];
  // Selected first, so that every refold from here on keeps its row.
  view_.select(*data_, index);
  if (const auto w = reveal_window(view_.mapping, width(), t.start, t.end)) {
    TimeMapping m = TimeMapping::fitted(w->from, w->to, width());
    limit_window(m, trace_window(), width(), width() / 2.0);
    apply_window(m, WindowGesture::once);
  }
  // Its row may have been folded in an unchanged window.
  if (!view_.slot_of(t.row)) changed();
  scroll_to_row(t.row);
  emit selection_changed();
}

void TimelineWidget::show_focus(const FindingFocus& focus) {
  if (!data_ || focus.thread >= data_->threads.size()) return;
  // Selected first, so that the refold of the new window keeps its rows.
  view_.select_turn(*data_, focus);
  TimeMapping m = TimeMapping::fitted(focus.window.from, focus.window.to, width());
  limit_window(m, trace_window(), width(), width() / 2.0);
  apply_window(m, WindowGesture::once);  // refolds, keeping the named rows
  std::vector<std::int32_t> rows;
  for (const FocusLabel& l : view_.notes) rows.push_back(data_->threads[l.thread].row);
  view_.show_rows(rows, geometry_now().visible_rows());
  rows_changed();
  emit selection_changed();
}

void TimelineWidget::select_turn(const FindingFocus& focus) {
  if (!data_ || focus.thread >= data_->threads.size()) return;
  view_.select_turn(*data_, focus);
  changed();  // refolds, keeping the named rows
  emit selection_changed();
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
  rows_changed();
  return true;
}

void TimelineWidget::scroll_rows(double rows) {
  view_.row_offset += rows;
  rows_changed();
}

void TimelineWidget::select(std::optional<std::uint32_t> thread) {
  if (!data_) return;
  view_.select(*data_, thread);
  // A selection on a folded row unfolds it (the selection is never folded).
  if (view_.selected && !view_.slot_of(data_->threads[*view_.selected].row)) changed();
  update();
  emit selection_changed();
}

void TimelineWidget::changed() {
  if (data_) view_.refold(*data_, width());
  sync_row_bar();
  update();
  emit view_changed();
}

void TimelineWidget::rows_changed() {
  view_.clamp_rows();
  sync_row_bar();
  update();
}

void TimelineWidget::sync_row_bar() {
  const TimelineGeometry g = geometry_now();
  const int row_px = TimelineGeometry::kRowHeight;
  const int slot_count = view_.slot_count();
  const bool needed = (data_ || first_frame_) &&
                      (slot_count > static_cast<int>(std::floor(g.visible_rows())) || view_.row_offset > 0);
  // A first frame holds the rows on screen only: nothing to scroll to.
  rows_bar_->setEnabled(data_ != nullptr);
  const QSignalBlocker quiet(rows_bar_);
  rows_bar_->setRange(0, std::max(0, slot_count - 1) * row_px);
  rows_bar_->setPageStep(std::max(1, static_cast<int>(g.visible_rows() * row_px)));
  rows_bar_->setSingleStep(row_px);
  rows_bar_->setValue(static_cast<int>(std::lround(view_.row_offset * row_px)));
  const int bar_width = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, rows_bar_);
  rows_bar_->setGeometry(width() - bar_width, g.rows_top(), bar_width, g.rows_bottom() - g.rows_top());
  rows_bar_->setVisible(needed);
}

QPointF TimelineWidget::pointer_or_centre() const {
  if (pointer_.x() >= 0 && pointer_.x() < width()) return pointer_;
  return QPointF(width() / 2.0, height() / 2.0);
}

void TimelineWidget::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!data_ && first_frame_ && first_frame_->width == width() && first_frame_->height == height()) {
    TimelinePaintOptions options;
    if (rows_bar_->isVisible()) options.rows_right_inset = rows_bar_->width();
    options.edge_density = &first_frame_->edge_density;
    paint_timeline(p, first_frame_->data, first_frame_->view,
                   TimelineGeometry(width(), height(), first_frame_->data), options);
    emit frame_painted();
    return;
  }
  if (!data_) {
    p.fillRect(rect(), QColor(0xfb, 0xfb, 0xfc));
    p.setPen(QColor(0x6b, 0x72, 0x80));
    p.drawText(rect(), Qt::AlignCenter,
               QStringLiteral("Open a trace or a trace database: File ▸ Open (Ctrl+O), or drop a file here."));
    return;
  }
  TimelinePaintOptions options;
  if (rows_bar_->isVisible()) options.rows_right_inset = rows_bar_->width();
  paint_timeline(p, *data_, view_, geometry_now(), options);
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
  emit frame_painted();
}

void TimelineWidget::resizeEvent(QResizeEvent*) {
  // A wider canvas at the same scale may show more than the limits allow.
  if (data_) limit_window(view_.mapping, trace_window(), width(), width() / 2.0);
  changed();
}

void TimelineWidget::wheelEvent(QWheelEvent* event) {
  if (!data_) return;
  const QPoint delta = event->angleDelta();
  if (event->modifiers() & Qt::ShiftModifier) {
    // Some platforms turn Shift+wheel into a horizontal wheel.
    const int notch = delta.y() != 0 ? delta.y() : delta.x();
    scroll_rows(-notch / 120.0 * kWheelRows);
  } else if (delta.y() != 0) {
    // The plain wheel and Ctrl+wheel both zoom.
    zoom(event->position().x(), std::pow(kWheelStep, delta.y()), WindowGesture::wheel_zoom);
  } else if (delta.x() != 0) {
    apply_window(
        panned(view_.mapping, trace_window(), width(), -delta.x() / 4.0 / std::max(1, width())),
        WindowGesture::wheel_pan);
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
  drag_start_window_ = view_.mapping;
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
    // One history entry for the whole drag, recorded when it ends.
    view_.mapping.pan_px(d.x());
    limit_window(view_.mapping, trace_window(), width(), width() / 2.0);
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
  if (was == Drag::pan && view_.mapping != drag_start_window_)
    history_.record(drag_start_window_, WindowGesture::once, now_ms());
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
  const bool alt = event->modifiers() & Qt::AltModifier;
  const bool shift = event->modifiers() & Qt::ShiftModifier;
  const double x = pointer_or_centre().x();
  switch (event->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoom(x, kKeyZoom, WindowGesture::zoom_in); return;
    case Qt::Key_S:
    case Qt::Key_Minus: zoom(x, 1 / kKeyZoom, WindowGesture::zoom_out); return;
    case Qt::Key_A: pan(-kKeyPan, WindowGesture::pan_earlier); return;
    case Qt::Key_D: pan(kKeyPan, WindowGesture::pan_later); return;
    case Qt::Key_Left:
      if (alt) go_back();
      else pan(-(shift ? kArrowPanShift : kArrowPan), WindowGesture::pan_earlier);
      return;
    case Qt::Key_Right:
      if (alt) go_forward();
      else pan(shift ? kArrowPanShift : kArrowPan, WindowGesture::pan_later);
      return;
    case Qt::Key_Backspace: go_back(); return;
    case Qt::Key_Up: scroll_rows(-1); return;
    case Qt::Key_Down: scroll_rows(1); return;
    case Qt::Key_PageUp: scroll_rows(-g.visible_rows()); return;
    case Qt::Key_PageDown: scroll_rows(g.visible_rows()); return;
    case Qt::Key_Home: fit(); return;
    case Qt::Key_End: show_end(); return;
    case Qt::Key_Escape: select(std::nullopt); return;
    default: QWidget::keyPressEvent(event); return;
  }
}

void TimelineWidget::leaveEvent(QEvent*) { pointer_ = QPointF(-1, -1); }

QString TimelineWidget::tooltip_at(QPointF pos) const {
  if (!data_) return {};
  const TimelineData& d = *data_;
  const TimelineGeometry g = geometry_now();
  const double slack_px = 4;
  // A lint marker first: it is drawn on top.
  for (const TimelineAnomaly& a : d.anomalies) {
    if (a.thread < 0 || view_.is_rule_hidden(a.rule())) continue;
    const auto slot = view_.slot_of(d.threads[static_cast<std::size_t>(a.thread)].row);
    if (!slot) continue;
    const double x = view_.mapping.x_of(double(a.time)), y = g.line_y(*slot, view_.row_offset);
    if (std::fabs(x - pos.x()) <= 7 && std::fabs(y - pos.y()) <= 8)
      return QStringLiteral("<b>%1</b> at %2<br>%3")
          .arg(qt_text(a.rule()).toHtmlEscaped(), record_time(a.time), qt_text(a.message()).toHtmlEscaped());
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
                      .arg(record_time(e.time));
    if (e.kind == EdgeKind::notify && e.text != 0)
      tip += QStringLiteral("<br>reason: %1").arg(QString::fromStdString(d.text(e.text)).toHtmlEscaped());
    return tip;
  }
  const auto picked = pick_thread(d, view_, g, pos.x(), pos.y());
  if (!picked) return {};
  const TimelineThread& t = d.threads[*picked];
  QString tip = QStringLiteral("<b>#%1</b>").arg(t.id);
  if (t.label != 0) tip += QStringLiteral(" %1").arg(QString::fromStdString(d.text(t.label)).toHtmlEscaped());
  if (const std::size_t labels = d.label_count(*picked); labels > kRowLabelsShown)
    tip += QStringLiteral("<br>%1 labels: Thread details lists them all").arg(labels);
  if (t.kind != 0) tip += QStringLiteral("<br>kind: %1").arg(QString::fromStdString(d.text(t.kind)).toHtmlEscaped());
  if (const StoredSite* site = d.site(t.site))
    tip += QStringLiteral("<br>created at: %1 (%2:%3)")
               .arg(QString::fromStdString(site->function).toHtmlEscaped(),
                    QString::fromStdString(site->file).toHtmlEscaped())
               .arg(site->line);
  if (t.parent >= 0) tip += QStringLiteral("<br>parent: #%1").arg(t.parent);
  tip += QStringLiteral("<br>created: %1").arg(record_time(t.start));
  switch (t.outcome) {
    case ThreadOutcome::pending: tip += QStringLiteral("<br>pending at the end (%1)").arg(record_time(t.end)); break;
    case ThreadOutcome::ok: tip += QStringLiteral("<br>resolved: %1, ok").arg(record_time(t.end)); break;
    case ThreadOutcome::cancel: tip += QStringLiteral("<br>cancelled: %1").arg(record_time(t.end)); break;
    case ThreadOutcome::fail:
      tip += QStringLiteral("<br><span style='color:#dc2626'>failed: %1 — %2</span>")
                 .arg(record_time(t.end), QString::fromStdString(d.text(t.failure)).toHtmlEscaped());
      break;
  }
  tip += QStringLiteral("<br>lifetime: %1").arg(QString::fromStdString(format_duration_ns(t.end - t.start)));
  return tip;
}

}  // namespace skein
