// timeline_painter.cpp — each row marks a per-pixel-column coverage mask
// (line, running, selected) and fills it as runs of rectangles, with
// antialiasing off; arrows, findings, the path and labels follow,
// antialiased, all clipped to the rows area. Edges are taken a column at a
// time by binary search: drawn when 3 or fewer, always counted for the
// density strip; the selection's edges go on top, 8 a column at most. The
// rows collect the label jobs, drawn after the arrows left to right per
// row, each clear of the one before.
#include "viewer/render/timeline_painter.hpp"

#include <QFontMetricsF>
#include <QPainterPath>
#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_map>
#include <vector>

#include "recorder/export/output_escape.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/timeline/time_ruler.hpp"
#include "viewer/timeline/timeline_findings.hpp"
#include "viewer/render/timeline_style.hpp"

namespace skein {
namespace {

// The selection's own edges drawn in one pixel column: a chain of
// thousands of threads at a wide zoom is a column of arrows, not a wall.
constexpr int kMaxSelectedArrowsPerColumn = 8;
constexpr double kMinLabelPx = 36;
constexpr double kRunningHalfHeight = 4;
constexpr double kWaitingHalfHeight = 1;

// Per-column coverage of one row.
constexpr std::uint8_t kLine = 1, kRun = 2, kSelected = 4;

// A trace's text (labels, kinds, counter names: any bytes) as drawn. The
// same painting goes to a widget, a PNG and an SVG, where QSvgGenerator
// escapes the markup but writes every character as it is: the text keeps
// to what XML 1.0 allows, controls and bytes that are not UTF-8 shown as
// visible escapes (output_escape.hpp).
QString trace_text(const std::string& bytes) { return QString::fromStdString(xml_characters(bytes)); }

struct Frame {
  QPainter& p;
  const TimelineData& data;
  const TimelineViewState& view;
  const TimelineGeometry& g;
  double t0 = 0;  // time at x = 0
  double t1 = 0;  // time at x = width
  double labels_right = 0;  // labels end before this x
  std::int32_t first_slot = 0;
  std::int32_t last_slot = -1;  // inclusive
  std::vector<std::uint32_t> chain;  // the selected chain, sorted
  std::vector<float> density;        // arrows per column, for the strip under the ruler

