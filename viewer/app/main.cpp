// main.cpp — skein-view, the Skein timeline viewer:
// `skein-view [TRACE|DB] [--from T] [--to T] [--select ID [--why]]
// [--finding N] [--export-view FILE.png|FILE.svg]`. Everything happens in
// MainWindow; this file only reads the command line (its options and their
// checks: view_command_line.hpp), makes the application and opens the file
// named there.
//
// --export-view is the viewer run as a script: it opens the trace as a
// user would, waits for the lints (and, with --finding, for the finding to
// open and Why? to answer), writes the timeline as it then looks (File ▸
// Export View) and exits: 0 written, 1 the trace could not be opened,
// 2 a usage error, no such finding, a FILE that is the trace or its
// database, or the file could not be written (the old file then stays as
// it was). It needs no display: without one it draws offscreen.
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
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <variant>

#include "recorder/export/output_escape.hpp"
#include "recorder/output/out_of_memory_exit.hpp"
#include "recorder/output/output_not_input.hpp"
#include "viewer/app/inspection.hpp"
#include "viewer/app/main_window.hpp"
#include "viewer/app/view_command_line.hpp"
#include "viewer/app/why_dock.hpp"

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

// True when the arguments ask for --export-view (before any `--`).
bool asks_for_export(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--export-view") == 0 || std::strncmp(argv[i], "--export-view=", 14) == 0) return true;
  }
  return false;
}

// QCommandLineParser::process, with skein-view's exit statuses: --help and
// --version print and exit 0; an unknown option or a missing value is a
// usage error, exit 2 (process() would exit 1, the status of a trace that
// could not be opened).
void process_or_exit(QCommandLineParser& parser, const QCoreApplication& app) {
  if (!parser.parse(app.arguments())) {
    std::fprintf(stderr, "skein-view: %s\n", qPrintable(parser.errorText()));
    std::exit(2);
  }
  const QStringList given = parser.optionNames();
  if (given.contains(QStringLiteral("v")) || given.contains(QStringLiteral("version"))) parser.showVersion();
  for (const char* help : {"h", "?", "help", "help-all"})
    if (given.contains(QLatin1String(help))) parser.showHelp(0);
}

int run_viewer(int argc, char** argv) {
  QCoreApplication::setOrganizationName(QStringLiteral("Skein"));
  QCoreApplication::setApplicationName(QStringLiteral("skein-view"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SKEIN_VERSION));
  QCommandLineParser parser;
  skein::add_view_options(parser);
  // An export needs no window system: draw offscreen when there is none.
  if (!asks_for_text(argc, argv) && !has_display(argc, argv) && asks_for_export(argc, argv))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  if (asks_for_text(argc, argv) || !has_display(argc, argv)) {
    QCoreApplication text_only(argc, argv);
    process_or_exit(parser, text_only);  // prints the help, the version or a usage error, and exits
    std::fprintf(stderr,
                 "skein-view: no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set).\n"
                 "  Run it in a desktop session, or set QT_QPA_PLATFORM=offscreen to run without one;\n"
                 "  `skein render TRACE -o timeline.png` draws the timeline to a file.\n");
    return 1;
  }
  QApplication app(argc, argv);
  process_or_exit(parser, app);
  const auto read = skein::read_view_request(parser);
  if (const auto* usage = std::get_if<std::string>(&read)) {
    std::fprintf(stderr, "skein-view: %s\n", usage->c_str());
    return 2;
  }
  const skein::ViewRequest& request = std::get<skein::ViewRequest>(read);
  const QString& export_path = request.export_view;
  if (!export_path.isEmpty()) {
    // Checked again, against the database too, when the view is written.
    if (const skein::Status s = skein::check_output_is_not_an_input(
            export_path.toStdString(), skein::OutputContent::stream, {request.trace.toStdString()});
        !s.ok()) {
      std::fprintf(stderr, "skein-view: %s\n", skein::terminal_text(s.error().to_string()).c_str());
      return 2;
    }
  }
  skein::MainWindow main_window;
  main_window.resize(1600, 900);
  main_window.show();
  // The export, once everything the user would wait for is there: the
  // lints' results (and the finding opened), and Why?'s answer.
  struct Export {
    bool settled = false;
    bool done = false;
  } state;
  const auto finish = [&state](int code) {
    state.done = true;
    QMetaObject::invokeMethod(qApp, [code] { QCoreApplication::exit(code); }, Qt::QueuedConnection);
  };
  const auto try_export = [&] {
    if (state.done || !state.settled || main_window.inspection()->why()->loading()) return;
    const skein::Status s = main_window.write_view(export_path);
    if (!s.ok()) {
      std::fprintf(stderr, "skein-view: %s\n", skein::terminal_text(s.error().to_string()).c_str());
      finish(2);
      return;
    }
    std::printf("%s\n", qPrintable(export_path));
    std::fflush(stdout);
    finish(0);
  };
  if (!export_path.isEmpty()) {
    main_window.set_batch(true);
    QObject::connect(&main_window, &skein::MainWindow::load_finished, [&](bool ok) {
      if (!ok) finish(1);
    });
    QObject::connect(&main_window, &skein::MainWindow::finding_missing, [&](qint64) { finish(2); });
    QObject::connect(main_window.inspection(), &skein::Inspection::findings_settled, [&] {
      state.settled = true;
      QMetaObject::invokeMethod(qApp, try_export, Qt::QueuedConnection);
    });
    QObject::connect(main_window.inspection()->why(), &skein::WhyDock::path_changed,
                     [&] { QMetaObject::invokeMethod(qApp, try_export, Qt::QueuedConnection); });
  }
  if (!request.trace.isEmpty()) {
    main_window.set_initial_window(request.from, request.to);
    main_window.set_initial_selection(request.select, request.why);
    main_window.set_initial_finding(request.finding);
    main_window.open(request.trace);
  }
  return QApplication::exec();
}

}  // namespace

// Out of memory in --export-view (or anywhere): exit 2 and a message, the
// temporary files removed, never std::terminate's abort
// (out_of_memory_exit.hpp); the catch covers this thread, the handler the
// viewer's worker threads.
int main(int argc, char** argv) {
  skein::exit_cleanly_when_out_of_memory("skein-view", "running skein-view");
  try {
    return run_viewer(argc, argv);
  } catch (const std::bad_alloc&) {
    skein::exit_out_of_memory("skein-view", "running skein-view");
  }
}
