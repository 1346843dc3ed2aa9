// time_base_test.cpp — one time base everywhere (recorder/format/FORMAT.md, "Times
// as Skein shows them"): a record's TIME, from the trace's origin. The
// trace below starts 5 ms after its origin, so a command that counted from
// the first record instead would print 0 where it must print 5 ms.
//
// Each expected value is the trace's own TIME in the unit the output uses:
// thread 1 "late" is spawned at 5,000,000 ns, so `skein lint` says 5.000000
// ms and the Chrome export's ts (µs) is 5000; `--from 5.1ms --to 5.2ms`
// shows the record times 5.1 ms to 5.2 ms, so the ruler's first label in
// both `skein render` and `skein-view --export-view` is 5.10 ms, never the
// 100 µs it would read from the first record.
#include <catch2/catch.hpp>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;
const std::string kView = SKEIN_VIEW_PATH;
const std::vector<std::string> kNoDisplay = {"DISPLAY=", "WAYLAND_DISPLAY=", "QT_QPA_PLATFORM="};

const char* const kLate = R"((skein-trace 1 (process "later"))
(spawn 5000000 1 0 task)
(label 5000000 1 "late")
(switch 5100000 1)
(spawn 5150000 2 1 task)
(label 5150000 2 "never")
(switch 5200000 -1)
(end 6000000)
)";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The ruler's tick labels in an SVG (`>5.10 ms<`), in order.
std::vector<std::string> ruler_labels(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex label(">([0-9.]+ (ns|µs|ms|s))<");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it)
    out.push_back((*it)[1]);
  return out;
}

}  // namespace

TEST_CASE("time base: skein lint, why and the Chrome export print record times from the origin") {
  TempDir dir;
  const std::string trace = dir.file("late.sexp");
  std::ofstream(trace) << kLate;
  const auto lint = run_process({kSkein, "lint", trace});
  INFO(lint.out << lint.err);
  CHECK(lint.out.find("5.000000 ms  thread 1 \"late\"") != std::string::npos);
  CHECK(lint.out.find("at the end (6.000000 ms)") != std::string::npos);
  const auto why = run_process({kSkein, "why", trace, "--thread", "1", "--at", "5.15ms"});
  INFO(why.out << why.err);
  CHECK(why.out.find("at 5150.000 µs") != std::string::npos);
  const auto chrome = run_process({kSkein, "export", trace, "--format", "chrome", "-o", "-"});
  INFO(chrome.err);
  CHECK(chrome.out.find("\"tid\":1,\"ts\":5000,") != std::string::npos);
  CHECK(chrome.out.find("\"tid\":2,\"ts\":5150,") != std::string::npos);
}

TEST_CASE("time base: --from and --to are record times in skein render and skein-view, and the ruler reads them") {
  TempDir dir;
  const std::string trace = dir.file("late.sexp");
  std::ofstream(trace) << kLate;
  const std::string rendered = dir.file("render.svg");
  const auto r = run_process({kSkein, "render", trace, "--from", "5.1ms", "--to", "5.2ms", "-o", rendered}, {},
                             kNoDisplay);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::vector<std::string> render_labels = ruler_labels(slurp(rendered));
  REQUIRE(render_labels.size() >= 5);
  CHECK(render_labels.front() == "5.10 ms");
  CHECK(render_labels[1] == "5.11 ms");

  const std::string viewed = dir.file("view.svg");
  const auto v = run_process({kView, trace, "--from", "5.1ms", "--to", "5.2ms", "--export-view", viewed}, {},
                             kNoDisplay);
  INFO(v.err);
  REQUIRE(v.exit_code == 0);
  const std::vector<std::string> view_labels = ruler_labels(slurp(viewed));
  REQUIRE(view_labels.size() >= 3);
  CHECK(view_labels.front() == "5.10 ms");
}
