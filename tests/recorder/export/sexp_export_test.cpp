// sexp_export_test.cpp — recorder/export/sexp_export.hpp: a database back into
// Skein's format. Oracles written out by hand, so that an importer and the
// export sharing one mistake cannot agree with each other: a Skein trace of
// every head imports into the exact events and sites rows of SCHEMA.md's
// column table and exports line for line as it was written; a MirageOS
// S-expression trace and a CTF trace built with ctf_builder.hpp export as
// the exact lines FORMAT.md's mapping tables give (Lwt's switches as
// `switch` or `return`, lwt_switch.hpp; the header's scheduler-thread).
// Round trip (import, export, import again gives the same tables,
// tests/support/store_tables.hpp): on those traces, on the fuzz corpus (the
// project's small traces of the three formats, gzip included) and on
// generated traces. And a row the format cannot carry stops the export with
// the event's id instead of writing a trace that would not read back.
#include <sqlite3.h>

#include <catch2/catch.hpp>

#include "recorder/export/sexp_export.hpp"
#include "recorder/format/trace_writer.hpp"
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
    "(return 49 1)\n"
    "(should-resolve 49 3)\n"
    "(snapshot 49)\n"
    "(drop 49 2 -1)\n"
    "(no-waiter 49 1 3 condition)\n"
    "(queued 49 3 3)\n"
    "(end 50)\n";

// kRecords's events rows, from SCHEMA.md's column table (actor, target,
// value, text by head; heads by the heads table's codes), as query() prints
// them. Event 13's message holds a raw newline, so its row spans two lines.
const std::string kEventRows =
    "1|NULL|0|NULL|NULL|0|NULL\n"
    "2|NULL|0|NULL|NULL|7|NULL\n"
    "3|10|1|0|1|0|task\n"
    "4|11|2|1|NULL|NULL|blkfront.poll \xff\n"
    "5|20|1|0|2|NULL|bind\n"
    "6|20|1|2|3|7|on_success\n"
    "7|21|4|2|1|NULL|NULL\n"
    "8|30|3|-1|NULL|NULL|NULL\n"
    "9|31|10|NULL|NULL|NULL|NULL\n"
    "10|40|6|-1|1|NULL|io\n"
    "11|40|6|1|2|NULL|NULL\n"
    "12|41|3|1|NULL|NULL|NULL\n"
    "13|42|7|1|1|1|Failure \"disk\" \x01\n\n"
    "14|43|5|2|1|NULL|NULL\n"
    "15|44|8|2|3|NULL|NULL\n"
    "16|45|9|NULL|NULL|-3|blkfront.ring\n"
    "17|46|7|-1|3|2|NULL\n"
    "18|46|7|3|2|0|NULL\n"
    "19|46|11|NULL|NULL|100|NULL\n"
    "20|47|12|NULL|NULL|2|NULL\n"
    "21|48|2|0|NULL|NULL|\n"
    "22|49|14|1|NULL|NULL|NULL\n"
    "23|49|15|NULL|3|NULL|NULL\n"
    "24|49|16|NULL|NULL|NULL|NULL\n"
    "25|49|17|-1|2|NULL|NULL\n"
    "26|49|18|1|NULL|3|condition\n"
    "27|49|19|NULL|3|3|NULL\n"
    "28|50|13|NULL|NULL|NULL|NULL\n";

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

TEST_CASE("sexp export: a trace of every head imports as SCHEMA.md's rows and comes back line for line") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const std::string trace =
      "(skein-trace 1 (process \"blockread\") (pid 4242) (mode fast) (origin-unix-ns 1764409200123456789))\n"
      "; a comment, dropped\n" +
      kRecords;
  const auto r = import_text(trace, db);
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  // The import alone, against SCHEMA.md: one row a record, every head.
  CHECK(query(db, "SELECT id, time, head, actor, target, value, text FROM events ORDER BY id") == kEventRows);
  CHECK(query(db, "SELECT count(DISTINCT head) FROM events") == "20\n");
  CHECK(query(db, "SELECT id, file, line, function FROM sites ORDER BY id") ==
        "0|samples/blockread.cpp|41|blkfront_poll\n"
        "7|x \"q\".cpp|0|f\tg\n");
  // The header's options come back in meta's key order; a symbol value as
  // a string (meta keeps the text, not its kind).
  CHECK(export_text(db) ==
        "(skein-trace 1 (mode \"fast\") (origin-unix-ns 1764409200123456789) (pid 4242) (process \"blockread\"))\n" +
            kRecords);
  check_round_trip(db, dir);
}

