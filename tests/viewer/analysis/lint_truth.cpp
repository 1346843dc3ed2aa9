// lint_truth.cpp — the lints' precision and recall on real traces, against
// a truth that does not come from the lints.
//
//   lint_truth --truth FILE [--fixtures DIR] [--samples DIR] [--programs DIR]
//              [--only fixtures|samples|programs] [--removals N] [--seed S]
//
// The truth (lint_truth.tsv, beside this file) names the traces: the 2014
// MirageOS fixtures, runs of the samples and runs of the programs written
// as users write them (tests/user_programs, each fault beside its fixed
// version), and for every trace and every rule the number of findings it
// owes, each with a reason taken from what wrote the trace (Lwt's code,
// the program's source). This program:
//
//   1. makes every trace: a fixture is imported as it is (into a temporary
//      database: nothing is written beside the fixtures); a sample or a
//      program is run with SKEIN_TRACE into a temporary folder, then
//      imported. blocking-activation measures turns by the wall clock, so
//      a turn the operating system preempted looks as long as one that
//      worked: when it may (util-linux's chrt, allowed to use SCHED_FIFO), the program
//      runs at real-time priority (SCHED_FIFO 1), so that other processes
//      on a loaded machine do not stretch its turns. A run whose capture
//      lost records is made again (up to 5 times): the truth is that of a
//      whole trace;
//   2. lints it (all rules, as `skein lint`) and prints, per rule, the
//      findings next to the truth: the findings beyond it are false ones
//      (precision), those short of it missed;
//   3. on the traces marked `recall` that have no error and no warning,
//      cuts blocks of records out and puts a `(lost ...)` record in their
//      place, as the capture does when it drops records (gap_cuts.hpp):
//      no verdict may rest on a gap, so every cut trace must still have no
//      error and no warning;
//   4. on the traces marked `recall`, removes one causal record at a time
//      (a resolve, a notify, a merge) and checks that the lints report the
//      removal where the removal says they must: mutation_oracle.hpp has
//      the oracle, which never asks the lints' own state machine. Up to
//      --removals (300) per trace and kind; recall is printed for each.
//
// Exit status: 0 when every count equals its truth and every recall is at
// least 99%; 1 otherwise; 77 (skipped) when --only fixtures finds no
// fixtures; 2 for a bad truth file or arguments.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "recorder/store/trace_import.hpp"
#include "recorder/store/trace_store.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "tests/viewer/gap_cuts.hpp"
#include "tests/viewer/mutation_oracle.hpp"
#include "recorder/store/events_table.hpp"

using namespace skein;
using skein::test::MutationRecall;

namespace {

constexpr double kRecallTarget = 0.99;
constexpr std::size_t kGapCuts = 20;  // cuts a clean trace, each one lint
constexpr int kRunAttempts = 5;       // runs of a program, until one whose capture lost nothing
// The capture's memory for a run: a poller spinning on pause() in a release
// build makes records faster than the writer writes them, and the capture
// keeps a burst of up to a quarter of its budget (README, "Tracing a
// program"): 512 MB keeps a few million records, more than any of these
// short runs makes.
constexpr const char* kCaptureBudget = "SKEIN_TRACE_BUFFER_MB=512";

struct TraceSpec {
  std::string name;
  std::string kind;                // fixture, sample or program
  std::vector<std::string> args;   // the file, or the program and its arguments
  std::map<std::string, std::uint64_t> expected;  // rule -> count
  std::map<std::string, std::string> reasons;
  bool recall = false;
  std::size_t removals = 0;  // 0: --removals
};

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, '\t')) out.push_back(field);
  return out;
}

std::vector<std::string> split_spaces(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

bool read_truth(const std::string& path, std::vector<TraceSpec>& traces) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "lint_truth: cannot read %s\n", path.c_str());
    return false;
  }
  std::string line;
  int number = 0;
  const auto find = [&](const std::string& name) -> TraceSpec* {
    for (auto& t : traces)
      if (t.name == name) return &t;
    return nullptr;
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const auto f = split_tabs(line);
    const auto bad = [&](const char* why) {
      std::fprintf(stderr, "%s:%d: %s\n", path.c_str(), number, why);
      return false;
    };
    if (f[0] == "trace") {
      if (f.size() != 4 || (f[2] != "fixture" && f[2] != "sample" && f[2] != "program"))
        return bad("expected: trace NAME fixture|sample|program WHAT");
      traces.push_back(TraceSpec{f[1], f[2], split_spaces(f[3]), {}, {}, false});
    } else if (f[0] == "expect") {
      if (f.size() != 5) return bad("expected: expect NAME RULE COUNT REASON");
      TraceSpec* t = find(f[1]);
      if (t == nullptr) return bad("expect names a trace not declared before");
      if (!lint_rule_from_name(f[2])) return bad("unknown rule");
      if (f[4].empty()) return bad("a count needs its reason");
      t->expected[f[2]] = std::stoull(f[3]);
      t->reasons[f[2]] = f[4];
    } else if (f[0] == "recall") {
      TraceSpec* t = find(f.size() == 2 || f.size() == 3 ? f[1] : "");
      if (t == nullptr) return bad("recall names a trace not declared before");
      t->recall = true;
      if (f.size() == 3) {
        try {
          t->removals = std::stoul(f[2]);
        } catch (...) {
          return bad("recall's removals must be a number");
        }
      }
    } else {
      return bad("unknown line");
    }
  }
  for (const auto& t : traces)
    if (t.expected.size() != kLintRuleCount) {
      std::fprintf(stderr, "%s: trace %s does not name all %zu rules\n", path.c_str(), t.name.c_str(),
                   kLintRuleCount);
      return false;
    }
  return true;
}

