// command_line.hpp — the pieces every `skein` subcommand shares: its parser
// set up with --help, the exit codes, and output helpers.
//
// Exit codes are the same for every command: 0 success, 1 the input has
// problems (errors in a trace, lint findings), 2 usage or unreadable input
// that the command could not look at.
#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <optional>
#include <string>
#include <vector>

#include "recorder/output/output_file.hpp"
#include "recorder/store/opened_store.hpp"

namespace skein::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitProblems = 1;
inline constexpr int kExitUsage = 2;

// Parses `args` (args[0] is the command name). Returns nullopt-like false and
// sets `exit_code` when the command should stop now: --help printed (0) or a
// usage error reported (2).
bool parse_command_line(QCommandLineParser& parser, const QStringList& args,
                        const QString& command, int& exit_code);

// Prints "skein COMMAND: message" to stderr with the usage hint, returns 2.
int usage_error(const QString& command, const QString& message);

void print_out(const std::string& text);
void print_err(const std::string& text);

// True, with the error printed, when `output` is one of the files the
// command reads (recorder/output/output_not_input.hpp): the command then
// stops with kExitUsage, its output untouched.
[[nodiscard]] bool output_names_an_input(const std::string& output, OutputContent content,
                                         const std::vector<std::string>& inputs);

// Opens DB|TRACE for a command that reads a trace database (info, summary):
// a database as it is, a trace through its cache (imported when needed,
// with a progress bar on a terminal). On failure, prints the error (through
// terminal_text(), recorder/export/output_escape.hpp: it may quote the trace)
// and sets `exit_code` (1: the trace has errors; 2: unreadable).
std::optional<OpenedStore> open_store_or_report(const std::string& path, int& exit_code);

}  // namespace skein::cli
