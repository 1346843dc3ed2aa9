// database_test.cpp — trace databases holding what no import writes: meta
// times at ∓2^63, each checked column out of range or of another type, and
// random damage. The store's open refuses values out of range with the
// table, row and column; whatever it lets through, every command and the
// viewer's core handle without a signal, in bounded memory. And the
// databases of the corpus's traces as the fuzz targets make and read them
// (tests/fuzz/trace_database_fuzzer.cpp, viewer_core_fuzzer.cpp): 1 KiB
// pages, the core, the lints with their verdicts stored, `skein why`, and
// a frame painted; under the asan preset a signed overflow there aborts.
#include <catch2/catch.hpp>

#include <random>

#include "tests/hostile/hostile_inputs.hpp"
#include "tests/support/packed_activations.hpp"
#include "viewer/analysis/anomaly_table.hpp"
#include "viewer/analysis/lint_run.hpp"
#include "viewer/analysis/why_answer.hpp"

namespace skein::test {
namespace {

// A small valid trace with every kind of row: threads, activations,
// events of every head the viewer reads, counters, a gc and an idle.
std::string small_trace(int threads) {
  std::string t = "(skein-trace 1 (process \"hostile\"))\n(site 0 \"h.cpp\" 1 \"f\")\n";
  TimeNs time = 10;
  for (int i = 1; i <= threads; ++i) {
    const std::string id = std::to_string(i);
    const std::string parent = std::to_string(i / 2);
    t += "(spawn " + std::to_string(time++) + " " + id + " " + parent + " task 0)\n";
    t += "(label " + std::to_string(time++) + " " + id + " \"worker " + std::to_string(i % 3) + "\")\n";
    t += "(switch " + std::to_string(time++) + " " + id + ")\n";
    t += "(counter " + std::to_string(time++) + " \"load\" " + std::to_string(i) + ")\n";
    if (i > 1) t += "(wait " + std::to_string(time++) + " " + id + " " + std::to_string(i - 1) + ")\n";
    t += "(notify " + std::to_string(time++) + " " + id + " " + parent + " io)\n";
    t += "(resolve " + std::to_string(time++) + " " + id + " " + id + (i % 4 == 0 ? " fail \"x\"" : " ok") + ")\n";
    t += "(switch " + std::to_string(time++) + " -1)\n";
    if (i % 5 == 0) {
      t += "(idle " + std::to_string(time++) + ")\n";
      t += "(gc " + std::to_string(time++) + " 7)\n";
    }
  }
  t += "(end " + std::to_string(time) + ")\n";
  return t;
}

std::string make_database(const TempDir& dir, const std::string& name, int threads = 6) {
  const std::string db = dir.file(name);
  const ImportResult r = import_text(small_trace(threads), db);
  REQUIRE(r.ok());
  return db;
}

// `skein render` and `skein export --format chrome` of `db` succeed, and
// say nothing of damage.
void renders_and_exports_clean(const TempDir& dir, const std::string& db) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"render", "-o", dir.file("e.png"), db}, {"export", db, "--format", "chrome", "-o", dir.file("e.json")}}) {
    INFO(args[0]);
    const ProcessResult run = run_skein(args);
    CHECK(run.err.find("damaged") == std::string::npos);
    CHECK(run.exit_code == 0);
  }
}

std::string open_error(const std::string& db) {
  auto store = TraceStore::open(db);
  return store.ok() ? std::string() : store.error().to_string();
}

}  // namespace

