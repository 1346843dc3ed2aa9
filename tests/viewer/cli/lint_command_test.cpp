// lint_command_test.cpp — `skein lint DB|TRACE`: the text and JSON output,
// --rules, --block-ms, exit codes 0/1/2, and the findings stored in the
// database (the cache of a TRACE, or the DB given) unless --no-store; the
// JSON names each finding's thread by its label and creation site. What
// each rule finds is tested in tests/viewer/*; here, that the command reads
// the right trace and options and writes what it promises.
#include <catch2/catch.hpp>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::query;
using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

// Thread 1 ("worker") fails and nobody reads it; thread 2 is pending at
// the clean end; nothing else is wrong.
const std::string kTrace =
    "(skein-trace 1)\n"
    "(spawn 1000 1 0 async)\n"
    "(label 1100 1 \"worker\")\n"
    "(resolve 2000 1 1 fail \"Not_found\")\n"
    "(spawn 3000 2 0 wait)\n"
    "(end 4000)\n";

// kTrace with a creation site for thread 1, and text to escape in its
// label and the site's file.
const std::string kSited =
    "(skein-trace 1)\n"
    "(site 0 \"src/work\\\"er.c\" 12 \"do_work\")\n"
    "(spawn 1000 1 0 async 0)\n"
    "(label 1100 1 \"worker\\t1\")\n"
    "(resolve 2000 1 1 fail \"Not_found\")\n"
    "(spawn 3000 2 0 wait)\n"
    "(end 4000)\n";

const std::string kClean =
    "(skein-trace 1)\n"
    "(spawn 1000 1 0 wait)\n"
    "(resolve 2000 1 0 ok)\n"
    "(end 3000)\n";

}  // namespace

TEST_CASE("skein lint: text output, findings stored in the trace's cache") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "lint", trace});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out ==
        "unread-failure: 1 finding (error)\n"
        "  #1  0.002000 ms  thread 1 \"worker\"  from thread 1 \"worker\"  event 3\n"
        "    thread 1 failed (Not_found) and no other thread read its outcome\n"
        "    open: skein-view " + trace + " --finding 1\n"
        "\n"
        "pending-at-end: 1 finding (warning)\n"
        "  created by thread 0: 1 promise pending since 0.003000 ms:\n"
        "    #2  0.003000 ms  thread 2  event 4\n"
        "      thread 2 is still pending at the end (0.004000 ms); waits on nothing recorded\n"
        "      open: skein-view " + trace + " --finding 2\n"
        "\n"
        "2 findings (rules: missing-notification, unread-failure, pending-at-end, late-notify, "
        "blocking-activation, self-wake, lost-records)\n");
  CHECK(query(trace + ".skein.db", "SELECT rule, thread FROM anomalies ORDER BY id") ==
        "unread-failure|1\npending-at-end|2\n");
  // The cache with its anomalies is still a valid database, reused as it is.
  const auto again = run_process({kSkein, "info", trace});
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, Catch::Contains("  database     " + trace + ".skein.db (cached)\n"));
}

TEST_CASE("skein lint: --format json") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "lint", "--format", "json", "--rules", "unread-failure,late-notify", trace});
  CHECK(r.exit_code == 1);
  CHECK(r.out ==
        "{\n"
        "    \"counts\": {\n"
        "        \"late-notify\": 0,\n"
        "        \"unread-failure\": 1\n"
        "    },\n"
        "    \"findings\": [\n"
        "        {\n"
        "            \"event\": 3,\n"
        "            \"from\": 1,\n"
        "            \"group\": null,\n"
        "            \"label\": \"worker\",\n"
        "            \"message\": \"thread 1 failed (Not_found) and no other thread read its outcome\",\n"
        "            \"number\": 1,\n"
        "            \"rule\": \"unread-failure\",\n"
        "            \"severity\": \"error\",\n"
        "            \"site\": null,\n"
        "            \"suspect\": null,\n"
        "            \"thread\": 1,\n"
        "            \"time_ns\": 2000\n"
        "        }\n"
        "    ]\n"
        "}\n");
}

