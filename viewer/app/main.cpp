// main.cpp — skein-view, the Skein timeline viewer:
// `skein-view [TRACE|DB] [--from T] [--to T] [--select ID [--why]]`.
// Everything happens in MainWindow; this file only reads the command line,
// makes the application and opens the file named there.
//
// --help, --version and the check for a display come before any window
// system: they run under a QCoreApplication, which needs no platform
// plugin, so `skein-view --help` prints its usage over ssh or in CI, and
// with nowhere to open a window skein-view says so instead of Qt's plugin
// abort. Only then is the QApplication made (it takes Qt's own options,
// -platform and the like, out of the arguments before they are parsed).
#include <QApplication>
#include <QCommandLineParser>
#include <QtGlobal>

#include <cstdio>
#include <cstring>

#include "viewer/app/main_window.hpp"
#include "viewer/core/units.hpp"

namespace {

// True when the arguments ask for help or the version (before any `--`).
bool asks_for_text(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    if (std::strcmp(a, "--") == 0) return false;
    for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
      if (std::strcmp(a, flag) == 0) return true;
  }
  return false;
}

// True when Qt can be expected to find a window system: always outside X11
// and Wayland systems; there, a platform named by QT_QPA_PLATFORM or
// -platform, or a DISPLAY or WAYLAND_DISPLAY to connect to.
bool has_display(int argc, char** argv) {
#if defined(Q_OS_UNIX) && !defined(Q_OS_DARWIN) && !defined(Q_OS_ANDROID)
  if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
      !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
    return true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "-platform") == 0 || std::strcmp(argv[i], "--platform") == 0) return true;
  return false;
#else
  (void)argc;
  (void)argv;
  return true;
#endif
}

}  // namespace

int main(int argc, char** argv) {
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
  if (asks_for_text(argc, argv) || !has_display(argc, argv)) {
    QCoreApplication text_only(argc, argv);
    parser.process(text_only);  // prints the help, the version or a usage error, and exits
    std::fprintf(stderr,
                 "skein-view: no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
                 "  Run it in a desktop session, or set QT_QPA_PLATFORM=offscreen to run without one;\n"
                 "  `skein render TRACE -o timeline.png` draws the timeline to a file.\n");
    return 1;
  }
  QApplication app(argc, argv);
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
