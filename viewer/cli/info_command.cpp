// info_command.cpp — `skein info DB|TRACE`: what a trace database holds:
// the source trace and its format, records per head, threads, time span,
// how the trace ended, and the warnings of its import.
//
// A TRACE (any format) is opened through its cache database, imported
// first when missing or stale (recorder/store/opened_store.hpp). The report goes to
// standard output, the warnings (FILE:LINE:COL) to standard error, the text
// the database holds in both through terminal_text()
// (recorder/export/output_escape.hpp): a database made elsewhere can hold any
// bytes, and none of them may reach the terminal as a command. Exit 0
// when the database opens, 1 when the TRACE has errors, 2 on usage errors
// or a file that is neither a trace nor a Skein database.
#include <QCommandLineParser>

#include "recorder/store/store_schema.hpp"

#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "recorder/export/output_escape.hpp"
#include "viewer/analysis/units.hpp"

namespace skein::cli {
namespace {

std::string pad(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

std::string row(const std::string& name, std::uint64_t n, int indent, const std::string& note = "") {
  std::string label(static_cast<std::size_t>(indent), ' ');
  label += name;
  if (label.size() < 14) label.resize(14, ' ');
  return label + pad(group_thousands(static_cast<std::int64_t>(n)), 12) + note + "\n";
}

}  // namespace

int run_info(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Describe a trace database: the trace it was imported from and its format, records per\n"
      "head, threads, time span, and the warnings of the import (on standard error).\n"
      "A TRACE file (any format) is imported first into its cache database, TRACE.skein.db\n"
      "beside it or in $XDG_CACHE_HOME/skein, and the cache is reused while TRACE is unchanged.\n"
      "Exit status: 0 success, 1 errors in the TRACE, 2 usage error or unreadable file."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption max_warnings(QStringLiteral("max-warnings"),
                                        QStringLiteral("Print at most N warnings (default 20)."),
                                        QStringLiteral("N"), QStringLiteral("20"));
  parser.addOption(max_warnings);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("info"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("info"),
                       positional.isEmpty()
                           ? QStringLiteral("missing DB|TRACE")
                           : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  bool number_ok = false;
  const int limit = parser.value(max_warnings).toInt(&number_ok);
  if (!number_ok || limit < 0)
    return usage_error(QStringLiteral("info"), QStringLiteral("--max-warnings needs a number >= 0"));

  const std::string path = positional.first().toStdString();
  auto opened = open_store_or_report(path, exit_code);
  if (!opened) return exit_code;
  TraceStore& store = *opened->store;

  auto counts = store.record_counts();
  auto threads = store.thread_counts();
  auto warnings = store.warnings();
  if (!counts || !threads || !warnings) {
    print_err((!counts ? counts.error() : !threads ? threads.error() : warnings.error()).to_string() + "\n");
    return kExitUsage;
  }

  std::string out = path + ": Skein trace database, schema " + std::to_string(kStoreSchemaVersion) + "\n";
  const auto text = [&](std::string_view key) { return terminal_text(store.meta_text(key).value_or("?")); };
  out += "  trace        " + text("source") + " (" + text("format") + ")\n";
  if (opened->database_path != path)
    out += "  database     " + opened->database_path + (opened->imported ? " (imported now)" : " (cached)") +
           "\n";
  if (const auto process = store.meta_text("header.process")) {
    out += "  process      \"" + terminal_text(*process) + "\"";
    if (const auto pid = store.meta_text("header.pid")) out += ", pid " + terminal_text(*pid);
    out += "\n";
  }
  out += row("records", static_cast<std::uint64_t>(store.meta_int("records").value_or(0)), 2);
  for (const HeadCount& c : counts.value())
    if (c.records > 0) out += row(terminal_text(c.head), c.records, 4);
  const ThreadCounts& t = threads.value();
  out += row("threads", t.total, 2,
             "  (" + group_thousands(static_cast<std::int64_t>(t.implicit)) + " implicit, " +
                 group_thousands(static_cast<std::int64_t>(t.failed)) + " failed, " +
                 group_thousands(static_cast<std::int64_t>(t.pending)) + " pending at the end)");
  out += "  time span   ";
  const auto first = store.meta_int("first_time");
  const auto end = store.meta_int("end_time");
  if (first && end)
    out += " " + format_duration_ns(*first) + " to " + format_duration_ns(*end) + " (" +
           format_duration_ns(*end - *first) + ")\n";
  else
    out += " none (no timed records)\n";
  out += "  end          ";
  out += store.meta_int("ended").value_or(0) != 0
             ? "clean: (end) record present\n"
             : (store.meta_int("truncated").value_or(0) != 0 ? "none: the trace was cut short\n"
                                                              : "none: no (end) record\n");
  if (const auto lost = store.meta_int("lost_records"); lost && *lost > 0)
    out += row("lost records", static_cast<std::uint64_t>(*lost), 2);
  out += row("warnings", static_cast<std::uint64_t>(store.meta_int("warnings").value_or(0)), 2);

  std::string diagnostics;
  const auto& w = warnings.value();
  for (std::size_t i = 0; i < std::min(w.size(), static_cast<std::size_t>(limit)); ++i)
    diagnostics += terminal_text(w[i].message) + "\n";
  const auto total = static_cast<std::uint64_t>(store.meta_int("warnings").value_or(0));
  const std::size_t shown = std::min(w.size(), static_cast<std::size_t>(limit));
  if (total > shown)
    diagnostics +=
        "... and " + counted(total - shown, "more warning", "more warnings") + "\n";
  print_err(diagnostics);
  print_out(out);
  return kExitOk;
}

}  // namespace skein::cli
