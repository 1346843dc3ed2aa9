// store_import_test.cpp — golden tests of `skein import` (trace_import.hpp):
// for each format, a small trace written here, a SQL query, and the exact
// table expected, computed by hand from SCHEMA.md's rules. Also: every
// database passes integrity_check and rtreecheck, and a failed import
// leaves the old database or none.
#include <zlib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <algorithm>

#include "samples/synthetic/synthetic_trace.hpp"
#include "recorder/store/store_schema.hpp"
#include "recorder/store/trace_import.hpp"
#include "tests/support/ctf_builder.hpp"
#include "tests/support/store_query.hpp"

using namespace skein;
using skein::test::query;
using skein::test::TempDir;

namespace {

// FORMAT.md's small example, event ids in the comments.
const std::string kSkeinTrace =
    "(skein-trace 1 (process \"blockread\") (pid 4242) (origin-unix-ns 1764409200123456789))\n"
    "(site 0 \"samples/blockread/blockread.cpp\" 41 \"blkfront_poll\")\n"  // 1
    "(spawn 1200 1 0 task 0)\n"                                           // 2
    "(label 1250 1 \"blkfront.poll\")\n"                                  // 3
    "(spawn 1300 2 0 bind)\n"                                             // 4
    "(wait 1320 2 1)                  ; 2 waits for 1\n"                  // 5
    "(switch 1400 -1)\n"                                                  // 6
    "(idle 1410)\n"                                                       // 7
    "(notify 52000 -1 1 io)\n"                                            // 8
    "(switch 52010 1)\n"                                                  // 9
    "(resolve 52100 1 1 ok)\n"                                            // 10
    "(read 52120 2 1)\n"                                                  // 11
    "(resolve 52200 2 2 fail \"Failure \\\"short read\\\"\")\n"           // 12
    "(end 60000)\n";                                                      // 13

// Checks what every database must pass.
void check_sound(const std::string& db) {
  CHECK(query(db, "PRAGMA integrity_check") == "ok\n");
  CHECK(query(db, "SELECT rtreecheck('thread_spans')") == "ok\n");
  CHECK(query(db, "PRAGMA user_version") == std::to_string(kStoreSchemaVersion) + "\n");
}

}  // namespace