  [[nodiscard]] double x(double t) const { return view.mapping.x_of(t); }
  // The y of a row's line; nullopt when the row is folded.
  [[nodiscard]] std::optional<double> row_y(std::int32_t row) const {
    const auto slot = view.slot_of(row);
    if (!slot) return std::nullopt;
    return g.line_y(*slot, view.row_offset);
  }
  [[nodiscard]] bool in_chain(std::uint32_t i) const { return std::binary_search(chain.begin(), chain.end(), i); }
};

QFont font_of(double point_size, bool bold = false) {
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setStyleHint(QFont::SansSerif);
  f.setPixelSize(static_cast<int>(std::lround(point_size)));
  f.setBold(bold);
  return f;
}

// Column of x, clamped to the canvas.
int column(double x, int width) { return static_cast<int>(std::clamp(std::floor(x), -1.0, double(width))); }

void fill_runs(QPainter& p, const std::vector<std::uint8_t>& cover, std::uint8_t bit, double y0, double h,
               const QColor& colour) {
  const int w = static_cast<int>(cover.size());
  for (int c = 0; c < w;) {
    if (!(cover[static_cast<std::size_t>(c)] & bit)) {
      ++c;
      continue;
    }
    int e = c;
    while (e < w && (cover[static_cast<std::size_t>(e)] & bit)) ++e;
    p.fillRect(QRectF(c, y0, e - c, h), colour);
    c = e;
  }
}

void mark(std::vector<std::uint8_t>& cover, double x0, double x1, std::uint8_t bit) {
  const int w = static_cast<int>(cover.size());
  const int c0 = std::max(0, column(x0, w));
  const int c1 = std::min(w - 1, column(x1, w));
  for (int c = c0; c <= c1; ++c) cover[static_cast<std::size_t>(c)] |= bit;
}

void paint_bands(Frame& f, const std::vector<TimelineBand>& bands, const QColor& colour) {
  if (bands.empty()) return;
  std::vector<std::uint8_t> cover(static_cast<std::size_t>(f.g.width), 0);
  // Bands are sorted by start and disjoint (timeline_data.hpp): the first
  // possibly visible one starts at most one band before t0.
  auto it = std::lower_bound(bands.begin(), bands.end(), f.t0,
                             [](const TimelineBand& b, double t) { return double(b.end) < t; });
  if (it != bands.begin()) --it;
  while (it != bands.end() && double(it->start) <= f.t1) {
    const double x0 = f.x(double(it->start)), x1 = f.x(double(it->end));
    mark(cover, x0, std::max(x1, x0), kLine);
    if (std::floor(x1) <= std::floor(x0)) {
      // Sub-pixel: jump to the first band starting in the next column; the
      // last one starting in this column may reach further.
      const double next = f.view.mapping.t_of(std::floor(x0) + 1);
      auto jump = std::lower_bound(it + 1, bands.end(), next,
                                   [](const TimelineBand& b, double t) { return double(b.start) < t; });
      if (jump - it > 1) mark(cover, f.x(double((jump - 1)->start)), f.x(double((jump - 1)->end)), kLine);
      it = jump;
    } else {
      ++it;
    }
  }
  fill_runs(f.p, cover, kLine, f.g.rows_top(), f.g.rows_bottom() - f.g.rows_top(), colour);
}

void paint_grid(Frame& f, const TimeRuler& ruler) {
  f.p.setPen(QPen(style::kGrid, 1));
  for (const RulerTick& t : ruler.ticks) {
    const double x = std::round(t.x) + 0.5;
    f.p.drawLine(QPointF(x, f.g.rows_top()), QPointF(x, f.g.rows_bottom()));
  }
}

struct LabelJob {
  std::uint32_t thread;
  double x0, x1;
  double y;
};

// One row: lines, running spans, failures, pending arrowheads; collects
// the threads wide enough for a label.
void paint_row(Frame& f, std::int32_t slot, std::vector<LabelJob>& labels) {
  const std::int32_t r = *f.view.row_of_slot(slot);
  const TimelineRow& row = f.data.rows[static_cast<std::size_t>(r)];
  const double y = f.g.line_y(slot, f.view.row_offset);
  const int w = f.g.width;
  std::vector<std::uint8_t> cover(static_cast<std::size_t>(w), 0);
  bool pending_arrow = false;

  // Threads. end_prefix_max is non-decreasing: the first thread that may
  // reach t0 is a binary search away.
  std::size_t k = static_cast<std::size_t>(
      std::lower_bound(row.end_prefix_max.begin(), row.end_prefix_max.end(), f.t0,
                       [](TimeNs e, double t) { return double(e) < t; }) -
      row.end_prefix_max.begin());
  const std::size_t n = row.threads.size();
  while (k < n) {
    const std::uint32_t i = row.threads[k];
    const TimelineThread& t = f.data.threads[i];
    if (double(t.start) > f.t1) break;
    const double x0 = f.x(double(t.start)), x1 = f.x(double(t.end));
    if (x1 >= 0) {
      mark(cover, x0, x1, f.in_chain(i) ? std::uint8_t(kLine | kSelected) : kLine);
      if (t.outcome == ThreadOutcome::pending && t.end >= f.data.end_time && x1 <= w) pending_arrow = true;
      if (x1 - x0 >= kMinLabelPx && x1 > 0 && x0 < w) labels.push_back(LabelJob{i, x0, x1, y});
    }
    if (std::floor(x1) <= std::floor(x0) && x0 >= 0) {
      // Sub-pixel: the rest of this column is covered already; go on from
      // the last thread starting in it (it may be long) or the next column.
      const double next = f.view.mapping.t_of(std::floor(x0) + 1);
      const auto jump = static_cast<std::size_t>(
          std::lower_bound(row.starts.begin() + static_cast<std::ptrdiff_t>(k), row.starts.end(), next,
                           [](TimeNs s, double v) { return double(s) < v; }) -
          row.starts.begin());
      if (jump > k + 1) {
        const TimelineThread& last = f.data.threads[row.threads[jump - 1]];
        mark(cover, f.x(double(last.start)), f.x(double(last.end)), kLine);
        if (f.x(double(last.end)) - f.x(double(last.start)) >= kMinLabelPx)
          labels.push_back(LabelJob{row.threads[jump - 1], f.x(double(last.start)), f.x(double(last.end)), y});
        if (last.outcome == ThreadOutcome::pending && last.end >= f.data.end_time) pending_arrow = true;
        k = jump;
      } else {
        ++k;
      }
    } else {
      ++k;
    }
  }

  // Running spans: disjoint and sorted, so their ends are sorted too.
  auto a = std::lower_bound(row.activations.begin(), row.activations.end(), f.t0,
                            [](const TimelineActivation& act, double t) { return double(act.end) < t; });
  while (a != row.activations.end() && double(a->start) <= f.t1) {
    const double x0 = f.x(double(a->start)), x1 = f.x(double(a->end));
    mark(cover, x0, x1, kRun);
    if (std::floor(x1) <= std::floor(x0)) {
      const double next = f.view.mapping.t_of(std::floor(x0) + 1);
      a = std::lower_bound(a + 1, row.activations.end(), next,
                           [](const TimelineActivation& act, double t) { return double(act.start) < t; });
      // The last one starting in this column may reach further.
      if (a != row.activations.begin() && (a - 1)->end > (a - 1)->start)
        mark(cover, f.x(double((a - 1)->start)), f.x(double((a - 1)->end)), kRun);
    } else {
      ++a;
    }
  }

  // Runs of a level of detail: few, each at least its bucket apart.
  const auto mark_runs = [&](const std::vector<TimelineBand>& runs, std::uint8_t bit) {
    auto it = std::lower_bound(runs.begin(), runs.end(), f.t0,
                               [](const TimelineBand& b, double t) { return double(b.end) < t; });
    for (; it != runs.end() && double(it->start) <= f.t1; ++it) mark(cover, f.x(double(it->start)), f.x(double(it->end)), bit);
  };
  mark_runs(row.line_runs, kLine);
  mark_runs(row.running_runs, kRun);

  fill_runs(f.p, cover, kLine, y - kWaitingHalfHeight, 2 * kWaitingHalfHeight, style::kWaiting);
  fill_runs(f.p, cover, kSelected, y - 1.5, 3, style::kSelectedLine);
  fill_runs(f.p, cover, kRun, y - kRunningHalfHeight, 2 * kRunningHalfHeight, style::kRunning);

  // Failures: a red bar across the line where a failed thread ended; one
  // per column at most.
  auto fail = std::lower_bound(row.failures.begin(), row.failures.end(), f.t0,
                               [](const std::pair<TimeNs, std::uint32_t>& e, double t) { return double(e.first) < t; });
  while (fail != row.failures.end() && double(fail->first) <= f.t1) {
    const double x = std::floor(f.x(double(fail->first)));
    f.p.fillRect(QRectF(x - 1, y - 8, 3, 16), style::kFailure);
    const double next = f.view.mapping.t_of(x + 1);
    fail = std::lower_bound(fail + 1, row.failures.end(), next,
                            [](const std::pair<TimeNs, std::uint32_t>& e, double t) { return double(e.first) < t; });
  }

  if (pending_arrow) {
    const double x = f.x(double(f.data.end_time));
    QPainterPath head;
    head.moveTo(x + 7, y);
    head.lineTo(x - 1, y - 5);
    head.lineTo(x - 1, y + 5);
    head.closeSubpath();
    f.p.fillPath(head, style::kWaiting.darker(130));
  }
}

// A vertical arrow at x (a pixel centre): the shaft is a pixel-aligned
// rectangle (crisp, and far cheaper than an antialiased line), the head an
// antialiased triangle.
void paint_arrow(Frame& f, double x, double y_from, double y_to, const QColor& colour, double width) {
  const double dir = y_to > y_from ? 1 : -1;
  const double shaft_end = y_to - dir * 5;
  const double w = width >= 2 ? 2 : 1;
  f.p.fillRect(QRectF(std::floor(x), std::min(y_from, shaft_end), w, std::fabs(shaft_end - y_from)), colour);
  const QPointF head[3] = {{x, y_to}, {x - 3.5, y_to - dir * 7}, {x + 3.5, y_to - dir * 7}};
  f.p.setPen(Qt::NoPen);
  f.p.setBrush(colour);
  f.p.drawConvexPolygon(head, 3);
  f.p.setBrush(Qt::NoBrush);
}

// One edge as an arrow: its direction is the direction of causality (a
// read's arrow comes from the input, a wait's goes to what is waited on).
void paint_edge(Frame& f, const TimelineEdge& e, double width) {
  if (e.dst < 0 || (e.src < 0 && e.kind != EdgeKind::notify)) return;
  const double x = std::round(f.x(double(e.time))) + 0.5;
  const TimelineThread& dst = f.data.threads[static_cast<std::size_t>(e.dst)];
  const auto dst_y = f.row_y(dst.row);
  const auto src_y = e.src >= 0 ? f.row_y(f.data.threads[static_cast<std::size_t>(e.src)].row) : std::optional<double>();
  if (!dst_y || (e.src >= 0 && !src_y)) return;  // an end on a folded row: nothing alive there to point at
  const double y_dst = *dst_y;
  const double y_src = src_y ? *src_y : y_dst - 12;  // from the scheduler: a short arrow from above
  const double top = f.g.rows_top(), bottom = f.g.rows_bottom();
  if (std::max(y_src, y_dst) < top || std::min(y_src, y_dst) > bottom) return;
  if (std::fabs(y_src - y_dst) < 1) return;  // same row: a merge chain's own continuation
  // An end far off-screen is brought to just outside the view: the arrow
  // looks the same, and the rasteriser is not handed a line 100,000 px long.
  const auto clip = [&](double y) { return std::clamp(y, top - 20, bottom + 20); };
  QColor colour = style::edge_colour(e.kind);
  // Long arrows cross many rows: lighter, so they do not bar the view.
  if (width < 2 && std::fabs(y_src - y_dst) > 6 * TimelineGeometry::kRowHeight) colour.setAlphaF(0.45);
  const double ys = clip(y_src), yd = clip(y_dst);
  switch (e.kind) {
    case EdgeKind::spawn:
      f.p.fillRect(QRectF(std::floor(x), std::min(ys, yd), 1, std::fabs(ys - yd)), colour);
      f.p.setBrush(colour);
      f.p.setPen(Qt::NoPen);
      f.p.drawEllipse(QPointF(x, yd), 2.5, 2.5);
      f.p.setBrush(Qt::NoBrush);
      return;
    case EdgeKind::read:
      if (dst.outcome == ThreadOutcome::fail) colour = style::kFailure;
      paint_arrow(f, x, yd, ys, colour, width);
      return;
    default:
      paint_arrow(f, x, ys, yd, colour, width);
      return;
  }
}

void paint_edges(Frame& f, const std::vector<float>* stored_density) {
  const auto& times = f.data.edge_times;
  auto i = static_cast<std::size_t>(
      std::lower_bound(times.begin(), times.end(), f.t0, [](TimeNs t, double v) { return double(t) < v; }) -
      times.begin());
  const auto end = static_cast<std::size_t>(
      std::upper_bound(times.begin(), times.end(), f.t1, [](double v, TimeNs t) { return v < double(t); }) -
      times.begin());
  f.density.assign(static_cast<std::size_t>(f.g.width), 0.0f);
  while (i < end) {
    // The edges of column c: those whose x floors to c (timeline_view.hpp),
    // a run of the times, x being monotonic in t.
    const double c = std::floor(f.x(double(times[i])));
    auto j = static_cast<std::size_t>(
        std::partition_point(times.begin() + static_cast<std::ptrdiff_t>(i),
                             times.begin() + static_cast<std::ptrdiff_t>(end),
                             [&](TimeNs t) { return std::floor(f.x(double(t))) <= c; }) -
        times.begin());
    j = std::max(j, i + 1);
    const std::size_t count = j - i;
    if (c >= 0 && c < f.g.width) f.density[static_cast<std::size_t>(c)] += static_cast<float>(count);
    // With stored counts, the data holds every edge of the columns it
    // holds any of: those with at most kMaxArrowsPerColumn.
    if (count <= kMaxArrowsPerColumn)
      for (std::size_t k = i; k < j; ++k) paint_edge(f, f.data.edges[k], 1.3);
    i = j;
  }
  if (stored_density != nullptr) f.density = *stored_density;
  // The selection's own edges, on top: only those in the window (they are
  // sorted by time), at most kMaxSelectedArrowsPerColumn a column.
  const std::vector<std::uint32_t>& selected = f.view.selected_edges;
  auto s = std::lower_bound(selected.begin(), selected.end(), f.t0,
                            [&](std::uint32_t k, double t) { return double(f.data.edges[k].time) < t; });
  double in_column = -1;
  int drawn = 0;
  for (; s != selected.end() && double(f.data.edges[*s].time) <= f.t1; ++s) {
    const TimelineEdge& e = f.data.edges[*s];
    const double c = std::floor(f.x(double(e.time)));
    if (c != in_column) {
      in_column = c;
      drawn = 0;
    }
    if (++drawn > kMaxSelectedArrowsPerColumn) continue;
    paint_edge(f, e, 2.2);
  }
}

// A finding's turn: outlined on its row, so the activation that acted
// stands out from the thread's other turns.
void paint_selected_turn(Frame& f) {
  if (!f.view.selected_turn || !f.view.selected) return;
  const TimelineActivation& a = *f.view.selected_turn;
  if (double(a.end) < f.t0 || double(a.start) > f.t1) return;
  const auto y = f.row_y(f.data.threads[*f.view.selected].row);
  if (!y) return;
  const double x0 = std::max(-4.0, f.x(double(a.start))), x1 = std::min(f.g.width + 4.0, f.x(double(a.end)));
  f.p.setPen(QPen(style::kSelectedLine, 2));
  f.p.setBrush(Qt::NoBrush);
  f.p.drawRect(QRectF(x0 - 3, *y - kRunningHalfHeight - 3, std::max(2.0, x1 - x0) + 6, 2 * kRunningHalfHeight + 6));
  f.p.setPen(Qt::NoPen);
}

// The focus's row names ("suspect: backend #1"): a tag at the right end of
// each named row, clear of the scroll bar, bordered and lettered in the
// colour of the finding's severity (timeline_style.hpp).
void paint_notes(Frame& f) {
  if (f.view.notes.empty()) return;
  const QFont font = font_of(11, true);
  const QFontMetricsF fm(font);
  f.p.setFont(font);
  for (const FocusLabel& note : f.view.notes) {
    const auto slot = f.view.slot_of(f.data.threads[note.thread].row);
    if (!slot || *slot < f.first_slot || *slot > f.last_slot) continue;
    // A merge chain's label runs to hundreds of characters: the tag keeps
    // its start ("note #13: ...") and its id, and leaves the row's own
    // name at the left in view.
    const double widest = std::min(560.0, 0.45 * f.labels_right);
    const QString text = fm.elidedText(trace_text(note.text), Qt::ElideMiddle, widest - 12);
    const double w = fm.horizontalAdvance(text) + 12;
    const double top = f.g.row_top(*slot, f.view.row_offset) + 1;
    const QRectF box(f.labels_right - w - 6, top, w, fm.height() + 2);
    const QColor colour = style::finding_colour(note.severity);
    f.p.setPen(QPen(colour, 1));
    f.p.setBrush(style::finding_background(note.severity));
    f.p.drawRoundedRect(box, 3, 3);
    f.p.setPen(colour);
    f.p.drawText(box, Qt::AlignCenter, text);
  }
  f.p.setBrush(Qt::NoBrush);
  f.p.setPen(Qt::NoPen);
}

// The strip under the ruler: one mark per column, darker for more arrows
// (log scale: 1 arrow is faint, 1000 are black).
void paint_density(Frame& f) {
  const double y = TimelineGeometry::kRulerHeight;
  for (int c = 0; c < f.g.width; ++c) {
    const float count = f.density[static_cast<std::size_t>(c)];
    if (count <= 0) continue;
    QColor d = style::kDensity;
    d.setAlphaF(edge_density_opacity(double(count)));
    f.p.fillRect(QRectF(c, y, 1, TimelineGeometry::kDensityHeight), d);
  }
}

// The findings in the window, one marker per row and pixel column (a
// zoomed-out trace may hold thousands on one pixel, and a frame must cost
// what it shows, not what the trace holds), coloured by severity, with the
// dashed line from the row a finding names as its cause. Dashing costs by length: past
// kMaxDashedLinks distinct lines, they are drawn solid and faint.
void paint_anomalies(Frame& f) {
  constexpr std::size_t kMaxDashedLinks = 256;
  struct Marker {
    double x, y;
    std::optional<double> from_y;  // a link from there to `to_y`
    double to_y;                   // y, held just outside the frame (the same pixels)
    QColor colour;
    int rank;  // 0 error, 1 warning, 2 note: the most severe wins a diamond
  };
  std::vector<Marker> markers;
  const auto key = [](double x, double a, double b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(x)) << 40) ^
           (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a + 1e5)) << 20) ^
           static_cast<std::uint64_t>(static_cast<std::uint32_t>(b + 1e5));
  };
  // Each distinct link once. Findings come by time, so by column: a link
  // is looked for among its own column's only.
  std::size_t links = 0;
  double links_x = -1;
  std::vector<std::pair<double, double>> column_links;
  const auto new_link = [&](double x, double from, double to) {
    if (x != links_x) {
      links_x = x;
      column_links.clear();
    }
    if (std::find(column_links.begin(), column_links.end(), std::pair(from, to)) != column_links.end()) return false;
    column_links.emplace_back(from, to);
    ++links;
    return true;
  };
  // What can show: a diamond reaches 7 px above and below its line, and a
  // link is drawn only where it crosses the rows area. A frame at a coarse
  // zoom has every finding of the trace in its window (hundreds of
  // thousands in a big linted trace) but only a few rows on screen: a
  // finding on a row off screen costs its test, never a marker.
  const double top = f.g.rows_top(), bottom = f.g.rows_bottom();
  const auto on_screen = [&](double y) { return y >= -8 && y <= double(f.g.height) + 8; };
  // One marker a pixel column and row on screen, in a dense table: its
  // columns are the frame's, its rows the slots from just above the view to
  // just below it.
  const auto first_slot = static_cast<std::int64_t>(std::floor(f.view.row_offset)) - 2;
  const auto slot_rows = static_cast<std::int64_t>(std::ceil(double(f.g.height) / TimelineGeometry::kRowHeight)) + 4;
  const auto columns = static_cast<std::int64_t>(std::max(f.g.width, 0)) + 2;
  std::vector<std::uint8_t> taken(static_cast<std::size_t>(slot_rows * columns), 0);
  const auto take = [&](double x, std::int32_t slot) {
    const auto column = static_cast<std::int64_t>(std::floor(x)) + 1;
    const std::int64_t s = slot - first_slot;
    if (column < 0 || column >= columns || s < 0 || s >= slot_rows) return true;  // outside the table: never merged
    std::uint8_t& cell = taken[static_cast<std::size_t>(s * columns + column)];
    const bool fresh = cell == 0;
    cell = 1;
    return fresh;
  };
  // Sorted by time: the ones in view are one range.
  const auto& all = f.data.anomalies;
  const auto first = static_cast<std::size_t>(
      std::lower_bound(all.begin(), all.end(), f.t0,
                       [](const TimelineAnomaly& a, double t) { return double(a.time) < t; }) -
      all.begin());
  const auto last = static_cast<std::size_t>(
      std::upper_bound(all.begin() + static_cast<std::ptrdiff_t>(first), all.end(), f.t1,
                       [](double t, const TimelineAnomaly& a) { return t < double(a.time); }) -
      all.begin());
  // The rows a drawn finding can touch. Slots increase with rows, and a row
  // five slots or more above the top one has its line at y < -8 and above
  // the rows area by more than a link's 20 px of slack, one as far below
  // the last slot past the bottom: a finding whose rows, its own and its
  // link's far end, all lie beyond such a row on one side is neither on
  // screen nor linked across it. finding_rows says so in 8 bytes a finding.
  constexpr std::int64_t kSlack = 4;
  static_assert(TimelineGeometry::kRulerHeight + TimelineGeometry::kDensityHeight + TimelineGeometry::kLineOffset + 20 <
                (kSlack + 1) * TimelineGeometry::kRowHeight);
  const auto& shown_rows = f.view.shown_rows;
  const std::int64_t low_slot = static_cast<std::int64_t>(std::floor(f.view.row_offset)) - kSlack;
  const std::int64_t high_slot =
      static_cast<std::int64_t>(std::ceil(f.view.row_offset + double(f.g.height) / TimelineGeometry::kRowHeight)) +
      kSlack;
  const auto slot_count = static_cast<std::int64_t>(shown_rows.size());
  const bool indexed = f.data.finding_rows.size() == all.size();
  const auto row_at = [&](std::int64_t slot) { return shown_rows[static_cast<std::size_t>(slot)]; };
  const std::int32_t low_row = low_slot <= 0 ? INT32_MIN : low_slot < slot_count ? row_at(low_slot) : INT32_MAX;
  const std::int32_t high_row =
      high_slot >= slot_count - 1 ? INT32_MAX : high_slot >= 0 ? row_at(high_slot) : INT32_MIN;
  for (std::size_t i = first; i < last; ++i) {
    if (indexed) {
      const FindingRowSpan rows = f.data.finding_rows[i];
      if (rows.high < low_row || rows.low > high_row) continue;
    }
    const TimelineAnomaly& a = all[i];
    if (a.thread < 0 || f.view.is_rule_hidden(a.rule())) continue;
    const auto slot = f.view.slot_of(f.data.threads[static_cast<std::size_t>(a.thread)].row);
    if (!slot) continue;
    const double y = f.g.line_y(*slot, f.view.row_offset);
    const bool shown = on_screen(y);
    if (!shown && a.from < 0) continue;
    const std::string_view severity = finding_severity(a);
    const int rank = severity == "error" ? 0 : severity == "warning" ? 1 : 2;
    const double x = std::round(f.x(double(a.time))) + 0.5;
    // A link's far end is held just outside the frame: links that differ
    // only past the frame's edge are drawn once.
    const double to_y = std::clamp(y, -2.0, double(f.g.height) + 2);
    std::optional<double> from_y;
    if (a.from >= 0) {
      const double yf = std::clamp(f.row_y(f.data.threads[static_cast<std::size_t>(a.from)].row).value_or(y),
                                   top - 20, bottom + 20);
      const bool crosses = std::max(yf, y) >= top && std::min(yf, y) <= bottom;
      if (crosses && new_link(x, yf, to_y)) from_y = yf;
    }
    if (!shown && !from_y) continue;
    if (!take(x, *slot) && !from_y) continue;
    markers.push_back({x, y, from_y, to_y, style::finding_colour(severity), rank});
  }
  const bool dashed = links <= kMaxDashedLinks;
  for (const Marker& m : markers) {
    if (!m.from_y) continue;
    QColor c = m.colour;
    if (!dashed) c.setAlphaF(0.5);
    f.p.setPen(QPen(c, dashed ? 1.5 : 1.0, dashed ? Qt::DashLine : Qt::SolidLine));
    f.p.drawLine(QPointF(m.x, *m.from_y), QPointF(m.x, m.to_y));
  }
  // One diamond a row and column; the most severe finding's colour wins.
  std::unordered_map<std::uint64_t, std::size_t> diamond_of;
  std::vector<std::size_t> diamonds;
  for (std::size_t i = 0; i < markers.size(); ++i) {
    if (!on_screen(markers[i].y)) continue;
    const auto [at, fresh] = diamond_of.try_emplace(key(markers[i].x, markers[i].y, 0), diamonds.size());
    if (fresh) diamonds.push_back(i);
    else if (markers[i].rank < markers[diamonds[at->second]].rank) diamonds[at->second] = i;
  }
  for (const std::size_t i : diamonds) {
    const Marker& m = markers[i];
    QPainterPath diamond;
    diamond.moveTo(m.x, m.y - 7);
    diamond.lineTo(m.x + 6, m.y);
    diamond.lineTo(m.x, m.y + 7);
    diamond.lineTo(m.x - 6, m.y);
    diamond.closeSubpath();
    f.p.fillPath(diamond, m.colour);
    f.p.setPen(QPen(Qt::white, 1.5));
    f.p.drawLine(QPointF(m.x, m.y - 3.5), QPointF(m.x, m.y + 1));
    f.p.drawPoint(QPointF(m.x, m.y + 3.5));
  }
}

