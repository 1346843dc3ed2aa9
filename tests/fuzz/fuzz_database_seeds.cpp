// fuzz_database_seeds.cpp — makes the seed databases of
// trace_database_fuzzer at fuzz time, so that no binary database is kept
// in the repository: `fuzz_database_seeds OUT TRACE...` imports each trace
// that imports (any format) into OUT/NAME.db with 1 KiB pages (small
// files, within the fuzzer's -max_len), then copies one small database of
// every kind of row with each of the values tests/hostile/database_test.cpp
// writes with SQLite and no import would (meta times at ∓2^63, checked
// columns out of range or of another type, a table gone), and small linted
// databases, whole and with their findings or causes damaged. Exits 1 when no
// database could be made; prints how many it made.
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "recorder/store/trace_import.hpp"
#include "recorder/import/trace_source.hpp"
#include "tests/support/packed_activations.hpp"
#include "tests/support/packed_events.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"

namespace {

// A small trace with threads, labels, activations, waits, notifications,
// resolutions (one failed), counters, an idle and a gc.
constexpr const char* kSmallTrace =
    "(skein-trace 1 (process \"seed\"))\n(site 0 \"h.cpp\" 1 \"f\")\n"
    "(spawn 10 1 0 task 0)\n(label 11 1 \"worker\")\n(switch 12 1)\n(counter 13 \"load\" 1)\n"
    "(notify 14 1 0 io)\n(resolve 15 1 1 ok)\n(switch 16 -1)\n"
    "(spawn 17 2 1 task 0)\n(switch 18 2)\n(wait 19 2 1)\n(counter 20 \"load\" 2)\n"
    "(notify 21 2 1 io)\n(resolve 22 2 2 fail \"x\")\n(switch 23 -1)\n(idle 24)\n(gc 25 7)\n"
    "(spawn 26 3 2 bind 0)\n(switch 27 3)\n(read 28 3 2)\n(merge 29 3 1)\n(switch 30 -1)\n(end 40)\n";

bool import(std::string_view text, const std::string& name, const std::string& db) {
  auto source = skein::open_trace_memory(text, name);
  if (!source) return false;
  skein::ImportOptions options;
  options.sync = false;
  options.page_size = 1024;
  return skein::import_source(std::move(source).value(), db, options).ok();
}

// The lints' findings and causes stored, as `skein lint` and `skein why`
// store them.
bool lint(const std::string& db) {
  auto store = skein::TraceStore::open(db);
  if (!store) return false;
  skein::LintOptions options;
  options.keep_transfers = true;
  auto report = skein::lint_store(store.value(), options);
  if (!report) return false;
  return skein::store_lint_report(*store.value().owner(), report.value(), skein::WriteDurability::rebuildable).ok();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

bool edit(const std::string& path, const std::string& sql) {
  // An edit of the records or the activations goes through them as a
  // table (packed_events.hpp, packed_activations.hpp).
  if (sql.find("UPDATE events") != std::string::npos || sql.find("UPDATE activations") != std::string::npos) {
    try {
      if (sql.find("UPDATE events") != std::string::npos) skein::test::edit_events(path, sql);
      else skein::test::edit_activations(path, sql);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  }
  sqlite3* db = nullptr;
  bool ok = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) == SQLITE_OK &&
            sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
  sqlite3_close(db);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fuzz_database_seeds OUT [TRACE...]\n");
    return 2;
  }
  const std::string out = argv[1];
  int made = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string text = read_file(argv[i]);
    made += import(text, argv[i], out + "/" + base_name(argv[i]) + "-" + std::to_string(i) + ".db");
  }
  const std::vector<std::string> edits = {
      "",
      "UPDATE meta SET value = -9223372036854775808 WHERE key = 'first_time';"
      "UPDATE meta SET value = 9223372036854775807 WHERE key = 'end_time'",
      "UPDATE meta SET value = 100 WHERE key = 'end_time'; UPDATE meta SET value = 200 WHERE key = 'first_time'",
      "UPDATE meta SET value = 'soon' WHERE key = 'end_time'",
      "DELETE FROM meta WHERE key IN ('first_time', 'end_time')",
      "UPDATE events SET time = 9223372036854775807 WHERE id = 3",
      "UPDATE events SET actor = -9223372036854775808 WHERE id = 5",
      "UPDATE events SET head = 31 WHERE id = 6",
      "UPDATE events SET value = -1 WHERE head = 11",
      "UPDATE event_blocks SET records = substr(records, 1, 7)",
      "UPDATE event_blocks SET records = CAST(records || x'0d00' AS BLOB)",
      "UPDATE event_blocks SET records = x'ffffffffffffffffffffff'",
      "UPDATE event_blocks SET first_event = 3",
      "UPDATE activations SET end = 9223372036854775807 WHERE id = 1",
      "UPDATE activations SET thread = -9223372036854775808 WHERE id = 2",
      "UPDATE activation_blocks SET activations = substr(activations, 1, 5)",
      "UPDATE meta SET value = value + 1 WHERE key = 'activations'",
      "UPDATE subsecond_bins SET run_ns = -1",
      "UPDATE threads SET parent = -9223372036854775808 WHERE id = 2",
      "UPDATE threads SET first_run = X'00' WHERE id = 1",
      "UPDATE event_blocks SET end = 9223372036854775807 WHERE id = 1",
      "UPDATE events SET time = 4611686018427387903 WHERE id = 3;"
      "UPDATE threads SET parent = 9223372036854775807 WHERE id = 2",
      "DROP TABLE counters",
  };
  for (std::size_t k = 0; k < edits.size(); ++k) {
    const std::string db = out + "/small-" + std::to_string(k) + ".db";
    if (!import(kSmallTrace, "small.sexp", db)) {
      std::fprintf(stderr, "fuzz_database_seeds: the small trace does not import\n");
      return 1;
    }
    if (!edits[k].empty() && !edit(db, edits[k])) {
      std::fprintf(stderr, "fuzz_database_seeds: %s: %s fails\n", db.c_str(), edits[k].c_str());
      return 1;
    }
    ++made;
  }
  // Linted: the findings and the causes stored, whole and damaged.
  const std::vector<std::string> lint_edits = {
      "",
      "UPDATE findings SET message = 999 WHERE id = 1",
      "UPDATE finding_texts SET text = '%s %n %d %0100d'",
      "UPDATE findings SET a1 = -5, a2 = 9223372036854775807",
      "UPDATE transfer_blocks SET verdicts = substr(verdicts, 1, 3)",
      "UPDATE transfer_blocks SET verdicts = CAST(x'030000044000010505' AS BLOB)",
      "UPDATE transfer_blocks SET first_event = first_event + 1",
      "UPDATE transfer_blocks SET verdicts = CAST(verdicts AS TEXT)",
  };
  for (std::size_t k = 0; k < lint_edits.size(); ++k) {
    const std::string db = out + "/linted-" + std::to_string(k) + ".db";
    if (!import(kSmallTrace, "small.sexp", db) || !lint(db)) {
      std::fprintf(stderr, "fuzz_database_seeds: the small trace does not import and lint\n");
      return 1;
    }
    if (!lint_edits[k].empty() && !edit(db, lint_edits[k])) {
      std::fprintf(stderr, "fuzz_database_seeds: %s: %s fails\n", db.c_str(), lint_edits[k].c_str());
      return 1;
    }
    ++made;
  }
  std::printf("fuzz_database_seeds: %d databases in %s\n", made, out.c_str());
  return made > 0 ? 0 : 1;
}
