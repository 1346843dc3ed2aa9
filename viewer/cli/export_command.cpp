// export_command.cpp — `skein export DB|TRACE --format chrome|folded|sexp
// [-o FILE]`: a trace in a format other tools read. The exporters are
// headless code: recorder/export/chrome_trace_export.hpp (Perfetto UI,
// chrome://tracing), recorder/export/folded_stacks_export.hpp (flamegraph.pl,
// inferno) and recorder/export/sexp_export.hpp (Skein's own format, from a
// database of any imported format).
//
// A TRACE (any format) is opened through its cache database
// (recorder/store/opened_store.hpp). The output goes to standard output, or to
// FILE (gzip-compressed when its name ends in .gz) as recorder/output/output_file.hpp
// decides: a regular file or a new path is written under a temporary name
// and renamed into place once complete, so a failed export never leaves half
// a file; a device, a FIFO or a symbolic link (-o /dev/stdout) is written
// through, never replaced; never the input or its cache database, by any
// name (recorder/output/output_not_input.hpp). Exit 0 success; 1 when the TRACE has errors, the
// database holds a row the format cannot carry, or writing fails midway
// (a full disk); 2 on usage errors, an unreadable input or an output file
// that cannot be created.
#include <QCommandLineParser>

#include "recorder/output/output_file.hpp"
#include "recorder/export/sexp_export.hpp"
#include "viewer/cli/command_line.hpp"
#include "viewer/cli/commands.hpp"
#include "recorder/export/chrome_trace_export.hpp"
#include "recorder/export/folded_stacks_export.hpp"

namespace skein::cli {
namespace {

enum class ExportFormat : std::uint8_t { chrome, folded, sexp };

std::optional<ExportFormat> export_format_from_name(const QString& name) {
  if (name == QLatin1String("chrome")) return ExportFormat::chrome;
  if (name == QLatin1String("folded")) return ExportFormat::folded;
  if (name == QLatin1String("sexp")) return ExportFormat::sexp;
  return std::nullopt;
}

Result<std::uint64_t> run_exporter(ExportFormat format, TraceStore& store, std::unique_ptr<ByteSink> sink) {
  switch (format) {
    case ExportFormat::chrome: return export_chrome_trace(store, std::move(sink));
    case ExportFormat::folded: return export_folded_stacks(store, std::move(sink));
    case ExportFormat::sexp: return export_sexp(store, std::move(sink));
  }
  return file_error(store.path(), "unknown export format");
}

}  // namespace

int run_export(const QStringList& args) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "Export a trace for other tools:\n"
      "  chrome  Chrome Trace Event JSON for Perfetto UI and chrome://tracing: a track per\n"
      "          thread, slices for its lifetime and activations, flow arrows for causal edges,\n"
      "          counters;\n"
      "  folded  folded stacks for flamegraph.pl and inferno: label ancestry and run time in\n"
      "          microseconds, one 'root;child;leaf COUNT' line per stack;\n"
      "  sexp    Skein's own trace format, from a database of any imported format.\n"
      "A TRACE file (any format) is imported first into its cache database.\n"
      "Exit status: 0 success, 1 errors in the TRACE, a database row the format cannot\n"
      "carry or a failed write, 2 usage error, unreadable input or an output file that\n"
      "cannot be created."));
  parser.addPositionalArgument(QStringLiteral("DB|TRACE"),
                               QStringLiteral("A trace database, or a trace to open through its cache."));
  const QCommandLineOption format_option(QStringList{QStringLiteral("f"), QStringLiteral("format")},
                                         QStringLiteral("The output format: chrome, folded or sexp."),
                                         QStringLiteral("chrome|folded|sexp"));
  const QCommandLineOption output_option(
      QStringList{QStringLiteral("o"), QStringLiteral("output")},
      QStringLiteral("Write to FILE (gzip-compressed when it ends in .gz; a device, FIFO or symbolic link\n"
                     "is written through) instead of standard output."),
      QStringLiteral("FILE"), QStringLiteral("-"));
  parser.addOption(format_option);
  parser.addOption(output_option);
  int exit_code = kExitOk;
  if (!parse_command_line(parser, args, QStringLiteral("export"), exit_code)) return exit_code;
  const QStringList positional = parser.positionalArguments();
  if (positional.size() != 1)
    return usage_error(QStringLiteral("export"),
                       positional.isEmpty()
                           ? QStringLiteral("missing DB|TRACE")
                           : QStringLiteral("expected one DB|TRACE, got %1").arg(positional.size()));
  if (!parser.isSet(format_option))
    return usage_error(QStringLiteral("export"), QStringLiteral("missing --format chrome|folded|sexp"));
  const auto format = export_format_from_name(parser.value(format_option));
  if (!format)
    return usage_error(QStringLiteral("export"), QStringLiteral("--format takes chrome, folded or sexp, not '%1'")
                                                     .arg(parser.value(format_option)));
  const std::string output = parser.value(output_option).toStdString();
  if (output.empty()) return usage_error(QStringLiteral("export"), QStringLiteral("-o needs a FILE"));

  const std::string input = positional.first().toStdString();
  if (output_names_an_input(output, OutputContent::stream, {input})) return kExitUsage;
  auto opened = open_store_or_report(input, exit_code);
  if (!opened) return exit_code;
  // A TRACE is read through its cache database: that is an input too.
  if (output_names_an_input(output, OutputContent::stream, {opened->database_path})) return kExitUsage;

  auto output_file = OutputFile::open_stream(output);
  if (!output_file) {
    print_err(output_file.error().to_string() + "\n");
    return kExitUsage;
  }
  auto sink = output_file.value().take_sink(Compression::by_name);
  if (!sink) {
    print_err(sink.error().to_string() + "\n");
    return kExitUsage;
  }
  const auto exported = run_exporter(*format, *opened->store, std::move(sink).value());
  if (!exported) {
    print_err(exported.error().to_string() + "\n");
    return kExitProblems;
  }
  if (Status s = output_file.value().commit(/*sync=*/false); !s.ok()) {
    print_err(s.error().to_string() + "\n");
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace skein::cli