void paint_labels(Frame& f, const std::vector<LabelJob>& labels) {
  const QFont label_font = timeline_label_font();
  const QFont kind_font = font_of(10);
  const QFontMetricsF lm(label_font), km(kind_font);
  // Left to right within each row; a label never runs over the one before
  // it (members of a merge chain overlap in time): among labels pinned to
  // the left edge, the chain's latest member wins.
  std::vector<LabelJob> sorted = labels;
  std::stable_sort(sorted.begin(), sorted.end(), [](const LabelJob& a, const LabelJob& b) {
    return a.y != b.y ? a.y < b.y : std::max(a.x0, 0.0) < std::max(b.x0, 0.0) ||
                                        (std::max(a.x0, 0.0) == std::max(b.x0, 0.0) && a.x0 > b.x0);
  });
  double row_y = -1, taken_until = -1e9;
  for (const LabelJob& job : sorted) {
    const TimelineThread& t = f.data.threads[job.thread];
    if (job.y != row_y) {
      row_y = job.y;
      taken_until = -1e9;
    }
    // Pinned to the left edge when the thread starts off-screen.
    const double left = std::max(job.x0, 0.0) + 3;
    const double right = std::min(job.x1, f.labels_right) - 3;
    if (right - left < 16 || left < taken_until) continue;
    const QString text = elided_thread_label(lm, f.data.text(t.label), t.id, right - left);
    taken_until = left + lm.horizontalAdvance(text) + 12;
    if (!text.isEmpty()) {
      f.p.setFont(label_font);
      f.p.setPen(style::kLabel);
      f.p.drawText(QPointF(left, job.y - kRunningHalfHeight - 4), text);
    }
    const std::string& kind = f.data.text(t.kind);
    if (!kind.empty()) {
      const QString k = km.elidedText(trace_text(kind), Qt::ElideRight, right - left);
      if (!k.isEmpty()) {
        f.p.setFont(kind_font);
        f.p.setPen(style::kKind);
        f.p.drawText(QPointF(left, job.y + kRunningHalfHeight + km.ascent() + 2), k);
      }
    }
  }
}

