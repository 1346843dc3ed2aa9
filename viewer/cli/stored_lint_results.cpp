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
  options.keyed_transfers = true;  // only stored
  options.findings_in_memory = false;  // only stored, read back from their spools
  auto report = lint_store(*opened->store, options);
  if (!report) {
    print_err(report.error().to_string() + "\n");
    exit_code = kExitUsage;
    return false;
  }
  // A TRACE's database is its cache, which the trace rebuilds.
  const WriteDurability durability =
      opened->database_path != path ? WriteDurability::rebuildable : WriteDurability::durable;
  const std::shared_ptr<TraceDatabase> owner = opened->store->owner();
  opened->store.reset();  // the read-only connection closed before writing
  const Status s = present.value().findings
                       ? store_transfers(*owner, std::move(report.value().keyed_transfers), durability)
                       : store_lint_report(*owner, report.value(), durability);
  if (!s.ok()) {
    print_err(std::string("skein ") + command + ": cannot store the lints' results it needs: " + s.error().to_string() +
              "\n");
    exit_code = kExitUsage;
    return false;
  }
  // The same file, read again: its values were checked, and what was just
  // written is ours (trace_database.hpp), so this reader scans nothing.
  auto reader = owner->reader();
  if (!reader) {
    print_err(reader.error().to_string() + "\n");
    exit_code = kExitUsage;
    return false;
  }
  opened->store.emplace(std::move(reader).value());
  return true;
}

}  // namespace skein::cli
