// main.cpp — `skein`, the command line of the Skein causality tracer.
//
// `skein COMMAND [options] ARGS`: each command parses its own options with
// QCommandLineParser (command_line.hpp) and lives in its own file. `render`
// is there only in a build with Qt Gui (SKEIN_HAVE_RENDER); every other
// command needs Qt Core alone.
#include <QCoreApplication>
#include <new>
#include <string>

#include "recorder/output/out_of_memory_exit.hpp"
#include "recorder/output/pending_file.hpp"
#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"

namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const QStringList& args);
};

constexpr Command kCommands[] = {
    {"check", "validate a Skein trace: record counts, threads, time span, errors", skein::cli::run_check},
    {"export", "write a trace as Chrome JSON (Perfetto), folded stacks or Skein's own format",
     skein::cli::run_export},
    {"import", "import traces (Skein, MirageOS sexp, CTF) into trace databases", skein::cli::run_import},
    {"info", "describe a trace database (or a trace, through its cache)", skein::cli::run_info},
    {"lint", "diagnose missing notifications, lost wake-ups, unread failures, blocked loops",
     skein::cli::run_lint},
    {"summary", "threads grouped by label, kind or site, like strace -c", skein::cli::run_summary},
    {"why", "the chain of recorded causes behind a thread's act, or where a cause is missing", skein::cli::run_why},
#if SKEIN_HAVE_RENDER
    {"render", "draw a trace's timeline to a PNG or SVG file", skein::cli::run_render},
#endif
};

std::string general_help() {
  std::string text =
      "Usage: skein COMMAND [options] ARGS...\n"
      "Skein: a causality tracer for cooperative asynchronous code.\n\n"
      "Commands:\n";
  for (const Command& c : kCommands) {
    std::string name = c.name;
    name.resize(10, ' ');
    text += "  " + name + c.summary + "\n";
  }
  text +=
      "\nRun 'skein COMMAND --help' for a command's options.\n"
      "Exit status: 0 success, 1 problems found in the input, 2 usage error.\n";
  return text;
}

// What the out-of-memory message says the command was doing.
std::string g_doing = "running skein";

int run(int argc, char** argv) {
#if SKEIN_HAVE_RENDER
  if (argc > 1 && std::string(argv[1]) == "render") return skein::cli::render_main(argc, argv);
#endif
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName(QStringLiteral("skein"));
  QCoreApplication::setApplicationVersion(QStringLiteral(SKEIN_VERSION));
  const QStringList args = QCoreApplication::arguments();
  if (args.size() < 2) {
    skein::cli::print_err(general_help());
    return skein::cli::kExitUsage;
  }
  const QString first = args.at(1);
  if (first == QLatin1String("--help") || first == QLatin1String("-h") ||
      first == QLatin1String("help")) {
    skein::cli::print_out(general_help());
    return skein::cli::kExitOk;
  }
  if (first == QLatin1String("--version")) {
    skein::cli::print_out(std::string("skein ") + SKEIN_VERSION + "\n");
    return skein::cli::kExitOk;
  }
  // An import interrupted by SIGINT, SIGTERM or SIGHUP removes its
  // temporary database before the process dies of the signal.
  skein::remove_pending_files_on_signals();
  for (const Command& c : kCommands)
    if (first == QLatin1String(c.name)) return c.run(args.mid(1));
  skein::cli::print_err("skein: unknown command '" + first.toStdString() + "'\n\n" + general_help());
  return skein::cli::kExitUsage;
}

}  // namespace

// Running out of memory ends a command with exit 2 and a message, never
// with std::terminate's abort: on this thread by the catch below (unwinding
// closes databases and removes temporary files), on any other by the
// terminate handler (out_of_memory_exit.hpp). The import reports it itself
// ("out of memory while importing, after N records").
int main(int argc, char** argv) {
  if (argc > 1) g_doing = std::string("running 'skein ") + argv[1] + "'";
  skein::exit_cleanly_when_out_of_memory("skein", g_doing.c_str());
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    skein::exit_out_of_memory("skein", g_doing.c_str());
  }
}
