// timeline_image.cpp — every output goes through paint_timeline() with a
// TimelineGeometry built for the requested size, so files match the
// widget. A PNG is painted into an ARGB32 premultiplied QImage and saved;
// an SVG is painted straight into a QSvgGenerator whose view box is the
// size, so text stays text. Views built here (for a request or a finding)
// refold the rows for the window and start scrolled to the top; a
// finding's view then scrolls so its named rows show.
#include "viewer/render/timeline_image.hpp"

#include <QPainter>
#include <QSvgGenerator>

#include "viewer/render/timeline_painter.hpp"

namespace skein {

QImage render_timeline_image(const TimelineData& data, const TimelineViewState& view, int width, int height) {
  QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  paint_timeline(painter, data, view, TimelineGeometry(width, height, data));
  painter.end();
  return image;
}

TimelineViewState view_for_request(const TimelineData& data, const RenderRequest& request) {
  TimelineViewState view;
  if (!request.from && !request.to) {
    view.fit(data, request.width);
  } else {
    const double from = request.from ? double(*request.from) : double(data.first_time);
    const double to = request.to ? double(*request.to) : double(data.end_time);
    view.mapping.fit(from, std::max(to, from + 1), request.width);
  }
  // Rows with nothing alive in the window are folded away.
  view.refold(data, request.width);
  view.row_offset = 0;
  return view;
}

TimelineViewState view_for_focus(const TimelineData& data, const FindingFocus& focus, int width, int height) {
  TimelineViewState view;
  view.mapping.fit(focus.window.from, focus.window.to, width);
  view.select_turn(data, focus);
  view.refold(data, width);
  view.row_offset = 0;
  std::vector<std::int32_t> rows;
  for (const FocusLabel& l : view.notes) rows.push_back(data.threads[l.thread].row);
  view.show_rows(rows, TimelineGeometry(width, height, data).visible_rows());
  return view;
}

Status render_timeline_file(const TimelineData& data, const RenderRequest& request) {
  return write_timeline_view(data, view_for_request(data, request), request.width, request.height, request.output);
}

Status write_timeline_view(const TimelineData& data, const TimelineViewState& view, int width, int height,
                           const std::string& output) {
  const QString path = QString::fromStdString(output);
  if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(QSize(width, height));
    svg.setViewBox(QRect(0, 0, width, height));
    svg.setTitle(QStringLiteral("Skein timeline"));
    QPainter painter;
    if (!painter.begin(&svg)) return file_error(output, "cannot write the SVG file");
    paint_timeline(painter, data, view, TimelineGeometry(width, height, data));
    painter.end();
    return {};
  }
  const QImage image = render_timeline_image(data, view, width, height);
  if (!image.save(path, "PNG")) return file_error(output, "cannot write the PNG file");
  return {};
}

}  // namespace skein