TEST_CASE("import: a Skein trace gives the hand-computed tables") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const ImportResult r = test::import_text(kSkeinTrace, db);
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  CHECK(r.report.format == "skein");
  CHECK(r.report.records == 13);
  CHECK(r.report.threads == 3);
  CHECK(r.report.warning_count == 0);
  check_sound(db);

  CHECK(query(db, "SELECT * FROM events ORDER BY id") ==
        "1|NULL|0|NULL|NULL|0|NULL\n"
        "2|1200|1|0|1|0|task\n"
        "3|1250|2|1|NULL|NULL|blkfront.poll\n"
        "4|1300|1|0|2|NULL|bind\n"
        "5|1320|4|2|1|NULL|NULL\n"
        "6|1400|3|-1|NULL|NULL|NULL\n"
        "7|1410|10|NULL|NULL|NULL|NULL\n"
        "8|52000|6|-1|1|NULL|io\n"
        "9|52010|3|1|NULL|NULL|NULL\n"
        "10|52100|7|1|1|0|NULL\n"
        "11|52120|5|2|1|NULL|NULL\n"
        "12|52200|7|2|2|1|Failure \"short read\"\n"
        "13|60000|13|NULL|NULL|NULL|NULL\n");
  // Thread 0 runs from its spawn of 1 until 2 waits (120 ns); 2 runs until
  // the switch to -1 (80), then from its read until the end (7880); 1 runs
  // from its switch until 2's read (110).
  CHECK(query(db, "SELECT * FROM threads ORDER BY id") ==
        "0|NULL|NULL|NULL|NULL|1200|1200|NULL|NULL|NULL|NULL|120|1|2|4|1|1\n"
        "1|0|task|0|blkfront.poll|1200|52010|52100|ok|NULL|NULL|110|0|2|11|3|3\n"
        "2|0|bind|NULL|NULL|1300|1320|52200|fail|Failure \"short read\"|NULL|7960|0|4|12|2|4\n");
  CHECK(query(db, "SELECT * FROM activations ORDER BY id") ==
        "1|2|0|1200|1320\n"
        "2|5|2|1320|1400\n"
        "3|9|1|52010|52120\n"
        "4|11|2|52120|60000\n");
  // The causal edges (spawn, wait, read, notify, resolve, merge) and the
  // labels are records (SCHEMA.md, "Records").
  CHECK(query(db, "SELECT id, time, head, actor, target FROM events WHERE head IN (1, 4, 5, 6, 7, 8) ORDER BY id") ==
        "2|1200|1|0|1\n"
        "4|1300|1|0|2\n"
        "5|1320|4|2|1\n"
        "8|52000|6|-1|1\n"
        "10|52100|7|1|1\n"
        "11|52120|5|2|1\n"
        "12|52200|7|2|2\n");
  CHECK(query(db, "SELECT id, actor, time, text FROM events WHERE head = 2") == "3|1|1250|blkfront.poll\n");
  CHECK(query(db, "SELECT * FROM sites") == "0|samples/blockread/blockread.cpp|41|blkfront_poll\n");
  CHECK(query(db, "SELECT id, first_event, last_event, start, end, first_activation, last_activation, "
                  "typeof(records) FROM event_blocks") == "1|1|13|1200|60000|1|4|blob\n");
  CHECK(query(db, "SELECT * FROM counters") == "");
  CHECK(query(db, "SELECT * FROM warnings") == "");
  // The R*Tree: created to resolved, the pending main thread to the end.
  CHECK(query(db, "SELECT id, start, end FROM thread_spans ORDER BY id") ==
        "0|1200.0|60000.0\n1|1200.0|52100.0\n2|1300.0|52200.0\n");
  CHECK(query(db, "SELECT name, records FROM heads WHERE records > 0 ORDER BY id") ==
        "site|1\nspawn|2\nlabel|1\nswitch|2\nwait|1\nread|1\nnotify|1\nresolve|2\nidle|1\nend|1\n");
  // The three threads' lives overlap (1300 to 52100 at least) and none
  // merges, so no two share a row: three rows. No gc record: 0.
  // The trace spans 60000 - 1200 = 58800 ns: the run time's bins are
  // ceil(58800 / 65536) = 1 ns each, and the rows' spans are cut from 58800.
  CHECK(query(db, "SELECT key, value FROM meta WHERE key NOT LIKE 'warnings.%' ORDER BY key") ==
        "activations|4\n"  // the four rows of activations above
        "activity_bin_ns|1\n"
        "edge_bins_origin|1200\n"
        "end_time|60000\n"
        "ended|1\n"
        "first_time|1200\n"
        "format|skein\n"
        "header.origin-unix-ns|1764409200123456789\n"
        "header.pid|4242\n"
        "header.process|blockread\n"
        "header.version|1\n"
        "layout_rows|3\n"
        "longest_gc|0\n"
        "lost_records|0\n"
        "lost_records_saturated|0\n"
        "records|13\n"
        "row_spans_placed|5\n"
        "row_spans_span|58800\n"
        "source|t.sexp\n"
        // The span, 58,800 ns, holds 10 µs five times and 100 µs not: the
        // heat map's columns are 10 µs, cut into 50 cells of 200 ns.
        "subsecond_bin_ns|200\n"
        "threads|3\n"
        "truncated|0\n"
        "warnings|0\n");
  // Run time, one row a nanosecond some thread ran: the four activations,
  // 120 + 80 + 110 + 7880 ns, from bin 0 (1200) to bin 58799 (the last ns).
  CHECK(query(db, "SELECT count(*), sum(run_ns), min(bin), max(bin), max(run_ns) FROM activity_bins") ==
        "8190|8190|0|58799|1\n");
  // The seven edges (spawn at 1200 and 1300, wait 1320, notify 52000,
  // resolve 52100, read 52120, resolve 52200), from the first at 1200: no
  // level has one bin per 64 edges, so no bin is stored, and meta has the
  // origin but no levels (above).
  CHECK(query(db, "SELECT count(*) FROM edge_bins") == "0\n");
  // Each thread on a row of its own: one chunk a layer, level 0 only. The
  // lines end at the resolution, the pending main thread at the trace's end.
  CHECK(query(db, "SELECT l.thread, r.layer, r.level, r.seq, r.start, r.reach, r.count FROM row_spans AS r "
                  "JOIN layout_v2 AS l ON l.row = r.row ORDER BY l.thread, r.layer") ==
        "0|0|0|0|1200|1320|1\n"
        "0|1|0|0|1200|60000|1\n"
        "1|0|0|0|52010|52120|1\n"
        "1|1|0|0|1200|52100|1\n"
        "2|0|0|0|1320|60000|2\n"
        "2|1|0|0|1300|52200|1\n");
  // The encoding (row_spans.hpp), by hand. Thread 2 runs at 1320 for 80
  // ns (00 50, then thread +2 zigzagged to 4, << 4: 40) and at 52120, 50800
  // later, for 7880 (F0 8C 03, C8 3D, the same thread: 00). The main
  // thread's line: 0, 58800 (B0 CB 03), pending (3 << 2: 0C). Thread 2's
  // line: 0, 50900 (D4 8D 03), thread 2 and failed (40 | 1 << 2: 44).
  CHECK(query(db, "SELECT l.thread, r.layer, hex(r.spans) FROM row_spans AS r JOIN layout_v2 AS l ON l.row = r.row "
                  "WHERE (l.thread, r.layer) IN (VALUES (2, 0), (0, 1), (2, 1)) ORDER BY l.thread, r.layer") ==
        "0|1|00B0CB030C\n"
        "2|0|005040F08C03C83D00\n"
        "2|1|00D48D0344\n");
}

