// command_line.cpp — see command_line.hpp.
#include "viewer/cli/command_line.hpp"

#include <QRegularExpression>
#include <cstdio>

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

}  // namespace skein::cli
