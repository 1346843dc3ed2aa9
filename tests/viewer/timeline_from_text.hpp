// timeline_from_text.hpp — a TimelineData from a trace held in a string,
// through the real pipeline: import into a database in a temporary folder
// (store_query.hpp), optionally store lint findings beside it
// (anomaly_table.hpp), then load_timeline(). No test framework inside, so
// Catch and QTest tests share it; a failure comes back as a message.
//
//   std::string error;
//   auto data = timeline_from_text(kTrace, dir, &error);   // nullptr: failed
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein::test {

// Imports `trace` as DIR/NAME.db, stores `findings` (when any) for every
// rule, and loads the timeline.
inline std::shared_ptr<const TimelineData> timeline_from_text(const std::string& trace, const TempDir& dir,
                                                              std::string* error,
                                                              const std::vector<LintFinding>& findings = {},
                                                              const std::string& name = "t") {
  const std::string db = dir.file(name + ".db");
  const ImportResult imported = import_text(trace, db);
  if (!imported.ok()) {
    if (error) *error = imported.error.to_string();
    return nullptr;
  }
  if (!findings.empty()) {
    LintReport report;
    report.findings = findings;
    const Status stored = store_lint_report(*owner_of(db), report, WriteDurability::rebuildable);
    if (!stored.ok()) {
      if (error) *error = stored.error().to_string();
      return nullptr;
    }
  }
  auto store = TraceStore::open(db);
  if (!store) {
    if (error) *error = store.error().to_string();
    return nullptr;
  }
  auto loaded = load_timeline(store.value());
  if (!loaded) {
    if (error) *error = loaded.error().to_string();
    return nullptr;
  }
  return std::make_shared<const TimelineData>(std::move(loaded).value());
}

}  // namespace skein::test
