// finding_view_test.cpp — the scriptable views of a finding, on a real run
// of `blockread --missing-notify`: `skein render TRACE --finding N -o FILE`
// and `skein-view TRACE --finding N --export-view FILE`, without a display.
//
// The SVG output keeps text as text, so the tests read the rows' names in
// it: "error #1: blkfront.poll #ID" (a missing notification is an error)
// with ID the thread `skein lint` reports as finding #1, and "suspect: backend #ID" with ID the thread the
// trace labels "backend" (samples/blockread: the fiber whose flag the poll
// thread reads). A trace never linted is linted by the first command that
// needs finding numbers, and the numbers are the ones `skein lint` prints.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;
const std::string kView = SKEIN_VIEW_PATH;
const std::string kBlockread = SKEIN_BLOCKREAD_PATH;
// No window system at all: both commands must draw offscreen by themselves.
const std::vector<std::string> kNoDisplay = {"DISPLAY=", "WAYLAND_DISPLAY=", "QT_QPA_PLATFORM="};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Run {
  std::string trace;
  std::string backend;  // its id, from the trace's label record
};

Run traced_missing_notify(const TempDir& dir) {
  Run run;
  run.trace = dir.file("blockread.sexp");
  const auto r = run_process({kBlockread, "--missing-notify", "--requests", "4", "--latency-us", "1000", "--trace",
                              run.trace});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::smatch m;
  const std::string text = slurp(run.trace);
  REQUIRE(std::regex_search(text, m, std::regex("\\(label [0-9]+ ([0-9]+) \"backend\"\\)")));
  run.backend = m[1];
  return run;
}

// The thread of `skein lint`'s finding #1 ("  #1  1.23 ms  thread 42 ...").
std::string lint_finding_thread(const std::string& trace) {
  const auto r = run_process({kSkein, "lint", trace});
  std::smatch m;
  if (!std::regex_search(r.out, m, std::regex("\\n  #1  [^\\n]*?  thread ([0-9]+) \"blkfront\\.poll\""))) return {};
  return m[1];
}

void check_names(const std::string& svg, const std::string& acted, const std::string& backend) {
  INFO(svg.substr(0, 400));
  CHECK(svg.find("error #1: blkfront.poll #" + acted) != std::string::npos);
  CHECK(svg.find("suspect: backend #" + backend) != std::string::npos);
}

}  // namespace

TEST_CASE("skein render --finding: the finding's window with its rows named, numbered as skein lint numbers") {
  TempDir dir;
  const Run run = traced_missing_notify(dir);
  const std::string svg = dir.file("finding.svg");
  // Never linted: render lints it, and stores the findings.
  const auto r = run_process({kSkein, "render", run.trace, "--finding", "1", "-o", svg}, {}, kNoDisplay);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string acted = lint_finding_thread(run.trace);
  REQUIRE_FALSE(acted.empty());
  check_names(slurp(svg), acted, run.backend);
  // The PNG of the same.
  const std::string png = dir.file("finding.png");
  REQUIRE(run_process({kSkein, "render", run.trace, "--finding", "1", "-o", png}, {}, kNoDisplay).exit_code == 0);
  const std::string bytes = slurp(png);
  REQUIRE(bytes.size() > 8);
  CHECK(bytes.substr(1, 3) == "PNG");
  // Without --finding, nothing is named.
  const std::string whole = dir.file("whole.svg");
  REQUIRE(run_process({kSkein, "render", run.trace, "-o", whole}, {}, kNoDisplay).exit_code == 0);
  CHECK(slurp(whole).find("suspect: ") == std::string::npos);
}

TEST_CASE("skein render --finding: usage errors") {
  TempDir dir;
  const Run run = traced_missing_notify(dir);
  const std::string out = dir.file("x.png");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"--finding", "99"}, {"--finding", "0"}, {"--finding", "one"}, {"--finding", "1", "--from", "1ms"}}) {
    std::vector<std::string> argv = {kSkein, "render", run.trace, "-o", out};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = run_process(argv, {}, kNoDisplay);
    INFO(args.front() << " " << args[1] << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("skein render: ") != std::string::npos);
  }
}

TEST_CASE("skein-view --finding --export-view: the view a user gets, written without a display") {
  TempDir dir;
  const Run run = traced_missing_notify(dir);
  const std::string svg = dir.file("view.svg");
  const auto r = run_process({kView, run.trace, "--finding", "1", "--export-view", svg}, {}, kNoDisplay);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == svg + "\n");
  const std::string acted = lint_finding_thread(run.trace);
  REQUIRE_FALSE(acted.empty());
  check_names(slurp(svg), acted, run.backend);
  const std::string png = dir.file("view.png");
  REQUIRE(run_process({kView, run.trace, "--finding", "1", "--export-view", png}, {}, kNoDisplay).exit_code == 0);
  CHECK(slurp(png).substr(1, 3) == "PNG");
}

TEST_CASE("skein-view --export-view: errors exit non-zero with a message, never a dialog") {
  TempDir dir;
  const Run run = traced_missing_notify(dir);
  const auto missing = run_process({kView, run.trace, "--finding", "99", "--export-view", dir.file("v.png")}, {},
                                   kNoDisplay);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("no finding #99") != std::string::npos);
  const auto bad_name = run_process({kView, run.trace, "--export-view", dir.file("v.jpg")}, {}, kNoDisplay);
  CHECK(bad_name.exit_code == 2);
  const auto no_trace = run_process({kView, "--export-view", dir.file("v.png")}, {}, kNoDisplay);
  CHECK(no_trace.exit_code == 2);
  std::ofstream(dir.file("broken.sexp")) << "(skein-trace 1)\n(spawn 1 2\n";
  const auto broken = run_process({kView, dir.file("broken.sexp"), "--export-view", dir.file("v.png")}, {}, kNoDisplay);
  CHECK(broken.exit_code == 1);
  CHECK(broken.err.find("broken.sexp:") != std::string::npos);
}