TEST_CASE(
    "import: a trace from before drop, no-waiter and queued imports as it did, its heads table with three more codes") {
  // The hand-computed tables above are those of every schema since 1; the
  // heads table keeps each code and name and adds the three new ones, empty.
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(kSkeinTrace, db).ok());
  CHECK(query(db, "SELECT * FROM heads ORDER BY id") ==
        "0|site|1\n1|spawn|2\n2|label|1\n3|switch|2\n4|wait|1\n5|read|1\n6|notify|1\n7|resolve|2\n8|merge|0\n"
        "9|counter|0\n10|idle|1\n11|gc|0\n12|lost|0\n13|end|1\n14|return|0\n15|should-resolve|0\n"
        "16|snapshot|0\n17|drop|0\n18|no-waiter|0\n19|queued|0\n");
}

TEST_CASE("import: meta's longest_gc is the longest gc record's duration, and layout_rows counts layout_v2's rows") {
  // Three gc records of 50, 700 and 20 ns: 700, the middle one, whatever
  // their order. Threads 1 and 2 follow each other (2 created after 1
  // resolved), so they may share a row with each other but not with 0,
  // alive throughout: two rows, which layout_v2 must hold.
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text("(skein-trace 1)\n(spawn 10 1 0 task)\n(gc 100 50)\n(resolve 200 1 1 ok)\n"
                            "(gc 500 700)\n(spawn 1300 2 0 task)\n(gc 1400 20)\n(resolve 1500 2 2 ok)\n(end 2000)\n",
                            db)
              .ok());
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'longest_gc'") == "700\n");
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'layout_rows'") == "2\n");
  CHECK(query(db, "SELECT max(row) + 1 FROM layout_v2") == "2\n");
}

