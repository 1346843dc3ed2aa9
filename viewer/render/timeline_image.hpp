// timeline_image.hpp — the timeline drawn without a window: into a QImage
// (PNG, the benchmark, the pixel tests) or the bytes of a PNG or SVG file,
// with the same painter as the widget (timeline_painter.hpp), and written
// as every output is (recorder/output/output_file.hpp). Needs a QGuiApplication
// (fonts); the offscreen platform is enough.
#pragma once

#include <QByteArray>
#include <QImage>
#include <cstdint>
#include <optional>
#include <string>

#include "recorder/format/diagnostic.hpp"
#include "viewer/render/timeline_painter.hpp"
#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein {

[[nodiscard]] QImage render_timeline_image(const TimelineData& data, const TimelineViewState& view, int width,
                                           int height, const TimelinePaintOptions& options = {});

struct RenderRequest {
  std::string output;  // .png or .svg
  int width = 1600;
  int height = 900;
  std::optional<TimeNs> from;  // record times (recorder/format/FORMAT.md, "Times")
  std::optional<TimeNs> to;
};

// The view a request asks for: the window [from, to] (default: the whole
// trace) across the width, rows with nothing alive in it folded.
[[nodiscard]] TimelineViewState view_for_request(const TimelineData& data, const RenderRequest& request);
// The view a finding opens at, as skein-view shows it when the finding is
// clicked: the focus's window, its turn selected, its rows named, folded
// and scrolled so the named rows are in view.
[[nodiscard]] TimelineViewState view_for_focus(const TimelineData& data, const FindingFocus& focus, int width,
                                               int height);
enum class TimelineImageFormat : std::uint8_t { png, svg };
// SVG when the name ends in .svg (any case), else PNG.
[[nodiscard]] TimelineImageFormat timeline_image_format_of(const std::string& output);
// The bytes of the image file: PNG, or SVG (text stays text, labels
// included).
[[nodiscard]] Result<QByteArray> encode_timeline_view(const TimelineData& data, const TimelineViewState& view,
                                                      int width, int height, TimelineImageFormat format);
// Writes `view` of `data` at width x height to `output`, in the format its
// name says, as recorder/output/output_file.hpp decides for every output:
// a regular file or a new path is replaced atomically (a failed write, a
// full disk, leaves the old file as it was and is an error), a device, a
// FIFO or a symbolic link is written through. The error names the file.
// File ▸ Export View, skein-view --export-view and `skein render` use it.
[[nodiscard]] Status write_timeline_view(const TimelineData& data, const TimelineViewState& view, int width, int height,
                                         const std::string& output);
// Renders and writes the file; the error names the file.
[[nodiscard]] Status render_timeline_file(const TimelineData& data, const RenderRequest& request);

}  // namespace skein
