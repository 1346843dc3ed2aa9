// info_command_test.cpp — `skein info DB|TRACE`: the report, the warnings,
// a trace opened through its cache, and refusals of files that are not
// Skein databases.
#include <catch2/catch.hpp>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

const std::string kTrace =
    "(skein-trace 1 (process \"blockread\") (pid 4242))\n"
    "(spawn 1200 1 0 task)\n"
    "(spawn 1300 2 0 bind)\n"
    "(read 1320 5 1)\n"
    "(resolve 52100 1 1 ok)\n"
    "(resolve 52200 2 2 fail \"short read\")\n"
    "(end 60000)\n";

}  // namespace

TEST_CASE("skein info: a database's contents, warnings on standard error") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string db = dir.file("t.db");
  REQUIRE(run_process({kSkein, "import", trace, "-o", db}).exit_code == 0);
  const auto r = run_process({kSkein, "info", db});
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        db + ": Skein trace database, schema 6\n"
             "  trace        " + trace + " (skein)\n"
             "  process      \"blockread\", pid 4242\n"
             "  records                6\n"
             "    spawn                2\n"
             "    read                 1\n"
             "    resolve              2\n"
             "    end                  1\n"
             "  threads                4  (2 implicit, 1 failed, 2 pending at the end)\n"
             "  time span    1.20 µs to 60.0 µs (58.8 µs)\n"
             "  end          clean: (end) record present\n"
             "  warnings               1\n");
  CHECK(r.err == trace + ":4: warning: event 3: thread 5 is named before any spawn created it: created implicitly\n");
  const auto quiet = run_process({kSkein, "info", "--max-warnings", "0", db});
  CHECK(quiet.err == "... and 1 more warning\n");
}

TEST_CASE("skein info: a trace is imported into its cache first, then reused") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto first = run_process({kSkein, "info", trace});
  CHECK(first.exit_code == 0);
  CHECK_THAT(first.out, Catch::Contains("  database     " + trace + ".skein.db (imported now)\n"));
  const auto second = run_process({kSkein, "info", trace});
  CHECK_THAT(second.out, Catch::Contains("  database     " + trace + ".skein.db (cached)\n"));
}

TEST_CASE("skein info: refusals and errors") {
  TempDir dir;
  CHECK(run_process({kSkein, "info"}).exit_code == 2);
  CHECK(run_process({kSkein, "info", "a", "b"}).exit_code == 2);
  const auto missing = run_process({kSkein, "info", dir.file("no.db")});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == dir.file("no.db") + ": cannot open: No such file or directory\n");

  const std::string other = dir.file("other.db");
  REQUIRE(run_process({"/usr/bin/env", "sqlite3", other, "CREATE TABLE t(x)"}).exit_code == 0);
  const auto not_ours = run_process({kSkein, "info", other});
  CHECK(not_ours.exit_code == 2);
  CHECK(not_ours.err == other + ": not a Skein database (user_version 0, expected 6)\n");

  const std::string bad = dir.file("bad.sexp");
  skein::test::write_file(bad, "(skein-trace 1)\n(spawn 1 2 3)\n");
  const auto invalid = run_process({kSkein, "info", bad});
  CHECK(invalid.exit_code == 1);
  CHECK_THAT(invalid.err, Catch::StartsWith(bad + ":2:"));

  const std::string text = dir.file("notes.txt");
  skein::test::write_file(text, "hello\n");
  // Read, and in no format Skein knows: an error in the trace, at its first
  // byte, as `skein check` says of it (one exit status per input).
  const auto unknown = run_process({kSkein, "info", text});
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.err, Catch::StartsWith(text + ":1:1: unknown trace format: ") &&
                              Catch::Contains("expected a Skein trace"));
}

// Three (lost COUNT) records of INT64_MAX: their sum is held at INT64_MAX
// and shown as saturated, not as an exact count; and however wide a count
// is, a name and its number never run together (two spaces at least), the
// numbers still right-aligned in one column.
TEST_CASE("skein info: lost records summing past INT64_MAX show as saturated in columns that never run together") {
  TempDir dir;
  const std::string trace = dir.file("lost.sexp");
  skein::test::write_file(trace,
                          "(skein-trace 1 (process \"t\") (pid 1))\n"
                          "(spawn 100 1 0 task)\n"
                          "(lost 200 9223372036854775807)\n"
                          "(lost 300 9223372036854775807)\n"
                          "(lost 400 9223372036854775807)\n"
                          "(resolve 2100 1 -1 ok)\n"
                          "(end 1500000)\n");
  const std::string db = dir.file("lost.db");
  REQUIRE(run_process({kSkein, "import", trace, "-o", db}).exit_code == 0);
  const auto r = run_process({kSkein, "info", db});
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        db + ": Skein trace database, schema 6\n"
             "  trace        " + trace + " (skein)\n"
             "  process      \"t\", pid 1\n"
             "  records                                         6\n"
             "    spawn                                         1\n"
             "    resolve                                       1\n"
             "    lost                                          3\n"
             "    end                                           1\n"
             "  threads                                         2  (1 implicit, 0 failed, 1 pending at the end)\n"
             "  time span    100 ns to 1.50 ms (1.50 ms)\n"
             "  end          clean: (end) record present\n"
             "  lost records  more than 9,223,372,036,854,775,807  (saturated: the (lost COUNT) records add up past "
             "the largest count a database holds)\n"
             "  warnings                                        0\n");

  const std::string one = dir.file("one.sexp");
  skein::test::write_file(one, "(skein-trace 1)\n(spawn 100 1 0 task)\n(lost 200 9223372036854775807)\n(end 300)\n");
  const auto exact = run_process({kSkein, "info", one});
  CHECK(exact.exit_code == 0);
  CHECK_THAT(exact.out, Catch::Contains("\n  lost records  9,223,372,036,854,775,807\n"
                                        "  warnings                              0\n"));
}