TEST_CASE("import: counter_ranges holds each counter's smallest and largest value, as SQL finds them in counters") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  samples::SyntheticOptions options;
  options.records = 20'000;
  REQUIRE(test::import_text(samples::synthetic_trace_text(options), db).ok());
  const std::string expected =
      query(db, "SELECT name, min(value), max(value) FROM counters GROUP BY name ORDER BY name");
  REQUIRE(std::count(expected.begin(), expected.end(), '\n') >= 2);
  CHECK(query(db, "SELECT name, min, max FROM counter_ranges ORDER BY name") == expected);
  // A trace without counters has none.
  const std::string plain = dir.file("plain.db");
  REQUIRE(test::import_text("(skein-trace 1)\n(spawn 10 1 0 task)\n(end 20)\n", plain).ok());
  CHECK(query(plain, "SELECT count(*) FROM counter_ranges") == "0\n");
}

TEST_CASE("import: event_block_reach holds each block's latest end so far and earliest start from there, as SQL finds "
          "them in event_blocks") {
  // A block of sites (records without a time), blocks of spawns whose
  // times go back 5 us at every 700th, then a block and a half of sites
  // again: NULL before the first time and after the last.
  std::string text = "(skein-trace 1)\n";
  std::int64_t site = 1;
  for (int i = 0; i < 1024; ++i, ++site) text += "(site " + std::to_string(site) + " \"f.cpp\" 1 \"f\")\n";
  for (std::int64_t i = 1; i <= 3000; ++i) {
    const std::int64_t time = i % 700 == 0 ? 10 * i - 5000 : 10 * i;
    text += "(spawn " + std::to_string(time) + " " + std::to_string(i) + " 0 task)\n";
  }
  for (int i = 0; i < 1500; ++i, ++site) text += "(site " + std::to_string(site) + " \"f.cpp\" 1 \"f\")\n";
  TempDir dir;
  const std::string db = dir.file("t.db");
  REQUIRE(test::import_text(text, db).ok());
  REQUIRE(query(db, "SELECT count(*) FROM event_blocks") == "6\n");
  CHECK(query(db, "SELECT value > 0 FROM meta WHERE key = 'warnings.time-backwards'") == "1\n");
  const std::string expected = query(db,
                                     "SELECT id, (SELECT max(\"end\") FROM event_blocks WHERE id <= b.id), "
                                     "(SELECT min(start) FROM event_blocks WHERE id >= b.id) FROM event_blocks b "
                                     "ORDER BY id");
  CHECK(query(db, "SELECT id, latest_end, earliest_start FROM event_block_reach ORDER BY id") == expected);
  // The edges: nothing before the first time, nothing after the last.
  CHECK(query(db, "SELECT latest_end IS NULL, earliest_start IS NULL FROM event_block_reach WHERE id IN (1, 6) "
                  "ORDER BY id") == "1|0\n0|1\n");
}

// Lost wake-ups, event ids in the comments. Object 1 is also a thread's id,
// and object 7 is no thread's: objects are not threads. The drop and the
// no-waiter are by threads that are not running (the loop has control).
const std::string kLostWakeupTrace =
    "(skein-trace 1)\n"
    "(spawn 10 1 0 condition)\n"        // 1
    "(spawn 11 2 0 task)\n"             // 2
    "(switch 12 2)\n"                   // 3
    "(spawn 30 3 2 condition)\n"        // 4
    "(switch 35 -1)\n"                  // 5
    "(no-waiter 36 0 7 condition)\n"    // 6
    "(queued 37 3 1)\n"                 // 7
    "(drop 40 1 3)\n"                   // 8
    "(end 50)\n";                       // 9