TEST_CASE("hostile: meta first/end at ∓2^63", "[hostile]") {
  limit_memory();
  TempDir dir;
  const std::string db = make_database(dir, "meta.db");
  REQUIRE(edit_database(db, "UPDATE meta SET value = -9223372036854775808 WHERE key = 'first_time';"
                            "UPDATE meta SET value = 9223372036854775807 WHERE key = 'end_time'")
              .empty());
  CHECK(open_error(db) ==
        db + ": damaged Skein database: meta first_time is -9223372036854775808 (times are 0 to 4611686018427387903 ns)");
  for (const CommandRun& run : run_every_command(db, dir)) {
    INFO(run.command);
    CHECK(misbehaviour(run.result, db) == "");
    if (run.command.rfind("check", 0) != 0 && run.command.rfind("import", 0) != 0) CHECK(run.result.exit_code == 2);
  }
  const ProcessResult render = run_skein({"render", "-o", dir.file("m.png"), db});
  CHECK(render.err.find(db + ": damaged Skein database: meta first_time is -9223372036854775808") != std::string::npos);

  // Each time alone, the other way round, out of order, or not an integer.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"UPDATE meta SET value = 9223372036854775807 WHERE key = 'end_time'",
       "meta end_time is 9223372036854775807 (times are 0 to 4611686018427387903 ns)"},
      {"UPDATE meta SET value = 9223372036854775807 WHERE key = 'first_time';"
       "UPDATE meta SET value = -9223372036854775808 WHERE key = 'end_time'",
       "meta first_time is 9223372036854775807 (times are 0 to 4611686018427387903 ns)"},
      {"UPDATE meta SET value = 4611686018427387904 WHERE key = 'first_time'",
       "meta first_time is 4611686018427387904 (times are 0 to 4611686018427387903 ns)"},
      {"UPDATE meta SET value = 100 WHERE key = 'end_time'; UPDATE meta SET value = 200 WHERE key = 'first_time'",
       "meta first_time 200 is after end_time 100"},
      {"UPDATE meta SET value = 'soon' WHERE key = 'end_time'",
       "meta end_time is 'soon' (times are 0 to 4611686018427387903 ns)"},
      {"UPDATE meta SET value = 1e300 WHERE key = 'end_time'",
       "meta end_time is 1.0e+300 (times are 0 to 4611686018427387903 ns)"},
  };
  for (const auto& [sql, message] : cases) {
    INFO(sql);
    const std::string other = make_database(dir, "meta-case.db");
    REQUIRE(edit_database(other, sql).empty());
    CHECK(open_error(other) == other + ": damaged Skein database: " + message);
  }
  // Without first_time and end_time (a trace with no timed record) it opens.
  const std::string untimed = make_database(dir, "untimed.db");
  REQUIRE(edit_database(untimed, "DELETE FROM meta WHERE key IN ('first_time', 'end_time')").empty());
  CHECK(open_error(untimed).empty());

  // The viewer's core given such times directly (no store would): every
  // picture of the trace holds them to the limits.
  TimelineData d;
  d.first_time = kMin;
  d.end_time = kMax;
  const ActivityOverview o = ActivityOverview::build(d);
  CHECK(o.bins() <= ActivityOverview::kMaxBins);
  (void)o.columns(1600);
  const SubsecondHeatmap h = SubsecondHeatmap::build(d);
  CHECK(static_cast<std::size_t>(h.columns()) * static_cast<std::size_t>(h.rows()) <= SubsecondHeatmap::kMaxCells);
  (void)h.caption();
  TimelineViewState view;
  view.fit(d, 1600);
  (void)build_flame_graph(d, d.first_time, d.end_time);
}

