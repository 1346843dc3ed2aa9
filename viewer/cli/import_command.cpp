// import_command.cpp — `skein import TRACE... [-o DB] [--strict]`: imports
// traces (Skein, 2014 MirageOS sexp, mirage-profile CTF; gzip or not; the
// format read from the content) into trace databases (recorder/store/SCHEMA.md).
//
// With -o, the one TRACE goes to DB. Without, each TRACE goes to
// TRACE.skein.db beside it, the file `skein info` and `skein summary` look
// for first (recorder/store/opened_store.hpp), so an explicit import fills their
// cache. The import is atomic (a temporary file renamed into place, as
// recorder/output/output_file.hpp decides for every output); SIGINT, SIGTERM and
// SIGHUP remove the temporary file (main.cpp installs the handlers). A DB
// that is a device, a FIFO or a symbolic link is refused (exit 2), never
// replaced, and so is a DB that is the TRACE itself, by any name (a hard
// link, a symbolic link, ./TRACE: recorder/output/output_not_input.hpp).
//
// Standard output gets one line per trace imported; standard error the
// progress bar (on a terminal only), the warnings and the errors (through
// terminal_text(), recorder/export/output_escape.hpp: they may quote the
// trace). Exit 0 when every trace is imported (warnings allowed), 1 when a
// trace has an error (or, with --strict, a warning), 2 on usage errors,
// unreadable traces, a database that cannot be written or memory running
// out ("out of memory while importing ...", the temporary file removed).
#include <QCommandLineParser>
#include <algorithm>
#include <cstdio>

#include "recorder/store/trace_import.hpp"
#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "viewer/cli/progress_bar.hpp"
#include "recorder/export/output_escape.hpp"
#include "viewer/analysis/units.hpp"

namespace skein::cli {
namespace {

constexpr std::size_t kWarningsShown = 20;

int exit_code_of(ImportResult::Failure f) {
  switch (f) {
    case ImportResult::Failure::none: return kExitOk;
    case ImportResult::Failure::invalid: return kExitProblems;
    case ImportResult::Failure::unreadable:
    case ImportResult::Failure::database:
    case ImportResult::Failure::cancelled:
    case ImportResult::Failure::out_of_memory: return kExitUsage;
  }
  return kExitUsage;
}

std::string rate(std::uint64_t records, double seconds) {
  char buf[48];
  if (seconds <= 0) return "";
  std::snprintf(buf, sizeof buf, ", %.2f M records/s", static_cast<double>(records) / seconds / 1e6);
  return buf;
}

}  // namespace

int run_import(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Import traces into trace databases (SQLite; the tables are described in recorder/store/SCHEMA.md).\n"
      "Formats, read from the content: Skein's own (FORMAT.md), the 2014 MirageOS S-expression\n"
      "traces and mirage-profile's CTF traces; gzip-compressed or not.\n"
      "Without -o, each TRACE is imported into TRACE.skein.db beside it (the cache that\n"
      "'skein info' and 'skein summary' use). The import is atomic: an interrupted or failed\n"
      "import leaves the old database, or none.\n"
      "Inconsistent records (threads never spawned, time going backwards, a second resolve, a\n"
      "cycle of merges) are kept and counted as warnings; --strict makes any warning an error.\n"
      "Exit status: 0 imported, 1 errors in a trace, 2 usage error, unreadable trace or\n"
      "unwritable database."));
  parser.addPositionalArgument(QStringLiteral("TRACE"),
                               QStringLiteral("Trace files, or - for standard input."),
                               QStringLiteral("TRACE..."));
  const QCommandLineOption output(QStringList{QStringLiteral("o"), QStringLiteral("output")},
                                  QStringLiteral("Write the database to DB (one TRACE only): a regular file, replaced\n"
                                                 "atomically, or a new path."),
                                  QStringLiteral("DB"));
  const QCommandLineOption strict(QStringLiteral("strict"),
                                  QStringLiteral("Fail on any warning, not only on errors."));
  parser.addOption(output);
  parser.addOption(strict);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("import"), exit_code)) return exit_code;
  const QStringList traces = parser.positionalArguments();
  if (traces.isEmpty()) return usage_error(QStringLiteral("import"), QStringLiteral("missing TRACE"));
  if (parser.isSet(output) && traces.size() != 1)
    return usage_error(QStringLiteral("import"),
                       QStringLiteral("-o takes one TRACE, got %1").arg(traces.size()));
  if (!parser.isSet(output) && traces.contains(QStringLiteral("-")))
    return usage_error(QStringLiteral("import"), QStringLiteral("standard input needs -o DB"));

  int worst = kExitOk;
  for (const QString& trace : traces) {
    const std::string path = trace.toStdString();
    const std::string db = parser.isSet(output) ? parser.value(output).toStdString() : path + ".skein.db";
    if (output_names_an_input(db, OutputContent::database, {path})) {
      worst = std::max(worst, kExitUsage);
      continue;
    }
    ImportOptions options;
    options.strict = parser.isSet(strict);
    ProgressBar bar(path == "-" ? "<stdin>" : path);
    if (bar.active()) options.progress = [&bar](const ImportProgress& p) { bar.update(p); };
    const ImportResult result = import_trace(path, db, options);
    bar.clear();

    std::string diagnostics;
    for (std::size_t i = 0; i < std::min(kWarningsShown, result.report.warnings.size()); ++i)
      diagnostics += terminal_text(result.report.warnings[i].to_string()) + "\n";
    if (result.report.warning_count > kWarningsShown)
      diagnostics +=
          "... and " + counted(result.report.warning_count - kWarningsShown, "more warning", "more warnings") +
          " (skein info " + db + " lists the first 100)\n";
    if (!result.ok()) diagnostics += terminal_text(result.error.to_string()) + "\n";
    print_err(diagnostics);
    if (!result.ok()) {
      worst = std::max(worst, exit_code_of(result.failure));
      continue;
    }
    const ImportReport& r = result.report;
    print_out((path == "-" ? std::string("<stdin>") : path) + " -> " + db + ": " +
              counted(r.records, "record") + " (" + r.format + "), " + counted(r.threads, "thread") + ", " +
              counted(r.warning_count, "warning") + (r.truncated ? ", cut short" : "") +
              rate(r.records, r.seconds) + "\n");
  }
  return worst;
}

}  // namespace skein::cli
