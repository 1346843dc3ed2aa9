// sexp_export_test.cpp — recorder/sexp_export.hpp: a database back into
// Skein's format. Golden: a trace of every head comes back line for line.
// Round trip (import, export, import again gives the same tables,
// tests/support/store_tables.hpp): on that trace, on the fuzz corpus (the
// project's small traces of the three formats, gzip included) and on
// generated traces. And a row the format cannot carry stops the export with
// the event's id instead of writing a trace that would not read back.
#include <sqlite3.h>

#include <catch2/catch.hpp>

#include "recorder/sexp_export.hpp"
#include "recorder/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/ctf_builder.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/store_tables.hpp"

using namespace skein;
using skein::test::import_text;
using skein::test::query;
using skein::test::TempDir;
using skein::test::trace_tables_text;

namespace {

// Every head, every optional field present and absent, strings with
// escapes and a byte that is not UTF-8; lines as the writer writes them.
const std::string kRecords =
    "(site 0 \"samples/blockread.cpp\" 41 \"blkfront_poll\")\n"
    "(site 7 \"x \\\"q\\\".cpp\" 0 \"f\\tg\")\n"
    "(spawn 10 1 0 task 0)\n"
    "(label 11 1 \"blkfront.poll \\xff\")\n"
    "(spawn 20 2 0 bind)\n"
    "(spawn 20 3 2 on_success 7)\n"
    "(wait 21 2 1)\n"
    "(switch 30 -1)\n"
    "(idle 31)\n"
    "(notify 40 -1 1 io)\n"
    "(notify 40 1 2)\n"
    "(switch 41 1)\n"
    "(resolve 42 1 1 fail \"Failure \\\"disk\\\" \\x01\\n\")\n"
    "(read 43 2 1)\n"
    "(merge 44 2 3)\n"
    "(counter 45 \"blkfront.ring\" -3)\n"
    "(resolve 46 3 -1 cancel)\n"
    "(resolve 46 2 3 ok)\n"
    "(gc 46 100)\n"
    "(lost 47 2)\n"
    "(label 48 0 \"\")\n"
    "(end 50)\n";

std::string export_text(const std::string& db) {
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  std::string out;
  const auto written = export_sexp(store.value(), string_output(out));
  INFO((written.ok() ? std::string() : written.error().to_string()));
  REQUIRE(written.ok());
  return out;
}

// Imports `trace`, exports, imports the export; both databases' tables.
void check_round_trip(const std::string& first_db, TempDir& dir) {
  const std::string exported = export_text(first_db);
  const std::string second_db = dir.file("again.db");
  const auto again = import_text(exported, second_db, {}, "export.sexp");
  INFO(again.error.to_string());
  REQUIRE(again.ok());
  CHECK(query(second_db, "SELECT value FROM meta WHERE key = 'format'") == "skein\n");
  const std::string before = trace_tables_text(first_db);
  const std::string after = trace_tables_text(second_db);
  CHECK(before == after);
  // Not vacuous: the tables hold the records.
  CHECK(query(first_db, "SELECT count(*) > 0 FROM events") == "1\n");
}

}  // namespace

TEST_CASE("sexp export: a trace of every head comes back line for line") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const std::string trace =
      "(skein-trace 1 (process \"blockread\") (pid 4242) (mode fast) (origin-unix-ns 1764409200123456789))\n"
      "; a comment, dropped\n" +
      kRecords;
  const auto r = import_text(trace, db);
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  // The header's options come back in meta's key order; a symbol value as
  // a string (meta keeps the text, not its kind).
  CHECK(export_text(db) ==
        "(skein-trace 1 (mode \"fast\") (origin-unix-ns 1764409200123456789) (pid 4242) (process \"blockread\"))\n" +
            kRecords);
  check_round_trip(db, dir);
}

