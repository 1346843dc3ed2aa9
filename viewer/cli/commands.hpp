// commands.hpp — the subcommands of `skein`, one file each; main.cpp lists
// them. Each takes its arguments (args[0] is the command's name) and returns
// the process exit code (command_line.hpp).
#pragma once

#include <QStringList>

namespace skein::cli {

int run_check(const QStringList& args);
int run_export(const QStringList& args);
int run_import(const QStringList& args);
int run_info(const QStringList& args);
int run_lint(const QStringList& args);
int run_summary(const QStringList& args);
int run_why(const QStringList& args);
#if SKEIN_HAVE_RENDER
int run_render(const QStringList& args);
// `skein render` runs under a QGuiApplication (text needs one): main() hands
// it the whole command line before making its QCoreApplication.
int render_main(int argc, char** argv);
#endif

}  // namespace skein::cli
