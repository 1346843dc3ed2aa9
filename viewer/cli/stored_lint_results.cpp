// stored_lint_results.cpp — one lint pass when a command needs results the
// database does not hold yet (the rules are in stored_lint_results.hpp).
#include "viewer/cli/stored_lint_results.hpp"

#include "viewer/cli/command_line.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"

namespace skein::cli {

bool ensure_lint_results(std::optional<OpenedStore>& opened, const std::string& path, LintNeeds needs,
                         const char* command, int& exit_code) {
  auto present = lint_results_present(opened->store->database());
  if (!present) {
    print_err(present.error().to_string() + "\n");
    exit_code = kExitUsage;
    return false;
  }
  const bool want_causes = needs == LintNeeds::findings_and_causes;
  if (present.value().findings && (!want_causes || present.value().causes)) return true;
  LintOptions options;
  options.keep_transfers = want_causes;
  auto report = lint_store(*opened->store, options);
  if (!report) {
    print_err(report.error().to_string() + "\n");
    exit_code = kExitUsage;
    return false;
  }
  const std::string database = opened->database_path;
  const AnomalyDurability durability = database != path ? AnomalyDurability::rebuildable : AnomalyDurability::durable;
  opened.reset();
  const Status s = present.value().findings
                       ? store_transfers(database, std::move(report.value().transfers), durability)
                       : store_lint_report(database, report.value(), durability);
  if (!s.ok()) {
    print_err(std::string("skein ") + command + ": cannot store the lints' results it needs: " + s.error().to_string() +
              "\n");
    exit_code = kExitUsage;
    return false;
  }
  opened = open_store_or_report(path, exit_code);
  return opened.has_value();
}

}  // namespace skein::cli