struct Made {
  bool ok = false;
  bool skipped = false;
  int reruns = 0;  // runs made again because the capture lost records
  std::string db;
  std::string why;
};

// Imports `source` into m.db, as `skein import` does but without waiting
// for the disk; false (the reason in m.why) when it cannot.
bool import_into(const std::string& source, Made& m) {
  ImportOptions options;
  options.sync = false;
  const ImportResult r = import_trace(source, m.db, options);
  if (!r.ok()) m.why = r.error.to_string();
  return r.ok();
}

// Whether programs may run at real-time priority here: util-linux's chrt
// is there and SCHED_FIFO is allowed (root in a container may still lack it).
bool real_time_allowed() {
  return access("/usr/bin/chrt", X_OK) == 0 && test::run_process({"/usr/bin/chrt", "-f", "1", "/bin/true"}).exit_code == 0;
}

Made make_trace(const TraceSpec& t, const std::string& fixtures, const std::string& samples,
                const std::string& programs, const test::TempDir& dir) {
  Made m;
  m.db = dir.file(t.name + ".db");
  if (t.kind == "fixture") {
    const std::string source = fixtures + "/" + t.args.at(0);
    if (access(source.c_str(), R_OK) != 0) {
      m.skipped = true;
      m.why = "fixture " + source + " not found (set SKEIN_FIXTURES)";
      return m;
    }
    if (!import_into(source, m)) return m;
    m.ok = true;
    return m;
  }
  // A run's truth is the truth of its whole trace: the capture gets memory
  // enough for the run (kCaptureBudget), and a run whose capture still lost
  // records (it drops them rather than slow the program down, under a
  // sustained overload) is not the trace the truth describes: it is run
  // again.
  const std::string source = dir.file(t.name + ".sexp");
  std::vector<std::string> argv = {t.kind == "sample" ? samples + "/" + t.args.at(0) + "/" + t.args.at(0)
                                                      : programs + "/" + t.args.at(0)};
  argv.insert(argv.end(), t.args.begin() + 1, t.args.end());
  static const bool real_time = real_time_allowed();
  if (real_time) argv.insert(argv.begin(), {"/usr/bin/chrt", "-f", "1"});
  for (int attempt = 1;; ++attempt) {
    const auto run = test::run_process(argv, {}, {"SKEIN_TRACE=" + source, kCaptureBudget});
    if (run.exit_code != 0) {
      m.why = t.kind + " " + argv.back() + " exited " + std::to_string(run.exit_code) + ": " + run.err;
      return m;
    }
    if (!import_into(source, m)) return m;
    auto store = TraceStore::open(m.db);
    if (!store.ok()) {
      m.why = store.error().to_string();
      return m;
    }
    const std::int64_t lost = store.value().meta_int("lost_records").value_or(0);
    if (lost == 0) break;
    if (attempt == kRunAttempts) {
      m.why = "the capture lost records in every one of " + std::to_string(kRunAttempts) + " runs (" +
              std::to_string(lost) + " in the last)";
      return m;
    }
    ++m.reruns;
  }
  m.ok = true;
  return m;
}

std::string percent(std::size_t a, std::size_t b) {
  if (b == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(a) / static_cast<double>(b));
  return buf;
}

}  // namespace