TEST_CASE("sexp export: imported MirageOS traces (sexp and CTF) round-trip") {
  TempDir dir;
  SECTION("MirageOS S-expressions") {
    const std::string db = dir.file("m.db");
    const auto r = import_text(
        "((time 1413637708.834171)(op(Creates 0 4 Bind)))\n"
        "((time 1413637708.834172)(op(Label 4 \"a;b \\\"c\\\"\")))\n"
        "((time 1413637708.834180)(op(Switch 4)))\n"
        "((time 1413637708.834190)(op(Reads 4 0)))\n"
        "((time 1413637708.834195)(op(Becomes 4 5)))\n"
        "((time 1413637708.834200)(op(Resolves 0 4 (\"Not_found\"))))\n"
        "((time 1413637708.834300)(op(Gc 0.000001)))\n",
        db, {}, "m.sexp");
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    CHECK(query(db, "SELECT value FROM meta WHERE key = 'format'") == "mirage-sexp\n");
    const std::string text = export_text(db);
    CHECK_THAT(text, Catch::StartsWith("(skein-trace 1 (scheduler-thread 0) (source-format \"mirage-sexp\") "
                                       "(source-origin-ns 1413637708834171000))\n(spawn 0 4 0 bind)\n"));
    check_round_trip(db, dir);
  }
  SECTION("CTF") {
    test::CtfBuilder b;
    b.packet()
        .creates(1000, 0, 1, 2)
        .label(1100, 1, "main;loop")
        .switch_(1200, 1)
        .increase(1300, 1, 5, "bytes")
        .increase(1400, 1, 7, "bytes")
        .fulfills(1500, 0, 1)
        .gc(1600, 250);
    const std::string db = dir.file("c.db");
    const auto r = import_text(b.bytes(), db, {}, "c.ctf");
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    CHECK(query(db, "SELECT value FROM meta WHERE key = 'format'") == "mirage-ctf\n");
    CHECK(query(db, "SELECT count(*) FROM counters") == "2\n");
    check_round_trip(db, dir);
  }
}

TEST_CASE("sexp export: the corpus traces of all three formats round-trip") {
  const char* const kFiles[] = {
      "all_heads.sexp",         "all_heads.sexp.gz",          "extensions.sexp",
      "mirage_ctf/all_events.ctf", "mirage_ctf/all_events.ctf.gz", "mirage_ctf/one_switch.ctf",
      "mirage_sexp/all_ops.sexp",  "mirage_sexp/all_ops.sexp.gz",  "mirage_sexp/old_variant.sexp",
  };
  for (const char* file : kFiles) {
    INFO(file);
    TempDir dir;
    const std::string db = dir.file("corpus.db");
    ImportOptions options;
    options.sync = false;
    const auto r = import_trace(std::string(SKEIN_SOURCE_DIR) + "/tests/fuzz/corpus/" + file, db, options);
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    check_round_trip(db, dir);
  }
}

TEST_CASE("sexp export: generated traces round-trip") {
  for (const std::uint64_t seed : {1, 2, 3}) {
    INFO("seed " << seed);
    samples::SyntheticOptions options;
    options.records = 30'000;
    options.seed = seed;
    std::string trace;
    auto writer = TraceWriter(string_output(trace));
    writer.write_header(samples::synthetic_header(options));
    for (const Record& record : samples::synthetic_trace(options)) writer.write(record);
    REQUIRE(writer.finish().ok());
    TempDir dir;
    const std::string db = dir.file("g.db");
    const auto r = import_text(trace, db);
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    CHECK(query(db, "SELECT count(*) >= 30000 FROM events") == "1\n");
    check_round_trip(db, dir);
  }
}

TEST_CASE("sexp export: a row the format cannot carry names its event") {
  struct Damage {
    const char* sql;
    const char* message;
  };
  const Damage kDamage[] = {
      {"UPDATE events SET text = 'two words' WHERE id = 3", "event 3: kind 'two words' is not a symbol"},
      {"UPDATE events SET time = NULL WHERE id = 4", "event 4: a label record without a time"},
      {"UPDATE events SET value = 5 WHERE id = 13", "event 13: outcome 5 (0 ok, 1 fail, 2 cancel)"},
      {"DELETE FROM sites WHERE id = 7", "event 2: site 7 has no row in sites"},
      {"UPDATE events SET head = 99 WHERE id = 9", "event 9: head 99 is not a record head (0 to 15)"},
      {"UPDATE events SET actor = NULL WHERE id = 14", "event 14: no reader"},
  };
  for (const Damage& d : kDamage) {
    INFO(d.sql);
    TempDir dir;
    const std::string db = dir.file("t.db");
    REQUIRE(import_text("(skein-trace 1)\n" + kRecords, db).ok());
    sqlite3* handle = nullptr;
    REQUIRE(sqlite3_open(db.c_str(), &handle) == SQLITE_OK);
    CHECK(sqlite3_exec(handle, d.sql, nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(handle);
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    std::string out;
    const auto written = export_sexp(store.value(), string_output(out));
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().to_string() == db + ": " + d.message);
  }
}
