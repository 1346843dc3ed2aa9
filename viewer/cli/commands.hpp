// commands.hpp — the subcommands of `skein`, one file each; main.cpp lists
// them. Each takes its arguments (args[0] is the command's name) and returns
// the process exit code (command_line.hpp).
#pragma once

#include <QStringList>

namespace skein::cli {

int run_check(const QStringList& args);
int run_import(const QStringList& args);
int run_info(const QStringList& args);
int run_summary(const QStringList& args);

}  // namespace skein::cli