void paint_ruler(Frame& f, const TimeRuler& ruler) {
  const int h = TimelineGeometry::kRulerHeight;
  f.p.fillRect(QRectF(0, 0, f.g.width, h + TimelineGeometry::kDensityHeight), style::kRulerBackground);
  const QFont font = font_of(11);
  const QFontMetricsF fm(font);
  f.p.setFont(font);
  // The caption, right-aligned, in a box the tick labels stay clear of.
  QString caption = QString::fromStdString(ruler.caption);
  if (f.view.folded > 0)
    caption += QStringLiteral("   ·   %1 folded")
                   .arg(QString::fromStdString(
                       counted(static_cast<std::uint64_t>(f.view.folded),
                               f.view.folding == RowFolding::quiet ? "quiet row" : "empty row")));
  if (f.view.folded_startup > 0) caption += QStringLiteral(" (%1 of start-up)").arg(f.view.folded_startup);
  const double caption_w = fm.horizontalAdvance(caption) + 16;
  const double caption_x = f.g.width - caption_w;
  for (const RulerTick& t : ruler.ticks) {
    const double x = std::round(t.x) + 0.5;
    f.p.setPen(QPen(style::kBorder, 1));
    f.p.drawLine(QPointF(x, h - 8), QPointF(x, h));
    const QString label = QString::fromStdString(t.label);
    if (x + 4 + fm.horizontalAdvance(label) > caption_x) continue;
    f.p.setPen(style::kRulerText);
    f.p.drawText(QPointF(x + 4, h - 11), label);
  }
  f.p.fillRect(QRectF(caption_x, 0, caption_w, h - 1), style::kRulerBackground);
  f.p.setPen(style::kCaptionText);
  f.p.drawText(QPointF(caption_x + 8, h - 11), caption);
  f.p.setPen(QPen(style::kBorder, 1));
  f.p.drawLine(QPointF(0, h + TimelineGeometry::kDensityHeight + 0.5),
               QPointF(f.g.width, h + TimelineGeometry::kDensityHeight + 0.5));
}