int main(int argc, char** argv) {
  std::string truth, fixtures, samples, programs, only;
  std::size_t removals = 300;
  std::uint64_t seed = 20141018;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "lint_truth: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--truth") truth = value();
    else if (a == "--fixtures") fixtures = value();
    else if (a == "--samples") samples = value();
    else if (a == "--programs") programs = value();
    else if (a == "--only") only = value();
    else if (a == "--removals") removals = std::stoul(value());
    else if (a == "--seed") seed = std::stoull(value());
    else {
      std::fprintf(stderr, "usage: lint_truth --truth FILE [--fixtures DIR] [--samples DIR] [--programs DIR] "
                           "[--only fixtures|samples|programs] [--removals N] [--seed S]\n");
      return 2;
    }
  }
  if (const char* env = std::getenv("SKEIN_FIXTURES"); env != nullptr && *env != '\0') fixtures = env;
  std::vector<TraceSpec> traces;
  if (truth.empty() || !read_truth(truth, traces)) return 2;

  test::TempDir dir;
  bool failed = false;
  bool skipped = false;
  std::printf("%-26s %-21s %8s %6s %6s %6s  %s\n", "trace", "rule", "findings", "truth", "false", "missed", "reason");
  std::vector<std::pair<std::string, std::vector<MutationRecall>>> recalls;
  std::vector<std::pair<std::string, test::GapCuts>> gaps;
  for (const TraceSpec& t : traces) {
    if (!only.empty() && only != t.kind + "s") continue;
    const Made m = make_trace(t, fixtures, samples, programs, dir);
    if (m.skipped) {
      std::printf("%-26s SKIPPED: %s\n", t.name.c_str(), m.why.c_str());
      skipped = true;
      continue;
    }
    if (!m.ok) {
      std::printf("%-26s FAILED: %s\n", t.name.c_str(), m.why.c_str());
      failed = true;
      continue;
    }
    if (m.reruns > 0)
      std::printf("%-26s (run %d more times: the capture lost records, and the truth is a whole trace's)\n",
                  t.name.c_str(), m.reruns);
    auto store = TraceStore::open(m.db);
    if (!store.ok()) {
      std::printf("%-26s FAILED: %s\n", t.name.c_str(), store.error().to_string().c_str());
      failed = true;
      continue;
    }
    auto report = lint_store(store.value(), {});
    if (!report.ok()) {
      std::printf("%-26s FAILED: %s\n", t.name.c_str(), report.error().to_string().c_str());
      failed = true;
      continue;
    }
    for (const LintRuleId rule : all_lint_rules()) {
      const std::string name(lint_rule_name(rule));
      const std::uint64_t found = report.value().counts[static_cast<std::size_t>(rule)];
      const std::uint64_t want = t.expected.at(name);
      const std::uint64_t extra = found > want ? found - want : 0;
      const std::uint64_t missed = want > found ? want - found : 0;
      if (found != want) failed = true;
      std::printf("%-26s %-21s %8llu %6llu %6llu %6llu  %s%s\n", t.name.c_str(), name.c_str(),
                  static_cast<unsigned long long>(found), static_cast<unsigned long long>(want),
                  static_cast<unsigned long long>(extra), static_cast<unsigned long long>(missed),
                  found == want ? "" : "MISMATCH: ", t.reasons.at(name).c_str());
    }
    if (!t.recall) continue;
    auto events = load_trace_events(store.value().database());
    if (!events.ok()) {
      std::printf("%-26s FAILED: %s\n", t.name.c_str(), events.error().to_string().c_str());
      failed = true;
      continue;
    }
    LintSettings settings;
    const auto scheduler = store.value().meta_text("header.scheduler-thread");
    const auto format = store.value().meta_text("header.source-format");
    settings.semantics = semantics_from_header(scheduler ? &*scheduler : nullptr, format ? &*format : nullptr);
    bool clean = true;
    for (const LintFinding& f : report.value().findings) clean = clean && f.severity == LintSeverity::note;
    if (clean) gaps.emplace_back(t.name, test::gap_cuts(events.value().events(), settings, kGapCuts, seed));
    recalls.emplace_back(t.name, test::mutation_recall(events.value().events(), settings,
                                                       t.removals != 0 ? std::min(t.removals, removals) : removals,
                                                       seed));
  }
  if (!gaps.empty()) {
    std::printf("\n%-26s %6s %7s %9s %6s\n", "cut with a lost gap", "cuts", "errors", "warnings", "notes");
    for (const auto& [name, g] : gaps) {
      const bool ok = g.errors == 0 && g.warnings == 0;
      if (!ok) failed = true;
      std::printf("%-26s %6zu %7zu %9zu %6zu%s\n", name.c_str(), g.cuts, g.errors, g.warnings, g.notes,
                  ok ? "" : "  FINDINGS ACROSS A GAP");
      for (const auto& e : g.examples) std::printf("    %s\n", e.c_str());
    }
  }
  if (!recalls.empty()) {
    std::printf("\n%-26s %-8s %10s %8s %8s %7s\n", "recall by mutation", "removed", "candidates", "removals",
                "reported", "recall");
    for (const auto& [name, rows] : recalls) {
      for (const MutationRecall& r : rows) {
        const bool ok = r.removals == 0 || static_cast<double>(r.reported) >= kRecallTarget * static_cast<double>(r.removals);
        if (!ok) failed = true;
        std::printf("%-26s %-8s %10zu %8zu %8zu %7s%s\n", name.c_str(), r.kind.c_str(), r.candidates, r.removals,
                    r.reported, percent(r.reported, r.removals).c_str(), ok ? "" : "  BELOW 99%");
        for (const auto& miss : r.misses) std::printf("    missed: %s\n", miss.c_str());
      }
    }
  }
  if (failed) return 1;
  return skipped ? 77 : 0;
}
