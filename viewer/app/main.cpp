// main.cpp — skein-view, the Skein timeline viewer:
// `skein-view [TRACE|DB] [--from T] [--to T] [--select ID [--why]]`.
// Everything happens in MainWindow; this file only makes the application
// and opens the file named on the command line.
#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>

#include "viewer/app/main_window.hpp"
#include "viewer/core/units.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QCoreApplication::setOrganizationName(QStringLiteral("Skein"));
  QCoreApplication::setApplicationName(QStringLiteral("skein-view"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SKEIN_VERSION));
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Skein's causality timeline viewer."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("TRACE|DB"), QStringLiteral("A trace (any format) or a trace database."));
  const QCommandLineOption from(QStringLiteral("from"),
                                QStringLiteral("Show from T after the first record (125ms, 1.5s, 300us, 42ns)."),
                                QStringLiteral("T"));
  const QCommandLineOption to(QStringLiteral("to"), QStringLiteral("Show until T after the first record."),
                              QStringLiteral("T"));
  const QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Select the thread with this id."),
                                  QStringLiteral("ID"));
  const QCommandLineOption why(QStringLiteral("why"),
                               QStringLiteral("With --select: show why it acted (the Why? panel and the path)."));
  parser.addOption(from);
  parser.addOption(to);
  parser.addOption(select);
  parser.addOption(why);
  parser.process(app);
  std::optional<std::int64_t> window[2];
  for (int i = 0; i < 2; ++i) {
    const QCommandLineOption& option = i == 0 ? from : to;
    if (!parser.isSet(option)) continue;
    window[i] = skein::parse_duration_ns(parser.value(option).toStdString());
    if (!window[i]) {
      std::fprintf(stderr, "skein-view: --%s takes a time with a unit (125ms, 1.5s, 300us, 42ns)\n",
                   qPrintable(option.names().first()));
      return 2;
    }
  }
  std::optional<skein::ThreadId> selected;
  if (parser.isSet(select)) {
    bool ok = false;
    selected = parser.value(select).toLongLong(&ok);
    if (!ok) {
      std::fprintf(stderr, "skein-view: --select takes a thread id (an integer)\n");
      return 2;
    }
  } else if (parser.isSet(why)) {
    std::fprintf(stderr, "skein-view: --why needs --select ID\n");
    return 2;
  }
  skein::MainWindow main_window;
  main_window.resize(1600, 900);
  main_window.show();
  if (!parser.positionalArguments().isEmpty()) {
    main_window.set_initial_window(window[0], window[1]);
    main_window.set_initial_selection(selected, parser.isSet(why));
    main_window.open(parser.positionalArguments().first());
  }
  return QApplication::exec();
}