void paint_counters(Frame& f) {
  const int top = f.g.counters_top();
  const int lane = TimelineGeometry::kCounterLaneHeight;
  const QFont font = font_of(10);
  for (int c = 0; c < f.g.counter_lanes; ++c) {
    const TimelineCounter& counter = f.data.counters[static_cast<std::size_t>(c)];
    const double y0 = top + c * lane;
    f.p.fillRect(QRectF(0, y0, f.g.width, lane), c % 2 ? style::kRowStripe : style::kRulerBackground);
    f.p.setPen(QPen(style::kBorder, 1));
    f.p.drawLine(QPointF(0, y0 + 0.5), QPointF(f.g.width, y0 + 0.5));
    // In double: the values span up to 2^64 (INT64_MIN to INT64_MAX).
    const double span = std::max(1.0, double(counter.max) - double(std::min<std::int64_t>(0, counter.min)));
    const double base = double(std::min<std::int64_t>(0, counter.min));
    const auto y_of = [&](std::int64_t v) { return y0 + lane - 3 - (double(v) - base) / span * (lane - 8); };
    // The value in force at each column's right edge: one sample per
    // column, found by a galloping search from the previous column's (the
    // columns go forward in time, so the search stays in cache), and a
    // million samples cost what a thousand do. Drawn as a step area: runs
    // of equal value are one light rectangle with a dark top edge, a change
    // of value a dark vertical rectangle; no antialiasing, the steps are
    // axis-aligned.
    const auto& times = counter.times;
    const double bottom = y0 + lane - 2;
    double run_start = 0, run_y = -1;
    const auto flush = [&](double end_x) {
      if (run_y < 0 || end_x <= run_start) return;
      f.p.fillRect(QRectF(run_start, run_y, end_x - run_start, bottom - run_y), style::kCounterFill);
      f.p.fillRect(QRectF(run_start, run_y - 0.5, end_x - run_start, 1.5), style::kCounterLine);
    };
    std::size_t at = 0;  // the number of samples at or before the column's right edge
    for (int x = 0; x < f.g.width; ++x) {
      const double t = f.view.mapping.t_of(x + 1);
      std::size_t step = 1;
      while (at + step <= times.size() && double(times[at + step - 1]) <= t) step *= 2;
      const std::size_t lo = at + step / 2, hi = std::min(times.size(), at + step);
      at = static_cast<std::size_t>(
          std::upper_bound(times.begin() + static_cast<std::ptrdiff_t>(lo), times.begin() + static_cast<std::ptrdiff_t>(hi),
                           t, [](double v, TimeNs s) { return v < double(s); }) -
          times.begin());
      if (at == 0) continue;
      const double y = std::round(y_of(counter.values[at - 1]));
      if (y == run_y) continue;
      flush(x);
      if (run_y >= 0) f.p.fillRect(QRectF(x, std::min(run_y, y) - 0.5, 1.5, std::fabs(run_y - y) + 1.5), style::kCounterLine);
      run_start = x;
      run_y = y;
    }
    flush(f.g.width);
    f.p.setFont(font);
    f.p.setPen(style::kRulerText);
    const QString name = trace_text(counter.name) +
                         QStringLiteral("  %1..%2").arg(counter.min).arg(counter.max);
    f.p.drawText(QPointF(6, y0 + 12), name);
  }
}

