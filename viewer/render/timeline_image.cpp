// timeline_image.cpp — every output goes through paint_timeline() with a
// TimelineGeometry built for the requested size, so files match the
// widget. A PNG is painted into an ARGB32 premultiplied QImage and encoded;
// an SVG is painted straight into a QSvgGenerator whose view box is the
// size, so text stays text. Both are encoded into memory and only then
// handed to OutputFile, so that Qt never writes a file itself (it reports
// a failed write late or not at all). Views built here (for a request or a finding)
// refold the rows for the window and start scrolled to the top; a
// finding's view then scrolls so its named rows show.
#include "viewer/render/timeline_image.hpp"

#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>

#include "recorder/output/output_file.hpp"
#include "viewer/render/timeline_painter.hpp"

namespace skein {

QImage render_timeline_image(const TimelineData& data, const TimelineViewState& view, int width, int height,
                             const TimelinePaintOptions& options) {
  QImage image(width, height, QImage::Format_ARGB32_Premultiplied);
  QPainter painter(&image);
  paint_timeline(painter, data, view, TimelineGeometry(width, height, data), options);
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

Result<QByteArray> encode_timeline_view(const TimelineData& data, const TimelineViewState& view, int width,
                                        int height, TimelineImageFormat format) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  if (format == TimelineImageFormat::svg) {
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(QSize(width, height));
    svg.setViewBox(QRect(0, 0, width, height));
    svg.setTitle(QStringLiteral("Skein timeline"));
    QPainter painter;
    if (!painter.begin(&svg)) return file_error("<svg>", "cannot draw the SVG image");
    paint_timeline(painter, data, view, TimelineGeometry(width, height, data));
    painter.end();
    return bytes;
  }
  const QImage image = render_timeline_image(data, view, width, height);
  if (!image.save(&buffer, "PNG")) return file_error("<png>", "cannot encode the PNG image");
  return bytes;
}

TimelineImageFormat timeline_image_format_of(const std::string& output) {
  return QString::fromStdString(output).endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)
             ? TimelineImageFormat::svg
             : TimelineImageFormat::png;
}

Status write_timeline_view(const TimelineData& data, const TimelineViewState& view, int width, int height,
                           const std::string& output) {
  auto file = OutputFile::open_stream(output);
  if (!file) return file.error();
  auto bytes = encode_timeline_view(data, view, width, height, timeline_image_format_of(output));
  if (!bytes) {
    Diagnostic d = bytes.error();
    d.file = output;
    return d;
  }
  auto sink = file.value().take_sink(Compression::none);
  if (!sink) return sink.error();
  const QByteArray& b = bytes.value();
  if (Status s = sink.value()->write(std::string_view(b.constData(), static_cast<std::size_t>(b.size()))); !s.ok())
    return s;
  if (Status s = sink.value()->close(); !s.ok()) return s;
  return file.value().commit();
}

}  // namespace skein
