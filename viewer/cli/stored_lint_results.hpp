// stored_lint_results.hpp — makes sure an opened trace database holds the
// lints' results a command reads (viewer/analysis/anomaly_table.hpp): the
// findings, numbered as `skein lint` numbers them, and, when asked, the
// replay's causes that Why? follows. What is missing is computed by one
// lint pass and stored as `skein lint` stores it (durable in a database the
// user named, rebuildable in a trace's cache); findings already stored keep
// their numbers, and only the causes are added to them.
//
// The store is reopened after writing, so `opened` reads what was stored.
#pragma once

#include <optional>
#include <string>

#include "recorder/store/opened_store.hpp"

namespace skein::cli {

enum class LintNeeds : bool { findings, findings_and_causes };

// `path` is what the user named (a database, or a trace opened through its
// cache). On failure prints "skein COMMAND: ..." and sets `exit_code`.
bool ensure_lint_results(std::optional<OpenedStore>& opened, const std::string& path, LintNeeds needs,
                         const char* command, int& exit_code);

}  // namespace skein::cli