TEST_CASE("sexp export: MirageOS traces export as FORMAT.md maps them, and round-trip") {
  TempDir dir;
  SECTION("MirageOS S-expressions") {
    // Times count from the first record's, in exact ns (digits below a ns
    // dropped); ops by FORMAT.md's table; Switch by lwt_switch.hpp: the
    // trace's first and the first after a Switch -1 are switches and name
    // the loop's thread, a switch back to it is a switch, any other a return.
    const std::string db = dir.file("m.db");
    const auto r = import_text(
        "((time 1413637708.834171)(op(Creates 0 4 Bind)))\n"
        "((time 1413637708.8341715)(op(Creates 4 5 On_success)))\n"
        "((time 1413637708.834172)(op(Label 4 \"a;b \\\"c\\\"\")))\n"
        "((time 1413637708.834180)(op(Switch 0)))\n"
        "((time 1413637708.834181)(op(Switch 4)))\n"
        "((time 1413637708.834182)(op(Reads 4 0)))\n"
        "((time 1413637708.834183)(op(Switch 0)))\n"
        "((time 1413637708.834190)(op(Switch -1)))\n"
        "((time 1413637708.834191)(op(Switch 5)))\n"
        "((time 1413637708.834192)(op(Switch 0)))\n"
        "((time 1413637708.834193)(op(Switch 5)))\n"
        "((time 1413637708.834195)(op(Becomes 4 5)))\n"
        "((time 1413637708.834196)(op(Creates 0 6)))\n"
        "((time 1413637708.834200)(op(Resolves 0 4 (\"Not_found\"))))\n"
        "((time 1413637708.834201)(op(Resolves 0 6 ())))\n"
        "((time 1413637708.834202)(op(Creates 0 7 Wait)))\n"
        "((time 1413637708.834203)(op(Creates 0 8 Join)))\n"
        "((time 1413637708.834204)(op(Creates 0 9 Pick)))\n"
        "((time 1413637708.834205)(op(Resolves 0 7 None)))\n"
        "((time 1413637708.834206)(op(Resolves 0 8)))\n"
        "((time 1413637708.834207)(op(Resolves 7 9 (Some Exit))))\n"
        "((time 1413637708.834208)(op(Resolves 0 5 Failure)))\n"
        "((time 1413637708.8342089)(op(Gc 0.000001)))\n"
        "((time 1413637708.8343001239)(op(Label 0 main)))\n",
        db, {}, "m.sexp");
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    CHECK(query(db, "SELECT value FROM meta WHERE key = 'format'") == "mirage-sexp\n");
    CHECK(export_text(db) ==
          "(skein-trace 1 (scheduler-thread 0) (source-format \"mirage-sexp\") "
          "(source-origin-ns 1413637708834171000))\n"
          "(spawn 0 4 0 bind)\n"
          "(spawn 500 5 4 on_success)\n"
          "(label 1000 4 \"a;b \\\"c\\\"\")\n"
          "(switch 9000 0)\n"
          "(return 10000 4)\n"
          "(read 11000 4 0)\n"
          "(switch 12000 0)\n"
          "(switch 19000 -1)\n"
          "(switch 20000 5)\n"
          "(return 21000 0)\n"
          "(switch 22000 5)\n"
          "(merge 24000 4 5)\n"
          "(spawn 25000 6 0 task)\n"
          "(resolve 29000 4 0 fail \"Not_found\")\n"
          "(resolve 30000 6 0 ok)\n"
          "(spawn 31000 7 0 wait)\n"
          "(spawn 32000 8 0 join)\n"
          "(spawn 33000 9 0 pick)\n"
          "(resolve 34000 7 0 ok)\n"
          "(resolve 35000 8 0 ok)\n"
          "(resolve 36000 9 7 fail \"Exit\")\n"
          "(resolve 37000 5 0 fail \"Failure\")\n"
          "(gc 37900 1000)\n"
          "(label 129123 0 \"main\")\n");
    check_round_trip(db, dir);
  }
  SECTION("CTF") {
    // Times count from the first event's; thread ids are u64 read as
    // signed; events by FORMAT.md's table, thread types by its list; the
    // counters' running totals; switches as for the S-expressions.
    constexpr std::uint64_t kNobody = ~std::uint64_t{0};  // -1
    test::CtfBuilder b;
    b.packet()
        .creates(1000, 0, 1, 2)
        .creates(1010, 1, 2, 14)
        .creates(1020, 1, 3, 15)
        .creates(1030, 0, 4, 0)
        .label(1100, 1, "main;loop")
        .label(1110, 2, "__should_resolve")
        .switch_(1200, 0)
        .switch_(1210, 1)
        .switch_(1220, 0)
        .switch_(1230, kNobody)
        .switch_(1240, 1)
        .switch_(1250, 0)
        .read(1300, 1, 4)
        .source_event(12, 1310, 1, 4)
        .source_event(10, 1320, 2, 3)
        .source_event(9, 1330, 4, kNobody)
        .source_event(13, 1340, 3, 1)
        .increase(1400, 1, 5, "bytes")
        .increase(1410, 2, -2, "bytes")
        .counter(1420, 1, 100, "ring")
        .increase(1430, 1, 7, "ring")
        .becomes(1500, 2, 3)
        .fulfills(1600, 0, 1)
        .fails(1610, 1, 4, "Not_found");
    b.packet().gc(1700, 250).fulfills(1800, 2, 3);
    const std::string db = dir.file("c.db");
    const auto r = import_text(b.bytes(), db, {}, "c.ctf");
    INFO(r.error.to_string());
    REQUIRE(r.ok());
    CHECK(query(db, "SELECT value FROM meta WHERE key = 'format'") == "mirage-ctf\n");
    CHECK(export_text(db) ==
          "(skein-trace 1 (scheduler-thread 0) (source-format \"mirage-ctf\") (source-origin-ns 1000) "
          "(source-uuid \"05883b8d-521a-487b-b397-456ab150680c\"))\n"
          "(spawn 0 1 0 bind)\n"
          "(spawn 10 2 1 async)\n"
          "(spawn 20 3 1 thread-type-15)\n"
          "(spawn 30 4 0 wait)\n"
          "(label 100 1 \"main;loop\")\n"
          "(should-resolve 110 2)\n"
          "(switch 200 0)\n"
          "(return 210 1)\n"
          "(switch 220 0)\n"
          "(switch 230 -1)\n"
          "(switch 240 1)\n"
          "(return 250 0)\n"
          "(read 300 1 4)\n"
          "(read 310 1 4)\n"
          "(wait 320 2 3)\n"
          "(notify 330 -1 4)\n"
          "(notify 340 1 3)\n"
          "(counter 400 \"bytes\" 5)\n"
          "(counter 410 \"bytes\" 3)\n"
          "(counter 420 \"ring\" 100)\n"
          "(counter 430 \"ring\" 107)\n"
          "(merge 500 2 3)\n"
          "(resolve 600 1 0 ok)\n"
          "(resolve 610 4 1 fail \"Not_found\")\n"
          "(gc 700 250)\n"
          "(resolve 800 3 2 ok)\n");
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
      {"UPDATE events SET actor = NULL WHERE id = 14", "event 14: no reader"},
      {"UPDATE events SET target = NULL WHERE id = 25", "event 25: no thread"},
      {"UPDATE events SET actor = NULL WHERE id = 25", "event 25: no by"},
      {"UPDATE events SET value = 0 WHERE id = 26", "event 26: object 0 (objects are 1 and up)"},
      {"UPDATE events SET text = NULL WHERE id = 26", "event 26: no reason"},
      {"UPDATE events SET text = '7' WHERE id = 26", "event 26: reason '7' is not a symbol"},
      {"UPDATE events SET value = NULL WHERE id = 27", "event 27: no object"},
      {"UPDATE events SET value = -4 WHERE id = 27", "event 27: object -4 (objects are 1 and up)"},
  };
  for (const Damage& d : kDamage) {
    INFO(d.sql);
    TempDir dir;
    const std::string db = dir.file("t.db");
    REQUIRE(import_text("(skein-trace 1)\n" + kRecords, db).ok());
    if (std::string_view(d.sql).find("events") != std::string_view::npos) {
      test::edit_events(db, d.sql);
    } else {
      sqlite3* handle = nullptr;
      REQUIRE(sqlite3_open(db.c_str(), &handle) == SQLITE_OK);
      CHECK(sqlite3_exec(handle, d.sql, nullptr, nullptr, nullptr) == SQLITE_OK);
      sqlite3_close(handle);
    }
    auto store = TraceStore::open(db);
    REQUIRE(store.ok());
    std::string out;
    const auto written = export_sexp(store.value(), string_output(out));
    REQUIRE_FALSE(written.ok());
    CHECK(written.error().to_string() == db + ": " + d.message);
  }
}

TEST_CASE("sexp export: a head no record has is refused where the records are read") {
  // Records are checked as they are decoded (event_block_codec.hpp), so an
  // exporter never sees a head outside the format's.
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(import_text("(skein-trace 1)\n" + kRecords, db).ok());
  test::edit_events(db, "UPDATE events SET head = 31 WHERE id = 9");
  auto store = TraceStore::open(db);
  REQUIRE(store.ok());
  std::string out;
  const auto written = export_sexp(store.value(), string_output(out));
  REQUIRE_FALSE(written.ok());
  CHECK_THAT(written.error().to_string(),
             Catch::StartsWith(db + ": damaged Skein database: event_blocks row 1: byte ") &&
                 Catch::EndsWith(": record head 31 (heads are 0 to 19)"));
}
