// render_command.cpp — `skein render TRACE|DB -o out.png|out.svg [--from T
// --to T | --finding N] [--width W --height H]`: the timeline drawn to a
// file by the same painting code as skein-view
// (viewer/render/timeline_image.hpp), for reports, CI artefacts and
// machines without a display. Given --from and --to, a window narrower
// than half the trace is read alone (viewer/timeline/timeline_window.hpp),
// the same picture at a cost that follows the window; otherwise, or for a
// database without what that needs, the whole trace is read.
//
// Times are record times, from the trace's origin, as the ruler and every
// command read them (recorder/format/FORMAT.md, "Times"), and carry a unit: 125ms,
// 1.5s, 300us, 42ns (viewer/analysis/units.hpp). --finding N draws the window
// skein-view opens finding #N at (viewer/timeline/finding_focus.hpp): the turn
// that acted, its edges, the marker, and the suspect named on its row; a
// database never linted is linted first and its findings stored, as `skein
// lint` would, so the numbers are the ones `skein lint` prints. The image is encoded in memory
// and written as recorder/output/output_file.hpp decides, like every `-o`
// (viewer/render/timeline_image.hpp, as skein-view's exports are): a
// regular file or a new path is replaced atomically, a device, a FIFO or a
// symbolic link is written through, never replaced; never the input or its
// cache database (recorder/output/output_not_input.hpp). Painting text needs a
// QGuiApplication, so main.cpp hands `render` to render_main(), which makes
// one, on the offscreen platform when no display is set.
#include <QCommandLineParser>
#include <QGuiApplication>
#include <algorithm>
#include <cstdlib>

#include "recorder/export/output_escape.hpp"
#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "viewer/cli/stored_lint_results.hpp"
#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_window.hpp"
#include "viewer/analysis/units.hpp"
#include "viewer/render/timeline_image.hpp"
#include "viewer/render/timeline_painter.hpp"