TEST_CASE("hostile: a value out of range in any checked column is refused where it is read", "[hostile]") {
  TempDir dir;
  struct Case {
    std::string sql;
    std::string message;  // after "DB: damaged Skein database: "
    bool exported;        // read by `skein export --format chrome` too (threads and activations)
  };
  const std::string times = "(times are 0 to 4611686018427387903 ns)";
  const std::string ids = "(thread ids are -9223372036854775807 to 9223372036854775807)";
  // Where the counter sample of value 2 is.
  const std::string probe = make_database(dir, "probe.db");
  std::string counter_event = query(probe, "SELECT event FROM counters WHERE value = 2");
  REQUIRE(counter_event.size() > 1);
  counter_event.pop_back();
  const std::vector<Case> cases = {
      // A real that is an integer is stored as one (INTEGER affinity); these
      // stay reals.
      {"UPDATE threads SET id = -9223372036854775808 WHERE id = 3",
       "threads row -9223372036854775808: id is -9223372036854775808 " + ids, true},
      {"UPDATE threads SET parent = -9223372036854775808 WHERE id = 2", "threads row 2: parent is -9223372036854775808 " + ids,
       true},
      {"UPDATE threads SET merged_into = -9223372036854775808 WHERE id = 2",
       "threads row 2: merged_into is -9223372036854775808 " + ids, true},
      {"UPDATE threads SET parent = -1e19 WHERE id = 2", "threads row 2: parent is -1.0e+19 " + ids, true},
      {"UPDATE threads SET created = -5 WHERE id = 1", "threads row 1: created is -5 " + times, true},
      {"UPDATE threads SET resolved = 9223372036854775807 WHERE id = 4", "threads row 4: resolved is 9223372036854775807 " + times,
       true},
      {"UPDATE threads SET run_time = 4611686018427387904 WHERE id = 4", "threads row 4: run_time is 4611686018427387904 " + times,
       true},
      {"UPDATE threads SET first_run = X'00' WHERE id = 1", "threads row 1: first_run is X'00' " + times, true},
      {"UPDATE threads SET first_run = 'soon' WHERE id = 1", "threads row 1: first_run is 'soon' " + times, true},
      {"UPDATE counters SET time = 9223372036854775807 WHERE value = 2",
       "counter 'load' at event " + counter_event + ": time is 9223372036854775807 " + times, false},
      {"INSERT INTO thread_labels VALUES ('x', 0, 'a'), ('x', 1, 'b')",
       "thread_labels row (thread 'x', position 0): thread is 'x' " + ids, false},
  };
  for (const Case& c : cases) {
    INFO(c.sql);
    const std::string db = make_database(dir, "column.db");
    REQUIRE(edit_database(db, c.sql).empty());
    // Opening reads no row of these tables: the database opens.
    CHECK(open_error(db).empty());
    std::vector<std::vector<std::string>> commands = {{"render", "-o", dir.file("c.png"), db}};
    if (c.exported) commands.push_back({"export", db, "--format", "chrome", "-o", dir.file("c.json")});
    for (const std::vector<std::string>& args : commands) {
      INFO(args[0]);
      const ProcessResult run = run_skein(args);
      // export's 1 is a record it cannot write (export_command.cpp); render
      // stops at a database it cannot read.
      CHECK(run.exit_code == (args[0] == "export" ? 1 : 2));
      CHECK(run.err.find(db + ": damaged Skein database: " + c.message) != std::string::npos);
    }
  }
  // The limits themselves pass, as integers and as reals.
  const std::string db = make_database(dir, "edges.db");
  REQUIRE(edit_database(db, "UPDATE threads SET parent = 9223372036854775807 WHERE id = 2;"
                            "UPDATE threads SET parent = 1.5 WHERE id = 3")
              .empty());
  CHECK(open_error(db).empty());
  renders_and_exports_clean(dir, db);
  // A value no command computes with: event_blocks.end only picks blocks.
  const std::string unread = make_database(dir, "unread.db");
  REQUIRE(edit_database(unread, "UPDATE event_blocks SET end = 9223372036854775807 WHERE id = 1").empty());
  const ProcessResult render = run_skein({"render", "-o", dir.file("u.png"), unread});
  CHECK(render.exit_code == 0);
  CHECK(render.err.find("damaged") == std::string::npos);
}