TEST_CASE("import: drop, no-waiter and queued give SCHEMA.md's rows, run nobody, and make no thread of an object") {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const ImportResult r = test::import_text(kLostWakeupTrace, db);
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  CHECK(r.report.records == 9);
  CHECK(r.report.threads == 4);
  CHECK(r.report.warning_count == 0);
  check_sound(db);
  CHECK(query(db, "SELECT * FROM events WHERE head >= 17 ORDER BY id") ==
        "6|36|18|0|NULL|7|condition\n"
        "7|37|19|NULL|3|1|NULL\n"
        "8|40|17|3|1|NULL|NULL\n");
  // No thread 7; thread 1's last event is its drop, not the queued that
  // names object 1; 3 is named by its queued and by its drop; 0 by its
  // no-waiter.
  CHECK(query(db, "SELECT id, first_event, last_event, first_activation, last_activation, run_time "
                  "FROM threads ORDER BY id") ==
        "0|1|6|1|1|2\n"
        "1|1|8|NULL|NULL|0\n"
        "2|2|4|2|2|23\n"
        "3|4|8|NULL|NULL|0\n");
  // Nobody runs after the switch to -1: neither 0's no-waiter nor 3's drop
  // starts an activation (SCHEMA.md, rule 2).
  CHECK(query(db, "SELECT * FROM activations ORDER BY id") == "1|1|0|10|12\n2|3|2|12|35\n");
  CHECK(query(db, "SELECT count(*) FROM events WHERE id IN (6, 7, 8) AND head IN (1, 4, 5, 6, 7, 8)") == "0\n");
  CHECK(query(db, "SELECT name, records FROM heads WHERE id >= 17 ORDER BY id") ==
        "drop|1\nno-waiter|1\nqueued|1\n");
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'threads'") == "4\n");
}

TEST_CASE("import: a 2014 MirageOS sexp trace, with a loop absorbing a merged thread") {
  const std::string trace =
      "((time 10.000000)(op(Switch 0)))\r\n"                 // 1
      "((time 10.000010)(op(Creates 0 1 Bind)))\r\n"         // 2
      "((time 10.000020)(op(Label 1 loop)))\r\n"             // 3
      "((time 10.000030)(op(Creates 0 2 Task)))\r\n"         // 4
      "((time 10.000040)(op(Switch -1)))\r\n"                // 5
      "((time 10.000050)(op(Resolves -1 2())))\r\n"          // 6
      "((time 10.000060)(op(Reads 1 2)))\r\n"                // 7
      "((time 10.000070)(op(Creates 1 3 Bind)))\r\n"         // 8
      "((time 10.000080)(op(Becomes 1 3)))\r\n"              // 9
      "((time 10.000090)(op(Resolves 1 1(\"Not_found\"))))\r\n"  // 10
      "((time 10.000100)(op(Gc 0.000005)))\r\n";             // 11
  TempDir dir;
  const std::string db = dir.file("m.db");
  const ImportResult r = test::import_text(trace, db, {}, "m.sexp");
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  CHECK(r.report.format == "mirage-sexp");
  check_sound(db);
  CHECK(query(db, "SELECT * FROM events ORDER BY id") ==
        "1|0|3|0|NULL|NULL|NULL\n"
        "2|10000|1|0|1|NULL|bind\n"
        "3|20000|2|1|NULL|NULL|loop\n"
        "4|30000|1|0|2|NULL|task\n"
        "5|40000|3|-1|NULL|NULL|NULL\n"
        "6|50000|7|-1|2|0|NULL\n"
        "7|60000|5|1|2|NULL|NULL\n"
        "8|70000|1|1|3|NULL|bind\n"
        "9|80000|8|1|3|NULL|NULL\n"
        "10|90000|7|1|1|1|Not_found\n"
        "11|100000|11|NULL|NULL|5000|NULL\n");
  // 3 merged into 1's group (1 -> 3), so 3 settles when 1 fails; 1 runs
  // from its read to the end of the trace, having never switched away.
  CHECK(query(db, "SELECT * FROM threads ORDER BY id") ==
        "0|NULL|NULL|NULL|NULL|0|0|NULL|NULL|NULL|NULL|40000|1|1|4|1|1\n"
        "1|0|bind|NULL|loop|10000|60000|90000|fail|Not_found|3|40000|0|2|10|2|2\n"
        "2|0|task|NULL|NULL|30000|NULL|50000|ok|NULL|NULL|0|0|4|7|NULL|NULL\n"
        "3|1|bind|NULL|NULL|70000|NULL|90000|fail|Not_found|NULL|0|0|8|9|NULL|NULL\n");
  CHECK(query(db, "SELECT * FROM activations ORDER BY id") == "1|1|0|0|40000\n2|7|1|60000|100000\n");
  CHECK(query(db, "SELECT key, value FROM meta WHERE key LIKE 'header.%' OR key = 'format' ORDER BY key") ==
        "format|mirage-sexp\n"
        "header.scheduler-thread|0\n"
        "header.source-format|mirage-sexp\n"
        "header.source-origin-ns|10000000000\n"
        "header.version|1\n");
}