void paint_legend(Frame& f) {
  const double y0 = f.g.legend_top();
  f.p.fillRect(QRectF(0, y0, f.g.width, TimelineGeometry::kLegendHeight), style::kRulerBackground);
  f.p.setPen(QPen(style::kBorder, 1));
  f.p.drawLine(QPointF(0, y0 + 0.5), QPointF(f.g.width, y0 + 0.5));
  const QFont font = font_of(11);
  const QFontMetricsF fm(font);
  f.p.setFont(font);
  struct Item {
    const char* name;
    QColor colour;
    int shape;  // 0 thick bar, 1 thin line, 2 arrow, 3 band, 4 red bar, 5 diamond
  };
  const Item items[] = {
      {"running", style::kRunning, 0},     {"waiting", style::kWaiting, 1}, {"spawn", style::kSpawn, 2},
      {"read", style::kRead, 2},           {"read of a failure", style::kFailure, 2},
      {"wait", style::kWait, 2},           {"resolve", style::kResolve, 2}, {"notify", style::kNotify, 2},
      {"failed", style::kFailure, 4},      {"lint error", style::kFindingError, 5},
      {"lint warning", style::kFindingWarning, 5}, {"lint note", style::kFindingNote, 5},
      {"idle", style::kIdle, 3},           {"GC", style::kGc, 3},
  };
  double x = 8;
  const double cy = y0 + TimelineGeometry::kLegendHeight / 2.0 + 0.5;
  f.p.setRenderHint(QPainter::Antialiasing, true);
  for (const Item& item : items) {
    switch (item.shape) {
      case 0: f.p.fillRect(QRectF(x, cy - 4, 18, 8), item.colour); break;
      case 1: f.p.fillRect(QRectF(x, cy - 1, 18, 2), item.colour); break;
      case 2: paint_arrow(f, x + 9, cy + 7, cy - 7, item.colour, 1.5); break;
      case 3:
        f.p.fillRect(QRectF(x + 2, cy - 7, 14, 14), item.colour);
        f.p.setPen(QPen(style::kBorder, 1));
        f.p.drawRect(QRectF(x + 2.5, cy - 6.5, 13, 13));
        break;
      case 4: f.p.fillRect(QRectF(x + 8, cy - 7, 3, 14), item.colour); break;
      default: {
        QPainterPath d;
        d.moveTo(x + 9, cy - 6);
        d.lineTo(x + 15, cy);
        d.lineTo(x + 9, cy + 6);
        d.lineTo(x + 3, cy);
        d.closeSubpath();
        f.p.fillPath(d, item.colour);
      }
    }
    f.p.setPen(style::kRulerText);
    const QString name = QString::fromLatin1(item.name);
    f.p.drawText(QPointF(x + 22, cy + fm.ascent() / 2 - 1), name);
    x += 22 + fm.horizontalAdvance(name) + 14;
    if (x > f.g.width) break;
  }
}