TEST_CASE("hostile: a damaged activation is refused where it is read, by every command that reads it", "[hostile]") {
  TempDir dir;
  struct Case {
    std::string sql;  // on the activations as table `activations`, or on the database itself
    bool on_activations;
    std::string message;  // after "DB: damaged Skein database: "
  };
  const std::string probe = make_database(dir, "probe.db");
  REQUIRE(query(probe, "SELECT count(*) FROM activation_blocks") == "1\n");
  std::string count = query(probe, "SELECT value FROM meta WHERE key = 'activations'");
  REQUIRE(count.size() > 1);
  count.pop_back();
  std::string length = query(probe, "SELECT length(activations) FROM activation_blocks");
  REQUIRE(length.size() > 1);
  length.pop_back();
  // A count one past the stored ones puts the block's end one further.
  const std::string one_more = std::to_string(std::stoll(count) + 1);
  const std::string row = "activation_blocks row 1: ";
  const std::vector<Case> cases = {
      // Activation 1's four fields (event 2, thread 0, start 10 and a
      // short run) take a byte each, and activation 2's event one more.
      {"UPDATE activations SET thread = -9223372036854775808 WHERE id = 2", true,
       row + "byte 5: thread id -9223372036854775808, which no record may name"},
      {"UPDATE activations SET end = 9223372036854775807 WHERE id = 1", true,
       row + "byte 3: an end outside 0 to 4611686018427387903 ns"},
      {"UPDATE activations SET start = -1 WHERE id = 1", true, row + "byte 2: a start outside 0 to 4611686018427387903 ns"},
      {"UPDATE activations SET event = 0 WHERE id = 1", true, row + "byte 0: event id 0 (ids start at 1)"},
      {"UPDATE activation_blocks SET activations = substr(activations, 1, 2)", false,
       row + "byte 2: the activations end in the middle of a number"},
      {"UPDATE activation_blocks SET activations = CAST(activations || x'0000' AS BLOB)", false,
       row + "byte " + length + ": 2 bytes after its last activation"},
      {"UPDATE activation_blocks SET activations = CAST(activations AS TEXT)", false,
       row + "not two integers and a blob"},
      {"UPDATE activation_blocks SET first_activation = 2", false,
       row + "byte 0: its first_activation 2 and last_activation " + count + " are not the block's"},
      {"DELETE FROM activation_blocks", false,
       row + "missing, though meta counts " + count + " activations and it holds those from 1"},
      {"UPDATE meta SET value = " + one_more + " WHERE key = 'activations'", false,
       row + "ends at activation " + count + ", where meta's count of " + one_more + " puts its end at " + one_more},
      {"UPDATE meta SET value = 'many' WHERE key = 'activations'", false,
       "meta's activations is not a count of activations"},
  };
  for (const Case& c : cases) {
    INFO(c.sql);
    // The timeline's load takes the activations, placed, from row_spans
    // when it can stand for them (timeline_data.cpp): render reads the
    // activations only where there is none.
    const std::string db = make_database(dir, "activation.db");
    REQUIRE(edit_database(db, "DROP TABLE row_spans").empty());
    if (c.on_activations) test::edit_activations(db, c.sql);
    else REQUIRE(edit_database(db, c.sql).empty());
    // Opening reads no activation: the database opens.
    CHECK(open_error(db).empty());
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"render", "-o", dir.file("a.png"), db}, {"export", db, "--format", "chrome", "-o", dir.file("a.json")}}) {
      INFO(args[0]);
      const ProcessResult run = run_skein(args);
      // export's 1 is a record it cannot write (export_command.cpp); render
      // stops at a database it cannot read.
      CHECK(run.exit_code == (args[0] == "export" ? 1 : 2));
      CHECK(run.err.find(db + ": damaged Skein database: " + c.message) != std::string::npos);
    }
  }
  // The limits themselves pass: a start of 0, an end of kMaxTime.
  const std::string db = make_database(dir, "edges.db");
  REQUIRE(edit_database(db, "DROP TABLE row_spans").empty());
  test::edit_activations(db, "UPDATE activations SET start = 0 WHERE id = 1;"
                             "UPDATE activations SET \"end\" = 4611686018427387903 WHERE id = 2");
  renders_and_exports_clean(dir, db);
}

TEST_CASE("hostile: a damaged record is refused where it is read, by every command that reads it", "[hostile]") {
  TempDir dir;
  struct Case {
    std::string sql;     // on the records as table `events`, or on event_blocks itself
    bool on_records;
    std::string message;  // after "DB: damaged Skein database: event_blocks row N: "
  };
  const std::string gc_row = [&] {
    std::string row = query(make_database(dir, "probe.db"), "SELECT id FROM events WHERE head = 11");
    REQUIRE(row.size() > 1);
    row.pop_back();
    return row;
  }();
  const std::vector<Case> cases = {
      {"UPDATE events SET time = 9223372036854775807 WHERE id = 3", true, "a time outside 0 to 4611686018427387903 ns"},
      {"UPDATE events SET time = -1 WHERE id = 4", true, "a time outside 0 to 4611686018427387903 ns"},
      {"UPDATE events SET actor = -9223372036854775808 WHERE id = 5", true,
       "thread id -9223372036854775808, which no record may name"},
      {"UPDATE events SET head = 31 WHERE id = 6", true, "record head 31 (heads are 0 to 19)"},
      {"UPDATE events SET value = 9223372036854775807 WHERE id = " + gc_row, true,
       "gc duration 9223372036854775807 (gc durations are 0 to 4611686018427387903 ns)"},
      {"UPDATE event_blocks SET records = substr(records, 1, 2)", false, "the records end in the middle of a number"},
      {"UPDATE event_blocks SET records = CAST(records || x'0d' AS BLOB), last_event = last_event + 1", false,
       "the records end in the middle of one"},
      {"UPDATE event_blocks SET records = CAST(records || x'0d00' AS BLOB)", false, "2 bytes after its last record"},
      {"UPDATE event_blocks SET records = CAST(records AS TEXT)", false, "records is not a blob"},
      {"UPDATE event_blocks SET first_event = 2", false, "first_event 2, expected 1"},
  };
  for (const Case& c : cases) {
    INFO(c.sql);
    const std::string db = make_database(dir, "record.db");
    if (c.on_records) test::edit_events(db, c.sql);
    else REQUIRE(edit_database(db, c.sql).empty());
    // Opening reads no record: the database opens.
    CHECK(open_error(db).empty());
    const std::string prefix = db + ": damaged Skein database: event_blocks row 1: ";
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"render", "-o", dir.file("c.png"), db}, {"lint", db}, {"export", db, "--format", "sexp", "-o", dir.file("c.sexp")}}) {
      INFO(args[0]);
      const ProcessResult run = run_skein(args);
      // export's 1 is a record it cannot write (export_command.cpp); the
      // others stop at a database they cannot read.
      CHECK(run.exit_code == (args[0] == "export" ? 1 : 2));
      CHECK(run.err.find(prefix) != std::string::npos);
      CHECK(run.err.find(c.message) != std::string::npos);
    }
  }
  // The limits themselves pass.
  const std::string db = make_database(dir, "edges.db");
  test::edit_events(db, "UPDATE events SET time = 4611686018427387903 WHERE id = 3;"
                        "UPDATE events SET actor = -9223372036854775807 WHERE id = 5;"
                        "UPDATE events SET head = 19 WHERE id = 6");
  const ProcessResult lint = run_skein({"lint", db});
  CHECK(lint.err.find("damaged") == std::string::npos);
  CHECK(lint.exit_code <= 1);
}

