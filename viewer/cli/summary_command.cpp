// summary_command.cpp — `skein summary DB|TRACE [--by label|kind|site]
// [--sort COLUMN] [--duration MS]`: the threads of a trace grouped as
// `strace -c` groups system calls (viewer/analysis/summary.hpp computes it), or
// with --duration the threads that lived or ran longer than MS, as
// `perf trace --duration` lists events.
//
// A TRACE (any format) is opened through its cache database
// (recorder/store/opened_store.hpp). Exit 0 success, 1 when the TRACE has errors,
// 2 on usage errors or an unreadable file.
#include <QCommandLineParser>

#include "recorder/store/store_schema.hpp"
#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "viewer/analysis/summary.hpp"
#include "viewer/analysis/units.hpp"

namespace skein::cli {

int run_summary(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Summarise a trace's threads by label, kind or creation site, like 'strace -c':\n"
      "% time (the group's share of all run time), its total run time, threads, failures,\n"
      "then min / avg / max / stddev of the threads' lifetimes and run times; times in ms.\n"
      "Lifetime: created to resolved (to the trace's end when still pending). Run time: the\n"
      "sum of the thread's activations (the stretches during which it ran).\n"
      "A TRACE file (any format) is imported first into its cache database.\n"
      "Exit status: 0 success, 1 errors in the TRACE, 2 usage error or unreadable file."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption by(QStringLiteral("by"), QStringLiteral("Group by label (default), kind or site."),
                              QStringLiteral("label|kind|site"), QStringLiteral("label"));
  const QCommandLineOption sort(
      QStringLiteral("sort"),
      QStringLiteral("Sort rows by COLUMN, largest first (name: alphabetically): ") +
          QString::fromUtf8(summary_column_names().data(), static_cast<int>(summary_column_names().size())) +
          QStringLiteral(". Default: time."),
      QStringLiteral("COLUMN"), QStringLiteral("time"));
  const QCommandLineOption duration(
      QStringLiteral("duration"),
      QStringLiteral("Instead of the table, list the threads that lived or ran longer than MS milliseconds."),
      QStringLiteral("MS"));
  parser.addOption(by);
  parser.addOption(sort);
  parser.addOption(duration);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("summary"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("summary"),
                       positional.isEmpty()
                           ? QStringLiteral("missing DB|TRACE")
                           : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  const auto grouping = summary_grouping_from_name(parser.value(by).toStdString());
  if (!grouping)
    return usage_error(QStringLiteral("summary"),
                       QStringLiteral("--by takes label, kind or site, not '%1'").arg(parser.value(by)));
  const auto column = summary_column_from_name(parser.value(sort).toStdString());
  if (!column)
    return usage_error(QStringLiteral("summary"),
                       QStringLiteral("--sort takes one of %1; not '%2'")
                           .arg(QString::fromUtf8(summary_column_names().data(),
                                                  static_cast<int>(summary_column_names().size())),
                                parser.value(sort)));
  std::optional<TimeNs> bound;
  if (parser.isSet(duration)) {
    bound = parse_milliseconds_ns(parser.value(duration).toStdString(), 1e12);
    if (!bound)
      return usage_error(QStringLiteral("summary"),
                         QStringLiteral("--duration needs a number of milliseconds from 0 to 1e12, not '%1'")
                             .arg(parser.value(duration)));
  }

  const std::string path = positional.first().toStdString();
  auto opened = open_store_or_report(path, exit_code);
  if (!opened) return exit_code;
  TraceStore& store = *opened->store;
  auto threads = store.threads();
  auto sites = store.sites();
  if (!threads || !sites) {
    print_err((!threads ? threads.error() : sites.error()).to_string() + "\n");
    return kExitUsage;
  }
  const TimeNs end_time = store.meta_int("end_time").value_or(0);
  if (bound) {
    print_out(render_long_threads(threads_longer_than(threads.value(), end_time, *bound), end_time));
    return kExitOk;
  }
  print_out(
      render_summary(summarize(threads.value(), sites.value(), end_time, *grouping, *column), *grouping));
  return kExitOk;
}

}  // namespace skein::cli
