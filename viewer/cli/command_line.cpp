// command_line.cpp — parse_command_line() adds --help itself and rewrites
// Qt's "Usage: PROGRAM" to "Usage: skein COMMAND". Output goes through
// fwrite and is flushed at once, so stdout and stderr interleave in call
// order. open_store_or_report() imports without fsyncs (a cache can be
// rebuilt), shows progress only when the bar is active (a terminal), clears
// the bar before any error, and maps an invalid trace to 1, else 2.
#include "viewer/cli/command_line.hpp"

#include <QRegularExpression>
#include <cstdio>

#include "recorder/output/output_not_input.hpp"
#include "viewer/cli/progress_bar.hpp"
#include "recorder/export/output_escape.hpp"

namespace skein::cli {

bool parse_command_line(QCommandLineParser& parser, const QStringList& args,
                        const QString& command, int& exit_code) {
  const QCommandLineOption help_option = parser.addHelpOption();
  if (!parser.parse(args)) {
    exit_code = usage_error(command, parser.errorText());
    return false;
  }
  if (parser.isSet(help_option)) {
    QString help = parser.helpText();
    // QCommandLineParser names the program only; name the command too.
    help.replace(QRegularExpression(QStringLiteral("^Usage: \\S+")),
                 QStringLiteral("Usage: skein ") + command);
    print_out(help.toStdString());
    exit_code = kExitOk;
    return false;
  }
  return true;
}

int usage_error(const QString& command, const QString& message) {
  print_err("skein " + command.toStdString() + ": " + message.toStdString() + "\n" +
            "Try 'skein " + command.toStdString() + " --help'.\n");
  return kExitUsage;
}

void print_out(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void print_err(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

bool output_names_an_input(const std::string& output, OutputContent content,
                           const std::vector<std::string>& inputs) {
  const Status s = check_output_is_not_an_input(output, content, inputs);
  if (s.ok()) return false;
  print_err(terminal_text(s.error().to_string()) + "\n");
  return true;
}

std::optional<OpenedStore> open_store_or_report(const std::string& path, int& exit_code) {
  StoreOpenOptions options;
  // A cache can be rebuilt from its trace: it need not wait for the disk.
  options.import.sync = false;
  ProgressBar bar(path);
  if (bar.active()) options.import.progress = [&bar](const ImportProgress& p) { bar.update(p); };
  OpenedStore opened = open_store(path, options);
  bar.clear();
  if (opened.ok()) return opened;
  print_err(terminal_text(opened.error.to_string()) + "\n");  // it may quote the trace
  exit_code = opened.failure == OpenedStore::Failure::invalid ? kExitProblems : kExitUsage;
  return std::nullopt;
}

}  // namespace skein::cli