TEST_CASE("hostile: a block of records missing or out of place is refused", "[hostile]") {
  TempDir dir;
  // Over 1,024 records: two blocks.
  const std::string base = make_database(dir, "two.db", 200);
  REQUIRE(query(base, "SELECT count(*) FROM event_blocks") == "2\n");
  struct Case {
    std::string sql;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"DELETE FROM event_blocks WHERE id = 1", "event_blocks row 2 comes where row 1 should"},
      {"UPDATE event_blocks SET records = x'0d000d00', last_event = 2 WHERE id = 1",
       "event_blocks row 2 follows a block that is not full"},
  };
  for (const Case& c : cases) {
    INFO(c.sql);
    const std::string db = dir.file("blocks.db");
    write_file(db, read_text(base));
    REQUIRE(edit_database(db, c.sql).empty());
    const ProcessResult run = run_skein({"lint", db});
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(db + ": damaged Skein database: " + c.message) != std::string::npos);
  }
}

TEST_CASE("hostile: damaged stored causes stop `skein why` with the row and byte, and a damaged finding is skipped",
          "[hostile]") {
  TempDir dir;
  const std::string base = make_database(dir, "linted.db");
  // `skein why` stores the causes, and `skein lint` the findings.
  REQUIRE(run_skein({"lint", base}).exit_code <= 1);
  const ProcessResult first = run_skein({"why", "--thread", "3", base});
  INFO(first.err);
  REQUIRE(first.exit_code <= 1);  // 0 a root, 1 no recorded cause
  REQUIRE(query(base, "SELECT count(*) > 0 FROM transfer_blocks") == "1\n");
  struct Case {
    std::string sql;
    std::string message;  // after "DB: damaged Skein database: transfer_blocks row (grp G, first_event E): "
  };
  const std::vector<Case> cases = {
      {"UPDATE transfer_blocks SET verdicts = CAST(x'03000004' AS BLOB)", "byte 0: a kind of 3"},
      {"UPDATE transfer_blocks SET verdicts = CAST(x'00ff0004' AS BLOB)", "byte 1: a cause past 15"},
      {"UPDATE transfer_blocks SET verdicts = substr(verdicts, 1, 3)",
       "byte 3: the verdicts end in the middle of a number"},
      {"UPDATE transfer_blocks SET verdicts = CAST(verdicts AS TEXT)", "no blob"},
  };
  for (const Case& c : cases) {
    INFO(c.sql);
    const std::string db = dir.file("causes.db");
    write_file(db, read_text(base));
    REQUIRE(edit_database(db, c.sql).empty());
    const ProcessResult run = run_skein({"why", "--thread", "3", db});
    CHECK(run.exit_code == 2);
    CHECK(run.err.find(db + ": damaged Skein database: transfer_blocks row (grp ") != std::string::npos);
    CHECK(run.err.find(c.message) != std::string::npos);
  }
  // A finding naming a text that is not there is left out of what is read;
  // the others are still shown.
  const std::string db = dir.file("findings.db");
  write_file(db, read_text(base));
  const std::string findings = query(db, "SELECT count(*) FROM findings");
  REQUIRE(std::stoi(findings) >= 2);
  REQUIRE(edit_database(db, "UPDATE findings SET message = 999999 WHERE id = 1").empty());
  auto opened = SqliteDatabase::open_untrusted(db);
  REQUIRE(opened.ok());
  CHECK(read_stored_findings(opened.value()).size() == static_cast<std::size_t>(std::stoi(findings) - 1));
}

