// check_command.cpp — `skein check TRACE`: validates a Skein trace and
// prints what it holds (records per head, threads, time span) with every
// error and warning as FILE:LINE:COL.
//
// The report goes to standard output, diagnostics to standard error, the
// trace's text in both through terminal_text() (recorder/export/output_escape.hpp)
// so that nothing in a trace reaches the terminal as a command. Exit 0
// when the trace is valid (warnings allowed), 1 when it has errors, 2 when it
// cannot be opened or the command line is wrong.
#include <QCommandLineParser>

#include "recorder/format/trace_check.hpp"
#include "recorder/format/trace_reader.hpp"
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

std::string render_report(const TraceCheckReport& r) {
  std::string out = r.name + ": ";
  if (r.valid()) out += "valid Skein trace";
  else out += "INVALID Skein trace (" + group_thousands(static_cast<std::int64_t>(r.error_count)) +
              (r.error_count == 1 ? " error)" : " errors)");
  if (r.header) {
    out += ", format " + std::to_string(r.header->version);
    if (const auto* process = r.header->option("process")) out += ", process \"" + terminal_text(*process) + "\"";
    if (const auto pid = r.header->integer_option("pid")) out += ", pid " + std::to_string(*pid);
  }
  out += "\n";
  const auto row = [&](const std::string& name, std::uint64_t n, int indent) {
    std::string label(static_cast<std::size_t>(indent), ' ');
    label += name;
    if (label.size() < 14) label.resize(14, ' ');
    out += label + pad(group_thousands(static_cast<std::int64_t>(n)), 12) + "\n";
  };
  row("records", r.records, 2);
  for (std::size_t i = 0; i < kRecordHeadCount; ++i)
    if (r.records_per_head[i] > 0) row(std::string(head_name(static_cast<RecordHead>(i))), r.records_per_head[i], 4);
  for (const auto& u : r.unknown_heads) row(terminal_text(u.name) + " (unknown)", u.count, 4);
  row("threads", r.threads, 2);
  out += "  time span   ";
  if (r.first_time && r.last_time) {
    out += " " + format_duration_ns(*r.first_time) + " to " + format_duration_ns(*r.last_time) +
           " (" + format_duration_ns(*r.last_time - *r.first_time) + ")\n";
  } else {
    out += " none (no timed records)\n";
  }
  out += "  end          ";
  out += r.ended_cleanly ? "clean: (end) record present\n"
                         : (r.truncated ? "none: the trace was cut short\n" : "none: no (end) record\n");
  row("warnings", r.warning_count, 2);
  row("errors", r.error_count, 2);
  return out;
}

}  // namespace

int run_check(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Validate a Skein trace (format 1, plain or gzip-compressed) and print its record counts\n"
      "per head, thread count, time span, warnings and errors. Errors and warnings name\n"
      "FILE:LINE:COL. Exit status: 0 valid, 1 errors in the trace, 2 usage or unreadable file."));
  parser.addPositionalArgument(QStringLiteral("TRACE"),
                               QStringLiteral("The trace file, or - for standard input."));
  const QCommandLineOption max_errors(QStringLiteral("max-errors"),
                                      QStringLiteral("Print at most N errors and N warnings (default 20)."),
                                      QStringLiteral("N"), QStringLiteral("20"));
  parser.addOption(max_errors);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("check"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("check"), positional.isEmpty()
                                                    ? QStringLiteral("missing TRACE")
                                                    : QStringLiteral("expected one TRACE, got %1").arg(positional.size()));
  bool number_ok = false;
  const int limit = parser.value(max_errors).toInt(&number_ok);
  if (!number_ok || limit < 0)
    return usage_error(QStringLiteral("check"), QStringLiteral("--max-errors needs a number >= 0"));

  auto reader = TraceReader::open(positional.first().toStdString());
  if (!reader) {
    print_err(terminal_text(reader.error().to_string()) + "\n");
    return kExitUsage;
  }
  TraceCheckOptions options;
  options.max_errors_kept = static_cast<std::size_t>(limit);
  options.max_warnings_kept = static_cast<std::size_t>(limit);
  const TraceCheckReport report = check_trace(reader.value(), options);

  std::string diagnostics;
  for (const auto& e : report.errors) diagnostics += terminal_text(e.to_string()) + "\n";
  if (report.error_count > report.errors.size())
    diagnostics += "... and " + counted(report.error_count - report.errors.size(), "more error", "more errors") + "\n";
  for (const auto& w : report.warnings) diagnostics += terminal_text(w.to_string()) + "\n";
  if (report.warning_count > report.warnings.size())
    diagnostics +=
        "... and " + counted(report.warning_count - report.warnings.size(), "more warning", "more warnings") + "\n";
  print_err(diagnostics);
  print_out(render_report(report));
  return report.valid() ? kExitOk : kExitProblems;
}

}  // namespace skein::cli
