// check_command_test.cpp — `skein check` as a user runs it: exit codes,
// the report on standard output, FILE:LINE:COL diagnostics on standard error.
#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/record_text.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/skein-cli-test-" + std::to_string(getpid()) + "-" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

const std::string kValid = std::string(skein::test::kHeaderLine) +
                           "(spawn 100 1 0 task)\n"
                           "(resolve 2100 1 -1 ok)\n"
                           "(end 1500000)\n";

}  // namespace

TEST_CASE("skein --help lists the commands, and no arguments is a usage error") {
  const auto help = run_process({kSkein, "--help"});
  CHECK(help.exit_code == 0);
  CHECK_THAT(help.out, Catch::Contains("Usage: skein COMMAND") && Catch::Contains("check"));
  const auto none = run_process({kSkein});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("Usage: skein COMMAND"));
  const auto unknown = run_process({kSkein, "frobnicate"});
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::StartsWith("skein: unknown command 'frobnicate'"));
}

TEST_CASE("skein check --help explains the command") {
  const auto r = run_process({kSkein, "check", "--help"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("Usage: skein check [options] TRACE"));
  CHECK_THAT(r.out, Catch::Contains("--max-errors"));
}

TEST_CASE("skein check usage errors exit 2") {
  CHECK(run_process({kSkein, "check"}).exit_code == 2);
  CHECK(run_process({kSkein, "check", "a", "b"}).exit_code == 2);
  CHECK(run_process({kSkein, "check", "--bogus", "a"}).exit_code == 2);
  const auto missing = run_process({kSkein, "check", "/nonexistent.sexp"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err == "/nonexistent.sexp: cannot open: No such file or directory\n");
}

TEST_CASE("skein check on a valid trace prints counts and exits 0") {
  const auto path = write_temp("valid.sexp", kValid);
  const auto r = run_process({kSkein, "check", path});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK_THAT(r.out, Catch::StartsWith(path + ": valid Skein trace, format 1, process \"t\", pid 1\n"));
  CHECK_THAT(r.out, Catch::Contains("  records                3\n"));
  CHECK_THAT(r.out, Catch::Contains("    spawn                1\n"));
  CHECK_THAT(r.out, Catch::Contains("  threads                2\n"));
  CHECK_THAT(r.out, Catch::Contains("  time span    100 ns to 1.50 ms (1.50 ms)\n"));
  CHECK_THAT(r.out, Catch::Contains("clean: (end) record present"));
}

TEST_CASE("skein check reads standard input with -") {
  const auto r = run_process({kSkein, "check", "-"}, kValid);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("<stdin>: valid Skein trace"));
}

TEST_CASE("skein check on a bad trace names FILE:LINE:COL and exits 1") {
  const auto path = write_temp("bad.sexp", std::string(skein::test::kHeaderLine) +
                                               "(spawn 10 x 0 bind)\n(idle 5)\n(frob 1)\n");
  const auto r = run_process({kSkein, "check", path});
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith(path + ":2:11: expected an integer thread id after 'spawn'\n"));
  CHECK_THAT(r.err, Catch::Contains(path + ":4:2: warning: unknown record head 'frob'"));
  CHECK_THAT(r.out, Catch::StartsWith(path + ": INVALID Skein trace (1 error)"));
  CHECK_THAT(r.out, Catch::Contains("frob (unknown)           1"));
}

TEST_CASE("skein check accepts a truncated trace with a warning") {
  std::string cut = kValid.substr(0, kValid.size() - 5);
  const auto r = run_process({kSkein, "check", "-"}, cut);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("<stdin>:4:") && Catch::Contains("warning: the last line is cut short"));
  CHECK_THAT(r.out, Catch::Contains("none: the trace was cut short"));
}