TEST_CASE("hostile: randomly damaged databases", "[hostile]") {
  limit_memory();
  TempDir dir;
  const std::string original = read_text(make_database(dir, "original.db", 40));
  REQUIRE(original.size() > 4096);
  std::mt19937_64 rng(20141018);
  int opened = 0, refused = 0, loaded = 0;
  constexpr int kDatabases = 800;
  for (int n = 0; n < kDatabases; ++n) {
    std::string bytes = original;
    // A few bytes of a page past the header, as disks and truncated
    // copies damage a file; one in eight gets a whole run of random bytes.
    const int flips = n % 8 == 0 ? 64 : 1 + static_cast<int>(rng() % 8);
    const std::size_t at = 100 + rng() % (bytes.size() - 200);
    for (int k = 0; k < flips; ++k)
      bytes[(at + static_cast<std::size_t>(k) * (n % 8 == 0 ? 1 : 1 + rng() % 4096)) % bytes.size()] =
          static_cast<char>(rng());
    const std::string path = dir.file("damaged.db");
    write_file(path, bytes);
    INFO("database " << n);
    auto store = TraceStore::open(path);
    if (!store) {
      ++refused;
      continue;
    }
    ++opened;
    const CoreRun core = run_viewer_core(store.value());
    if (core.error.empty()) ++loaded;
    CHECK(core.overview_bins <= ActivityOverview::kMaxBins);
    CHECK(core.heatmap_cells <= SubsecondHeatmap::kMaxCells);
    CHECK(core.dense_index <= 4 * core.threads + 64);
    (void)store.value().threads();
    LintOptions options;
    (void)lint_store(store.value(), options);
    // One in twenty through `skein render` as well, under its memory limit.
    if (n % 20 == 0) {
      const ProcessResult render = run_skein({"render", "-o", dir.file("damaged.png"), path});
      CHECK(misbehaviour(render, path) == "");
    }
  }
  CHECK(opened + refused == kDatabases);
  // Most damage lands in pages the checks or SQLite notice, but not all.
  CHECK(opened > 0);
  CHECK(refused > 0);
  WARN("damaged databases: " << refused << " refused at open, " << opened << " opened, " << loaded << " loaded");
}

TEST_CASE("hostile: the corpus's databases through the fuzz targets' paths", "[hostile]") {
  // Found by fuzzing: thread ids near 2^63 overflowed the lints' thread
  // table as it grew (ThreadTable::grow, `skein why`), and counter values
  // from INT64_MIN to INT64_MAX the counter lane's span (`skein render`).
  limit_memory();
  int imported = 0;
  for (const std::string& name : corpus_files()) {
    INFO(name);
    TempDir dir;
    const std::string db = dir.file("fuzz.db");
    ImportOptions options;
    options.page_size = 1024;
    if (!import_text(read_text(corpus_path(name)), db, options, name).ok()) continue;
    ++imported;
    {
      auto store = TraceStore::open(db);
      REQUIRE(store.ok());
      const CoreRun core = run_viewer_core(store.value());
      CHECK(core.error.empty());
      LintOptions lint;
      lint.keep_transfers = true;
      auto report = lint_store(store.value(), lint);
      REQUIRE(report.ok());
      std::vector<ControlTransfer> transfers = report.value().transfers;
      CHECK(store_lint_report(*store.value().owner(), report.value(), WriteDurability::rebuildable).ok());
      CHECK(store_transfers(*store.value().owner(), std::move(transfers), WriteDurability::rebuildable).ok());
    }
    auto linted = TraceStore::open(db);
    REQUIRE(linted.ok());
    auto why = WhyEngine::open(linted.value());
    REQUIRE(why.ok());
    auto threads = linted.value().threads();
    REQUIRE(threads.ok());
    for (const StoredThread& t : threads.value()) {
      WhyQuestion question;
      question.thread = t.id;
      (void)why.value().answer(question, 64);
    }
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"why", "--thread", "1", db}, {"lint", "--no-store", db},
          {"render", "-o", dir.file("f.png"), "--width", "200", "--height", "150", db}}) {
      const ProcessResult r = run_skein(args);
      INFO(args[0] << "; stderr: " << r.err);
      CHECK(misbehaviour(r, db) == "");
      if (args[0] == "render") CHECK(r.exit_code == 0);
    }
  }
  // The valid Skein traces and the MirageOS ones that import.
  CHECK(imported >= 5);
}

}  // namespace skein::test