TEST_CASE("skein lint: --format json names the thread's label and creation site, escaped") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kSited);
  const auto r = run_process({kSkein, "lint", "--format", "json", "--rules", "unread-failure,pending-at-end", trace});
  INFO(r.err);
  CHECK(r.exit_code == 1);
  CHECK(r.out ==
        "{\n"
        "    \"counts\": {\n"
        "        \"pending-at-end\": 1,\n"
        "        \"unread-failure\": 1\n"
        "    },\n"
        "    \"findings\": [\n"
        "        {\n"
        "            \"event\": 4,\n"
        "            \"from\": 1,\n"
        "            \"group\": null,\n"
        "            \"label\": \"worker\\u00091\",\n"
        "            \"message\": \"thread 1 failed (Not_found) and no other thread read its outcome\",\n"
        "            \"number\": 1,\n"
        "            \"rule\": \"unread-failure\",\n"
        "            \"severity\": \"error\",\n"
        "            \"site\": {\n"
        "                \"file\": \"src/work\\\"er.c\",\n"
        "                \"function\": \"do_work\",\n"
        "                \"line\": 12\n"
        "            },\n"
        "            \"suspect\": null,\n"
        "            \"thread\": 1,\n"
        "            \"time_ns\": 2000\n"
        "        },\n"
        "        {\n"
        "            \"event\": 5,\n"
        "            \"from\": null,\n"
        "            \"group\": \"created by thread 0: 1 promise pending since 0.003000 ms\",\n"
        "            \"label\": null,\n"
        "            \"message\": \"thread 2 is still pending at the end (0.004000 ms); waits on nothing recorded\",\n"
        "            \"number\": 2,\n"
        "            \"rule\": \"pending-at-end\",\n"
        "            \"severity\": \"warning\",\n"
        "            \"site\": null,\n"
        "            \"suspect\": null,\n"
        "            \"thread\": 2,\n"
        "            \"time_ns\": 3000\n"
        "        }\n"
        "    ]\n"
        "}\n");
}

TEST_CASE("skein lint: --rules, --block-ms and a clean trace") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto only = run_process({kSkein, "lint", "--rules", "late-notify", trace});
  CHECK(only.exit_code == 0);
  CHECK(only.out == "0 findings (rules: late-notify)\n");
  const std::string clean = dir.file("clean.sexp");
  skein::test::write_file(clean, kClean);
  const auto ok = run_process({kSkein, "lint", clean});
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.out, Catch::StartsWith("0 findings"));
  const std::string blocked = dir.file("blocked.sexp");
  skein::test::write_file(blocked,
                          "(skein-trace 1)\n(spawn 0 1 0 fiber)\n(switch 1000 1)\n(switch 3001000 -1)\n(end 3002000)\n");
  CHECK(run_process({kSkein, "lint", "--rules", "blocking-activation", blocked}).exit_code == 0);
  const auto low = run_process({kSkein, "lint", "--rules", "blocking-activation", "--block-ms", "2.5", blocked});
  CHECK(low.exit_code == 1);
  CHECK_THAT(low.out, Catch::Contains("the loop was blocked for 3.000 ms (threshold 2.500 ms): thread 1, a fiber, ran 3.000 ms"));
}

TEST_CASE("skein lint: a database given is written, unless --no-store") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string db = dir.file("t.db");
  REQUIRE(run_process({kSkein, "import", trace, "-o", db}).exit_code == 0);
  CHECK(run_process({kSkein, "lint", "--no-store", db}).exit_code == 1);
  CHECK(query(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'anomalies'") == "0\n");
  CHECK(run_process({kSkein, "lint", db}).exit_code == 1);
  CHECK(query(db, "SELECT count(*) FROM anomalies") == "2\n");
  // Every rule runs whatever is printed: the table keeps the whole report,
  // numbered as printed.
  const auto one = run_process({kSkein, "lint", "--rules", "pending-at-end", db});
  CHECK(one.exit_code == 1);
  CHECK_THAT(one.out, Catch::Contains("#2  0.003000 ms  thread 2"));
  CHECK_THAT(one.out, !Catch::Contains("unread-failure"));
  CHECK(query(db, "SELECT id, rule FROM anomalies ORDER BY id") == "1|unread-failure\n2|pending-at-end\n");
}

TEST_CASE("skein lint: usage and input errors exit 2") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  CHECK(run_process({kSkein, "lint"}).exit_code == 2);
  const auto rules = run_process({kSkein, "lint", "--rules", "bogus", trace});
  CHECK(rules.exit_code == 2);
  CHECK_THAT(rules.err, Catch::StartsWith("skein lint: unknown rule 'bogus'; the rules are missing-notification, "));
  const auto format = run_process({kSkein, "lint", "--format", "xml", trace});
  CHECK(format.exit_code == 2);
  CHECK_THAT(format.err, Catch::StartsWith("skein lint: --format takes text or json, not 'xml'"));
  CHECK(run_process({kSkein, "lint", "--block-ms", "-1", trace}).exit_code == 2);
  const auto missing = run_process({kSkein, "lint", dir.file("nope.sexp")});
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("nope.sexp: cannot open"));
  const std::string junk = dir.file("junk.txt");
  skein::test::write_file(junk, "hello\n");
  // Not usage, nor unreadable: an error in the trace's content (exit 1, as
  // `skein check` gives it), named at its first byte.
  const auto unknown = run_process({kSkein, "lint", junk});
  CHECK(unknown.exit_code == 1);
  CHECK_THAT(unknown.err, Catch::StartsWith(junk + ":1:1: unknown trace format: "));
}