// Highlighted threads: a band behind each one's span on its row (at least
// 3 px wide, so a short match still shows), the current match outlined.
// The cost is the number of highlighted threads, each a check and at most
// one rectangle.
void paint_highlights(Frame& f) {
  const auto band = [&](std::uint32_t i) -> std::optional<QRectF> {
    const TimelineThread& t = f.data.threads[i];
    if (double(t.end) < f.t0 || double(t.start) > f.t1) return std::nullopt;
    const auto slot = f.view.slot_of(t.row);
    if (!slot || *slot < f.first_slot || *slot > f.last_slot) return std::nullopt;
    const double x0 = std::max(-2.0, f.x(double(t.start))), x1 = std::min(f.g.width + 2.0, f.x(double(t.end)));
    const double top = f.g.row_top(*slot, f.view.row_offset) + 3;
    return QRectF(x0 - 1, top, std::max(3.0, x1 - x0 + 2), TimelineGeometry::kRowHeight - 6);
  };
  for (std::uint32_t i : f.view.highlighted)
    if (auto r = band(i)) f.p.fillRect(*r, style::kHighlight);
  if (f.view.current_match)
    if (auto r = band(*f.view.current_match)) {
      f.p.setPen(QPen(style::kCurrentMatch, 2));
      f.p.setBrush(Qt::NoBrush);
      f.p.drawRect(r->adjusted(1, 1, -1, -1));
      f.p.setPen(Qt::NoPen);
    }
}