namespace skein::cli {

int run_render(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Draw a trace's timeline to a PNG or SVG file, as skein-view shows it.\n"
      "Times (--from, --to) are record times, from the trace's origin as the ruler reads them, with a unit:\n"
      "125ms, 1.5s, 300us, 42ns. --finding N draws the window skein-view opens lint finding #N at.\n"
      "A TRACE file (any format) is imported first into its cache database.\n"
      "Exit status: 0 success, 1 errors in the TRACE, 2 usage error or unreadable file."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption output({QStringLiteral("o"), QStringLiteral("output")},
                                  QStringLiteral("The image to write: FILE.png or FILE.svg."), QStringLiteral("FILE"));
  const QCommandLineOption from(QStringLiteral("from"), QStringLiteral("Start of the window (default: the first record)."),
                                QStringLiteral("T"));
  const QCommandLineOption to(QStringLiteral("to"), QStringLiteral("End of the window (default: the trace's end)."),
                              QStringLiteral("T"));
  const QCommandLineOption width(QStringLiteral("width"), QStringLiteral("Width in pixels (default 1600)."),
                                 QStringLiteral("W"), QStringLiteral("1600"));
  const QCommandLineOption height(QStringLiteral("height"), QStringLiteral("Height in pixels (default 900)."),
                                  QStringLiteral("H"), QStringLiteral("900"));
  const QCommandLineOption finding(QStringLiteral("finding"),
                                   QStringLiteral("Draw lint finding #N as skein-view opens it (skein lint numbers them)."),
                                   QStringLiteral("N"));
  for (const auto* o : {&output, &from, &to, &finding, &width, &height}) parser.addOption(*o);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("render"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("render"), positional.isEmpty()
                                                     ? QStringLiteral("missing DB|TRACE")
                                                     : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  RenderRequest request;
  request.output = parser.value(output).toStdString();
  if (request.output.empty()) return usage_error(QStringLiteral("render"), QStringLiteral("missing -o FILE.png|FILE.svg"));
  const QString out = parser.value(output);
  if (!out.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !out.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
    return usage_error(QStringLiteral("render"), QStringLiteral("-o takes a .png or .svg file, not '%1'").arg(out));
  for (const auto& [option, slot] : {std::pair{&from, &request.from}, std::pair{&to, &request.to}}) {
    if (!parser.isSet(*option)) continue;
    const auto ns = parse_duration_ns(parser.value(*option).toStdString());
    if (!ns)
      return usage_error(QStringLiteral("render"),
                         QStringLiteral("--%1 takes a time with a unit (125ms, 1.5s, 300us, 42ns), not '%2'")
                             .arg(option->names().first(), parser.value(*option)));
    *slot = *ns;
  }
  if (request.from && request.to && *request.to <= *request.from)
    return usage_error(QStringLiteral("render"), QStringLiteral("--to must be after --from"));
  std::optional<std::int64_t> finding_number;
  if (parser.isSet(finding)) {
    if (request.from || request.to)
      return usage_error(QStringLiteral("render"), QStringLiteral("--finding sets the window: not with --from or --to"));
    bool ok = false;
    const qlonglong n = parser.value(finding).toLongLong(&ok);
    if (!ok || n < 1)
      return usage_error(QStringLiteral("render"),
                         QStringLiteral("--finding takes a finding's number (1, 2, ...), not '%1'").arg(parser.value(finding)));
    finding_number = n;
  }
  bool ok_w = false, ok_h = false;
  request.width = parser.value(width).toInt(&ok_w);
  request.height = parser.value(height).toInt(&ok_h);
  if (!ok_w || !ok_h || request.width < 200 || request.height < 150 || request.width > 16384 || request.height > 16384)
    return usage_error(QStringLiteral("render"), QStringLiteral("--width and --height take pixels, 200x150 to 16384x16384"));

  const std::string path = positional.first().toStdString();
  if (output_names_an_input(request.output, OutputContent::stream, {path})) return kExitUsage;
  auto opened = open_store_or_report(path, exit_code);
  if (!opened) return exit_code;
  // A TRACE is read through its cache database: that is an input too.
  if (output_names_an_input(request.output, OutputContent::stream, {opened->database_path})) return kExitUsage;
  if (finding_number && !ensure_lint_results(opened, path, LintNeeds::findings, "render", exit_code)) return exit_code;
  // A window narrower than half the trace is read alone
  // (timeline_window.hpp), the same picture as from the whole trace; else,
  // or when the database cannot give it, the whole trace is read. An image
  // shows the rows' texts, never a thread's whole label list.
  Result<TimelineData> data = TimelineData{};
  bool windowed = false;
  if (request.from && request.to && !finding_number) {
    auto window = load_timeline_window(*opened->store, *request.from, *request.to);
    if (!window) {
      print_err(terminal_text(window.error().to_string()) + "\n");
      return kExitUsage;
    }
    if (window.value()) {
      data = std::move(*window.value());
      windowed = true;
    }
  }
  if (!windowed) {
    TimelineLoadOptions load_options;
    load_options.label_lists = false;
    data = load_timeline(*opened->store, load_options);
  }
  if (!data) {
    print_err(terminal_text(data.error().to_string()) + "\n");
    return kExitUsage;
  }
  TimelineViewState view;
  if (finding_number) {
    const auto& anomalies = data.value().anomalies;
    const auto it = std::find_if(anomalies.begin(), anomalies.end(),
                                 [&](const TimelineAnomaly& a) { return a.number == *finding_number; });
    const std::optional<FindingFocus> focus =
        it != anomalies.end() ? focus_on_finding(data.value(), *it) : std::nullopt;
    if (!focus)
      return usage_error(QStringLiteral("render"),
                         QStringLiteral("no finding #%1 on a thread (skein lint numbers them)").arg(*finding_number));
    view = view_for_focus(data.value(), *focus, request.width, request.height);
  } else {
    view = view_for_request(data.value(), request);
  }
  if (Status s = write_timeline_view(data.value(), view, request.width, request.height, request.output); !s.ok()) {
    print_err(terminal_text(s.error().to_string()) + "\n");
    return kExitUsage;
  }
  print_out(request.output + "\n");
  return kExitOk;
}

int render_main(int argc, char** argv) {
  // No display: draw offscreen (fonts and all) rather than fail.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
      qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);
  QCoreApplication::setApplicationName(QStringLiteral("skein"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SKEIN_VERSION));
  return run_render(QCoreApplication::arguments().mid(1));
}

}  // namespace skein::cli
