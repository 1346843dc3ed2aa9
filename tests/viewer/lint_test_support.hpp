// lint_test_support.hpp — the vocabulary of the lint tests: a trace held in
// a string, the lints, and the findings as one line each, compared exactly.
//
//   CHECK(lint_lines(kTrace, {LintRuleId::late_notify}) ==
//         "late-notify warning 5000 t=2 from=0 suspect=1 event=7\n");
//
// lint_trace() imports the trace into a temporary database and lints it
// through the store (lint_store), and checks on the way that linting the
// same events from memory (lint_events) gives the same report, and that
// the findings left in their spools (LintOptions::findings_in_memory off,
// with segments small enough that they go to the spools' files) read back
// as the very findings decoded in memory, so every test covers both entry
// points and both ways of keeping findings.
#pragma once

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "recorder/store/trace_store.hpp"
#include "tests/support/store_query.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "recorder/store/events_table.hpp"

namespace skein::test {

inline std::string optional_id(const char* name, const std::optional<std::int64_t>& v) {
  return std::string(" ") + name + "=" + (v ? std::to_string(*v) : std::string("none"));
}

// "RULE SEVERITY TIME t=THREAD from=F suspect=S event=E", one a line.
inline std::string finding_lines(const std::vector<LintFinding>& findings) {
  std::string out;
  for (const LintFinding& f : findings)
    out += std::string(lint_rule_name(f.rule)) + " " + std::string(lint_severity_name(f.severity)) + " " +
           std::to_string(f.time) + " t=" + std::to_string(f.thread) + optional_id("from", f.from) +
           optional_id("suspect", f.suspect) + optional_id("event", f.event) + "\n";
  return out;
}

inline LintReport lint_trace(const std::string& trace, std::vector<LintRuleId> rules = {},
                             LintSettings settings = {}) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const auto imported = import_text(trace, db);
  INFO(imported.error.to_string());
  REQUIRE(imported.ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  LintOptions options;
  options.rules = std::move(rules);
  options.settings = settings;
  auto from_store = lint_store(store.value(), options);
  REQUIRE(from_store.ok());
  auto events = load_trace_events(store.value().database());
  REQUIRE(events.ok());
  // lint_store names sites from the sites table; compare everything else.
  LintReport from_memory = lint_events(events.value().events(), options);
  CHECK(finding_lines(from_memory.findings) == finding_lines(from_store.value().findings));
  CHECK(from_memory.counts == from_store.value().counts);
  LintOptions spooling = options;
  spooling.findings_in_memory = false;
  spooling.spool_segment_bytes = 64;
  auto spooled = lint_store(store.value(), spooling);
  REQUIRE(spooled.ok());
  CHECK(spooled.value().findings.empty());
  CHECK(spooled.value().counts == from_store.value().counts);
  std::vector<LintFinding> read_back;
  const Status read = for_each_finding(spooled.value(), [&](const LintFinding& f) {
    read_back.push_back(f);
    return true;
  });
  CHECK(read.ok());
  CHECK(read_back == from_store.value().findings);
  CHECK(finding_count(spooled.value()) == from_store.value().findings.size());
  return std::move(from_store).value();
}

// The report of lint_events() over the trace's events, with every verdict
// of the causality replay kept (LintOptions::keep_transfers).
inline LintReport lint_with_transfers(const std::string& trace, std::vector<LintRuleId> rules = {}) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const auto imported = import_text(trace, db);
  INFO(imported.error.to_string());
  REQUIRE(imported.ok());
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  auto events = load_trace_events(store.value().database());
  REQUIRE(events.ok());
  LintOptions options;
  options.rules = std::move(rules);
  options.keep_transfers = true;
  return lint_events(events.value().events(), options);
}

inline std::string lint_lines(const std::string& trace, std::vector<LintRuleId> rules = {},
                              LintSettings settings = {}) {
  return finding_lines(lint_trace(trace, std::move(rules), std::move(settings)).findings);
}

}  // namespace skein::test