// The causal path: for each link, a bold line from the cause's line at the
// cause's record to the effect's line at the effect's record, a dot at the
// cause and an arrowhead at the effect. Links with an end on a folded row
// are drawn to the edge of the rows area.
void paint_path(Frame& f) {
  if (f.view.path.empty()) return;
  const double top = f.g.rows_top(), bottom = f.g.rows_bottom();
  const auto y_of = [&](std::int32_t thread, std::optional<double> fallback) -> std::optional<double> {
    if (thread < 0) return fallback;
    return f.row_y(f.data.threads[static_cast<std::size_t>(thread)].row);
  };
  f.p.setBrush(style::kCausalPath);
  for (const TimelinePathLink& l : f.view.path) {
    const double xc = f.x(double(l.cause_time)), xe = f.x(double(l.effect_time));
    if (std::max(xc, xe) < -10 || std::min(xc, xe) > f.g.width + 10) continue;
    const auto ye = y_of(l.effect, std::nullopt);
    if (!ye) continue;
    const auto yc = y_of(l.cause, *ye - 16);
    if (!yc) continue;
    const QPointF from(xc, std::clamp(*yc, top - 20, bottom + 20)), to(xe, std::clamp(*ye, top - 20, bottom + 20));
    f.p.setPen(QPen(style::kCausalPath, 3, Qt::SolidLine, Qt::RoundCap));
    f.p.drawLine(from, to);
    f.p.setPen(Qt::NoPen);
    f.p.drawEllipse(from, 4, 4);
    const QPointF d = to - from;
    const double len = std::hypot(d.x(), d.y());
    if (len > 1) {
      const QPointF u = d / len, n(-u.y(), u.x());
      const QPointF head[3] = {to, to - u * 9 + n * 5, to - u * 9 - n * 5};
      f.p.drawConvexPolygon(head, 3);
    } else {
      f.p.drawEllipse(to, 4, 4);
    }
  }
  f.p.setBrush(Qt::NoBrush);
}

}  // namespace

QFont timeline_label_font() { return font_of(12); }

QString elided_thread_label(const QFontMetricsF& metrics, const std::string& label, ThreadId id, double width) {
  const QString suffix = QStringLiteral("#%1").arg(id);
  if (label.empty()) return metrics.elidedText(suffix, Qt::ElideRight, width);
  const QString tail = QStringLiteral("  ") + suffix;
  const QString full = trace_text(label) + tail;
  if (metrics.horizontalAdvance(full) <= width) return full;
  // The label gives way first; the id goes only when nothing else fits.
  const double for_label = width - metrics.horizontalAdvance(tail);
  const QString cut = metrics.elidedText(trace_text(label), Qt::ElideRight, for_label);
  if (cut.isEmpty()) return metrics.elidedText(full, Qt::ElideRight, width);
  return cut + tail;
}

void paint_timeline(QPainter& painter, const TimelineData& data, const TimelineViewState& view,
                    const TimelineGeometry& geometry, const TimelinePaintOptions& options) {
  Frame f{painter, data, view, geometry, 0, 0, 0, 0, -1, {}, {}};
  f.t0 = view.mapping.t_of(0);
  f.t1 = view.mapping.t_of(geometry.width);
  f.labels_right = geometry.width - std::max(0.0, options.rows_right_inset);
  f.chain = view.selected_chain;
  std::sort(f.chain.begin(), f.chain.end());
  const int rows_top = geometry.rows_top(), rows_bottom = geometry.rows_bottom();
  f.first_slot = std::max(0, static_cast<std::int32_t>(std::floor(view.row_offset)));
  f.last_slot = std::min(view.slot_count() - 1,
                         static_cast<std::int32_t>(std::floor(view.row_offset + geometry.visible_rows())));

  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  painter.setRenderHint(QPainter::TextAntialiasing, true);
  painter.fillRect(QRectF(0, 0, geometry.width, geometry.height), style::kCanvas);
  painter.setClipRect(QRectF(0, rows_top, geometry.width, rows_bottom - rows_top));
  for (std::int32_t s = f.first_slot; s <= f.last_slot; ++s)
    if (s % 2 == 1)
      painter.fillRect(QRectF(0, geometry.row_top(s, view.row_offset), geometry.width, TimelineGeometry::kRowHeight),
                       style::kRowStripe);
  paint_bands(f, data.idle, style::kIdle);
  paint_bands(f, data.gc, style::kGc);
  // The ruler reads record times (recorder/format/FORMAT.md, "Times"): from the
  // trace's origin, as every other time Skein shows.
  const TimeRuler ruler = make_ruler(view.mapping, geometry.width, 0.0);
  paint_grid(f, ruler);
  if (view.selected)
    if (const auto slot = view.slot_of(data.threads[*view.selected].row))
      painter.fillRect(QRectF(0, geometry.row_top(*slot, view.row_offset), geometry.width, TimelineGeometry::kRowHeight),
                       style::kSelection);
  paint_highlights(f);
  std::vector<LabelJob> labels;
  for (std::int32_t s = f.first_slot; s <= f.last_slot; ++s) paint_row(f, s, labels);
  painter.setRenderHint(QPainter::Antialiasing, true);
  paint_edges(f, options.edge_density != nullptr &&
                        options.edge_density->size() == static_cast<std::size_t>(geometry.width)
                    ? options.edge_density
                    : nullptr);
  paint_selected_turn(f);
  paint_anomalies(f);
  paint_path(f);
  paint_labels(f, labels);
  paint_notes(f);
  painter.setClipping(false);
  painter.setRenderHint(QPainter::Antialiasing, false);
  paint_ruler(f, ruler);
  paint_density(f);
  paint_counters(f);
  if (options.legend) paint_legend(f);
  painter.restore();
}

}  // namespace skein
