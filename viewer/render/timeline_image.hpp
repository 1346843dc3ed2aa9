// timeline_image.hpp — the timeline drawn without a window: into a QImage
// (PNG, the benchmark, the pixel tests) or an SVG file, with the same
// painter as the widget (timeline_painter.hpp). Needs a QGuiApplication
// (fonts); the offscreen platform is enough.
#pragma once

#include <QImage>
#include <optional>
#include <string>

#include "recorder/format/diagnostic.hpp"
#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_view.hpp"

namespace skein {

[[nodiscard]] QImage render_timeline_image(const TimelineData& data, const TimelineViewState& view, int width,
                                           int height);

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
// Writes `view` of `data` at width x height to `output`: SVG when its name
// ends in .svg (text stays text, labels included), else PNG. The error
// names the file. File ▸ Export View uses it with the widget's own view.
[[nodiscard]] Status write_timeline_view(const TimelineData& data, const TimelineViewState& view, int width, int height,
                                         const std::string& output);
// Renders and writes the file; the error names the file.
[[nodiscard]] Status render_timeline_file(const TimelineData& data, const RenderRequest& request);

}  // namespace skein
