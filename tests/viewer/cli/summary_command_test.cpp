// summary_command_test.cpp — `skein summary DB|TRACE`: the table, --by,
// --sort, --duration, and usage errors. The figures themselves are tested
// in tests/viewer/analysis/summary_test.cpp; here, that the command reads the right
// rows and options.
#include <catch2/catch.hpp>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

// The main thread 0 runs 1 ms (it is the actor of the spawns, until the
// first switch) and is pending at the end (lives 5 ms); thread 1 (label
// "poll", task) runs 2 ms and lives 4 ms; thread 2 (bind, no label) runs
// 1 ms, fails, lives 3 ms. The trace ends at 5 ms: 4 ms of run time in all.
const std::string kTrace =
    "(skein-trace 1)\n"
    "(site 0 \"poll.cpp\" 7 \"poll\")\n"
    "(spawn 0 1 0 task 0)\n"
    "(label 0 1 \"poll\")\n"
    "(spawn 1000000 2 0 bind)\n"
    "(switch 1000000 1)\n"
    "(switch 3000000 2)\n"
    "(resolve 4000000 2 2 fail \"E\")\n"
    "(resolve 4000000 1 -1 ok)\n"
    "(end 5000000)\n";

}  // namespace

TEST_CASE("skein summary: the table by label, kind and site") {
  TempDir dir;
  const std::string trace = dir.file("s.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "summary", trace});
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("% time    total ms  threads failures"));
  CHECK_THAT(r.out, Catch::Contains(" 50.00       2.000        1        0      4.000      4.000      4.000      0.000"
                                    "      2.000      2.000      2.000      0.000  poll\n"));
  CHECK_THAT(r.out, Catch::Contains(" 50.00       2.000        2        1      3.000      4.000      5.000      1.000"
                                    "      1.000      1.000      1.000      0.000  (no label)\n"));  // 0 and 2
  CHECK_THAT(r.out, Catch::Contains("100.00       4.000        3        1"));
  const auto by_kind = run_process({kSkein, "summary", "--by", "kind", trace});
  CHECK_THAT(by_kind.out, Catch::Contains("  task\n") && Catch::Contains("  bind\n") && Catch::Contains("  kind\n"));
  const auto by_site = run_process({kSkein, "summary", "--by", "site", trace});
  CHECK_THAT(by_site.out, Catch::Contains("  poll (poll.cpp:7)\n") && Catch::Contains("  (no site)\n"));
  const auto sorted = run_process({kSkein, "summary", "--sort", "failures", trace});
  CHECK(sorted.out.find("(no label)") < sorted.out.find("poll\n"));
}

TEST_CASE("skein summary: --duration lists long threads") {
  TempDir dir;
  const std::string trace = dir.file("s.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "summary", "--duration", "3.5", trace});
  CHECK(r.exit_code == 0);
  CHECK(r.out ==
        "    thread   created (ms)  lifetime (ms)       run (ms)  outcome  kind  label\n"
        "         0          0.000          5.000          1.000  pending  -  -\n"
        "         1          0.000          4.000          2.000  ok       task  poll\n");
}

TEST_CASE("skein summary: usage errors exit 2") {
  TempDir dir;
  const std::string trace = dir.file("s.sexp");
  skein::test::write_file(trace, kTrace);
  CHECK(run_process({kSkein, "summary"}).exit_code == 2);
  const auto by = run_process({kSkein, "summary", "--by", "thread", trace});
  CHECK(by.exit_code == 2);
  CHECK_THAT(by.err, Catch::StartsWith("skein summary: --by takes label, kind or site, not 'thread'"));
  const auto sort = run_process({kSkein, "summary", "--sort", "bogus", trace});
  CHECK(sort.exit_code == 2);
  CHECK_THAT(sort.err, Catch::Contains("--sort takes one of time, threads"));
  CHECK(run_process({kSkein, "summary", "--duration", "-1", trace}).exit_code == 2);
  CHECK(run_process({kSkein, "summary", "--duration", "x", trace}).exit_code == 2);
}