TEST_CASE("import: a mirage-profile CTF trace, counters included") {
  test::CtfBuilder b;
  b.packet()
      .switch_(1000, 0)                  // 1
      .creates(1100, 0, 5, 2)            // 2: Bind
      .increase(1200, 0, 3, "rx")        // 3
      .label(1300, 5, "worker")          // 4
      .source_event(9, 1400, 5, 0)       // 5: 0 signals 5
      .fails(1500, 5, 5, "Timeout")      // 6
      .increase(1600, 0, 2, "rx")        // 7
      .gc(1700, 42);                     // 8
  const std::string bytes = b.bytes();
  TempDir dir;
  const std::string db = dir.file("c.db");
  const ImportResult r = test::import_text(bytes, db, {}, "c.ctf");
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  CHECK(r.report.format == "mirage-ctf");
  check_sound(db);
  CHECK(query(db, "SELECT * FROM events ORDER BY id") ==
        "1|0|3|0|NULL|NULL|NULL\n"
        "2|100|1|0|5|NULL|bind\n"
        "3|200|9|NULL|NULL|3|rx\n"
        "4|300|2|5|NULL|NULL|worker\n"
        "5|400|6|0|5|NULL|NULL\n"
        "6|500|7|5|5|1|Timeout\n"
        "7|600|9|NULL|NULL|5|rx\n"
        "8|700|11|NULL|NULL|42|NULL\n");
  CHECK(query(db, "SELECT * FROM threads ORDER BY id") ==
        "0|NULL|NULL|NULL|NULL|0|0|NULL|NULL|NULL|NULL|500|1|1|5|1|1\n"
        "5|0|bind|NULL|worker|100|500|500|fail|Timeout|NULL|200|0|2|6|2|2\n");
  CHECK(query(db, "SELECT * FROM activations") == "1|1|0|0|500\n2|6|5|500|700\n");
  CHECK(query(db, "SELECT * FROM counters") == "rx|200|3|3\nrx|600|5|7\n");
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'header.source-uuid'") ==
        "05883b8d-521a-487b-b397-456ab150680c\n");
}

TEST_CASE("import: gzip-compressed input is read from its content") {
  TempDir dir;
  const std::string gz = dir.file("t.sexp.gz");
  gzFile out = gzopen(gz.c_str(), "wb");
  REQUIRE(out != nullptr);
  REQUIRE(gzwrite(out, kSkeinTrace.data(), static_cast<unsigned>(kSkeinTrace.size())) ==
          static_cast<int>(kSkeinTrace.size()));
  REQUIRE(gzclose(out) == Z_OK);
  const ImportResult r = import_trace(gz, dir.file("g.db"));
  INFO(r.error.to_string());
  REQUIRE(r.ok());
  CHECK(r.report.records == 13);
  CHECK(query(dir.file("g.db"), "SELECT count(*) FROM threads") == "3\n");
  // A file import keeps the source's stamp for the cache.
  CHECK(query(dir.file("g.db"), "SELECT count(*) FROM meta WHERE key IN ('source_size', 'source_mtime_ns', "
                                "'source_head_crc32')") == "3\n");
}

