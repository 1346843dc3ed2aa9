// view_command_line.cpp — options are looked up by their names, so the
// parser main.cpp keeps (for --help, --version and Qt's parse errors) is
// the only state; the checks run in the order the options are documented
// and stop at the first bad value.
#include "viewer/app/view_command_line.hpp"

#include "viewer/analysis/units.hpp"

namespace skein {

void add_view_options(QCommandLineParser& parser) {
  parser.setApplicationDescription(QStringLiteral("Skein's causality timeline viewer."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("TRACE|DB"),
      QStringLiteral("A trace (any format) or a trace database (after -- when its "
                     "name starts with '-')."));
  parser.addOption(QCommandLineOption(
      QStringLiteral("from"),
      QStringLiteral("Show from record time T, as the ruler reads it (125ms, 1.5s, 300us, 42ns)."),
      QStringLiteral("T")));
  parser.addOption(QCommandLineOption(
      QStringLiteral("to"), QStringLiteral("Show until record time T."), QStringLiteral("T")));
  parser.addOption(QCommandLineOption(QStringLiteral("select"),
                                      QStringLiteral("Select the thread with this id."),
                                      QStringLiteral("ID")));
  parser.addOption(QCommandLineOption(
      QStringLiteral("why"),
      QStringLiteral("With --select: show why it acted (the Why? panel and the path).")));
  parser.addOption(QCommandLineOption(
      QStringLiteral("finding"),
      QStringLiteral("Open lint finding #N (skein lint numbers them) once the lints are done."),
      QStringLiteral("N")));
  parser.addOption(
      QCommandLineOption(QStringLiteral("export-view"),
                         QStringLiteral("Write the timeline, once the trace is open and linted, to "
                                        "FILE.png or FILE.svg, and exit."),
                         QStringLiteral("FILE")));
}

std::variant<ViewRequest, std::string> read_view_request(const QCommandLineParser& parser) {
  ViewRequest request;
  if (!parser.positionalArguments().isEmpty()) request.trace = parser.positionalArguments().first();
  for (const char* name : {"from", "to"}) {
    const QString option = QLatin1String(name);
    if (!parser.isSet(option)) continue;
    const auto ns = parse_duration_ns(parser.value(option).toStdString());
    if (!ns)
      return "--" + std::string(name) + " takes a time with a unit (125ms, 1.5s, 300us, 42ns)";
    (option == QLatin1String("from") ? request.from : request.to) = *ns;
  }
  if (parser.isSet(QStringLiteral("select"))) {
    bool ok = false;
    request.select = parser.value(QStringLiteral("select")).toLongLong(&ok);
    if (!ok) return std::string("--select takes a thread id (an integer)");
    request.why = parser.isSet(QStringLiteral("why"));
  } else if (parser.isSet(QStringLiteral("why"))) {
    return std::string("--why needs --select ID");
  }
  if (parser.isSet(QStringLiteral("finding"))) {
    bool ok = false;
    request.finding = parser.value(QStringLiteral("finding")).toLongLong(&ok);
    if (!ok || *request.finding < 1)
      return std::string("--finding takes a finding's number (1, 2, ...)");
  }
  if (parser.isSet(QStringLiteral("export-view"))) {
    request.export_view = parser.value(QStringLiteral("export-view"));
    if (!request.export_view.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) &&
        !request.export_view.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
      return std::string("--export-view takes a .png or .svg file");
    if (request.trace.isEmpty()) return std::string("--export-view needs a TRACE or DB to open");
  }
  return request;
}

}  // namespace skein