namespace {

// The "open:" commands of `skein lint`'s text output.
std::vector<std::string> open_lines(const std::string& out) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while ((at = out.find("open: ", at)) != std::string::npos) {
    const std::size_t end = out.find('\n', at);
    lines.push_back(out.substr(at + 6, end - at - 6));
    at = end;
  }
  return lines;
}

// The words bash makes of `command`, skein-view standing for a function
// that prints its arguments: what a user who pastes the line runs.
std::vector<std::string> pasted_words(const std::string& command) {
  const auto r = run_process({"/bin/bash", "-c", "skein-view() { printf '%s\\0' \"$@\"; }; " + command});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> words;
  std::size_t at = 0;
  for (std::size_t end; (end = r.out.find('\0', at)) != std::string::npos; at = end + 1)
    words.push_back(r.out.substr(at, end - at));
  return words;
}

}  // namespace

// Each finding's "open:" line is a command that works when pasted: a trace
// whose name starts with '-' is named "./-..." (skein-view would read
// "-dash.sexp" as options), and a name with spaces, quotes or control bytes
// is quoted for the shell, with no control byte reaching the terminal.
// (tests/viewer/app/view_command_line_test.cpp parses the result as
// skein-view does.)
TEST_CASE("skein lint: the open: hint is a command that works when pasted for any trace name") {
  TempDir dir;
  struct Case {
    std::string name;      // the trace's file name, as `skein lint` is given it (from dir)
    std::string expected;  // the path word in the hint
    std::string argument;  // the argument skein-view then receives
  };
  const std::vector<Case> cases = {
      {"-dash.sexp", "./-dash.sexp", "./-dash.sexp"},
      {"my trace.sexp", "'my trace.sexp'", "my trace.sexp"},
      {"it's $HOME.sexp", "'it'\\''s $HOME.sexp'", "it's $HOME.sexp"},
      {"-a b.sexp", "'./-a b.sexp'", "./-a b.sexp"},
      {"esc\x1b[31mred\x7f\\.sexp", "$'esc\\x1b[31mred\\x7f\\\\.sexp'", "esc\x1b[31mred\x7f\\.sexp"},
      {"caf\xc3\xa9.sexp", "'caf\xc3\xa9.sexp'", "caf\xc3\xa9.sexp"},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    skein::test::write_file(dir.file(c.name), kTrace);
    // From inside the folder, with `--` so that the name reaches the lint as it is.
    const auto r = run_process({"/bin/sh", "-c", "cd \"$1\" && exec \"$0\" lint -- \"$2\"", kSkein, dir.path(), c.name});
    CHECK(r.exit_code == 1);
    const auto lines = open_lines(r.out);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "skein-view " + c.expected + " --finding 1");
    for (const char ch : r.out) CHECK_FALSE((static_cast<unsigned char>(ch) < 0x20 && ch != '\n'));
    CHECK(r.out.find('\x7f') == std::string::npos);
    const auto words = pasted_words("cd '" + dir.path() + "' && " + lines[1]);
    CHECK(words == std::vector<std::string>{c.argument, "--finding", "2"});
    REQUIRE(!words.empty());
    CHECK(skein::test::file_exists(dir.path() + "/" + words[0]));
  }
}