TEST_CASE("import: an empty trace (a header only) gives empty tables") {
  TempDir dir;
  const std::string db = dir.file("e.db");
  const ImportResult r = test::import_text("(skein-trace 1)\n", db);
  REQUIRE(r.ok());
  CHECK(r.report.records == 0);
  check_sound(db);
  CHECK(query(db, "SELECT (SELECT count(*) FROM events), (SELECT count(*) FROM threads), "
                  "(SELECT count(*) FROM thread_spans), (SELECT count(*) FROM event_blocks)") == "0|0|0|0\n");
  CHECK(query(db, "SELECT count(*) FROM meta WHERE key IN ('first_time', 'end_time')") == "0\n");
}

TEST_CASE("import: malformed input of each format names where, and leaves no database") {
  struct Case {
    std::string name;
    std::string bytes;
    std::string error;
  };
  test::CtfBuilder ctf;
  ctf.packet().switch_(1000, 0);
  ctf.u64(1100).u8(14).u64(0);  // event id 14 does not exist
  const std::vector<Case> cases = {
      {"bad.sexp", std::string("(skein-trace 1)\n(spawn 10 1 0 task)\n(spawn 10 x 0 bind)\n"),
       "bad.sexp:3:11: expected an integer thread id after 'spawn'"},
      {"bad-mirage.sexp", "((time 1.0)(op(Switch 0)))\n((time 1.5)(op(Reads 0)))\n",
       "bad-mirage.sexp:2:"},
      {"bad.ctf", ctf.bytes(), "bad.ctf: byte 55: unknown event id 14"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    TempDir dir;
    const std::string db = dir.file("x.db");
    const ImportResult r = test::import_text(c.bytes, db, {}, c.name);
    CHECK(r.failure == ImportResult::Failure::invalid);
    CHECK_THAT(r.error.to_string(), Catch::StartsWith(c.error));
    CHECK(dir.entries().empty());  // neither x.db nor x.db.tmp-PID
  }
}

TEST_CASE("import: a failed import keeps the old database") {
  TempDir dir;
  const std::string db = dir.file("keep.db");
  REQUIRE(test::import_text(kSkeinTrace, db).ok());
  const ImportResult bad = test::import_text("(skein-trace 1)\n(spawn 1 1 0 task)\n(oops\n", db);
  CHECK(bad.failure == ImportResult::Failure::invalid);
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'records'") == "13\n");
  CHECK(dir.entries() == std::vector<std::string>{"keep.db"});
  // And a good import replaces it.
  REQUIRE(test::import_text("(skein-trace 1)\n(spawn 1 1 0 task)\n", db).ok());
  CHECK(query(db, "SELECT value FROM meta WHERE key = 'records'") == "1\n");
}

TEST_CASE("import: an unknown format is an error in the trace, a missing file is unreadable") {
  TempDir dir;
  // The file was read: what it holds is wrong (exit 1 from every command).
  const ImportResult unknown = test::import_text("hello\n", dir.file("u.db"), {}, "u.txt");
  CHECK(unknown.failure == ImportResult::Failure::invalid);
  CHECK_THAT(unknown.error.to_string(),
             Catch::StartsWith("u.txt:1:1: unknown trace format: ") && Catch::Contains("expected a Skein trace"));
  const ImportResult missing = import_trace(dir.file("none.sexp"), dir.file("n.db"));
  CHECK(missing.failure == ImportResult::Failure::unreadable);
  CHECK(missing.error.to_string() == dir.file("none.sexp") + ": cannot open: No such file or directory");
  CHECK(dir.entries().empty());
}

TEST_CASE("import: inconsistent records are kept and counted, and --strict refuses them") {
  const std::string trace =
      "(skein-trace 1)\n"
      "(read 100 7 0)\n"       // 1: 7 was never spawned (0 is the main thread: no warning)
      "(resolve 90 7 7 ok)\n"  // 2: time goes backwards
      "(resolve 95 7 7 ok)\n"  // 3: resolved again
      "(spawn 96 8 7 task)\n"  // 4
      "(merge 97 7 8)\n"       // 5
      "(merge 98 8 7)\n";      // 6: a cycle
  TempDir dir;
  const std::string db = dir.file("w.db");
  const ImportResult r = test::import_text(trace, db, {}, "w.sexp");
  REQUIRE(r.ok());
  CHECK(r.report.warning_count == 4);
  CHECK(query(db, "SELECT kind, event, message FROM warnings ORDER BY id") ==
        "implicit-thread|1|w.sexp:2: warning: event 1: thread 7 is named before any spawn created it: created "
        "implicitly\n"
        "time-backwards|2|w.sexp:3: warning: event 2: time goes backwards: 90 ns after 100 ns\n"
        "resolved-again|3|w.sexp:4: warning: event 3: thread 7 resolved again (first at 90 ns): the first "
        "resolution is kept\n"
        "merge-cycle|6|w.sexp:7: warning: event 6: merging thread 8 into 7 would close a cycle of merges (they "
        "are merged already): ignored\n");
  CHECK(query(db, "SELECT key, value FROM meta WHERE key LIKE 'warnings%' AND value > 0 ORDER BY key") ==
        "warnings|4\n"
        "warnings.implicit-thread|1\n"
        "warnings.merge-cycle|1\n"
        "warnings.resolved-again|1\n"
        "warnings.time-backwards|1\n");
  CHECK(query(db, "SELECT id, implicit, resolved, merged_into FROM threads ORDER BY id") ==
        "0|1|NULL|NULL\n7|1|90|8\n8|0|90|NULL\n");

  ImportOptions strict;
  strict.strict = true;
  const ImportResult s = test::import_text(trace, dir.file("s.db"), strict, "w.sexp");
  CHECK(s.failure == ImportResult::Failure::invalid);
  CHECK(s.error.to_string() ==
        "w.sexp:2: event 1: thread 7 is named before any spawn created it: created implicitly (--strict)");
  CHECK_FALSE(test::file_exists(dir.file("s.db")));
}

TEST_CASE("import: --strict also refuses the source's warnings (a trace cut short)") {
  TempDir dir;
  ImportOptions strict;
  strict.strict = true;
  const ImportResult r = test::import_text("(skein-trace 1)\n(spawn 1 1 0 task)\n(spawn 2 2 0", dir.file("c.db"),
                                           strict, "cut.sexp");
  CHECK(r.failure == ImportResult::Failure::invalid);
  CHECK_THAT(r.error.to_string(), Catch::StartsWith("cut.sexp:3:") && Catch::EndsWith("(--strict)"));
  const ImportResult lenient = test::import_text("(skein-trace 1)\n(spawn 1 1 0 task)\n(spawn 2 2 0",
                                                 dir.file("l.db"), {}, "cut.sexp");
  REQUIRE(lenient.ok());
  CHECK(lenient.report.truncated);
  CHECK(query(dir.file("l.db"), "SELECT value FROM meta WHERE key = 'truncated'") == "1\n");
  CHECK(query(dir.file("l.db"), "SELECT kind FROM warnings") == "source\n");
}

TEST_CASE("import: progress is reported, and a cancelled import leaves nothing") {
  std::string trace = "(skein-trace 1)\n";
  for (int i = 1; i <= 40000; ++i) trace += "(spawn " + std::to_string(i) + " " + std::to_string(i) + " 0 task)\n";
  TempDir dir;
  ImportOptions options;
  int calls = 0;
  bool saw_finishing = false;
  options.progress = [&](const ImportProgress& p) {
    ++calls;
    saw_finishing = saw_finishing || p.finishing;
  };
  REQUIRE(test::import_text(trace, dir.file("p.db"), options).ok());
  CHECK(calls >= 1);
  CHECK(saw_finishing);

  std::atomic<bool> cancel{true};
  ImportOptions cancelled;
  cancelled.cancel = &cancel;
  const ImportResult r = test::import_text(trace, dir.file("c.db"), cancelled);
  CHECK(r.failure == ImportResult::Failure::cancelled);
  CHECK(dir.entries() == std::vector<std::string>{"p.db"});
}
