// view_command_line_test.cpp — skein-view's command line
// (viewer/app/view_command_line.hpp) takes the commands `skein lint`
// prints for it: each "open:" line, as bash splits it when pasted, parses
// to the trace's path and the finding's number; a path that starts with
// '-' works as "./-name" and after `--`, and not bare (the form the hint
// printed before, which skein-view refused as unknown options).
#include "viewer/app/view_command_line.hpp"

#include <QCommandLineParser>
#include <QStringList>
#include <catch2/catch.hpp>
#include <string>
#include <variant>
#include <vector>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

// Thread 1 is pending at the clean end: one finding, #1.
const std::string kTrace =
    "(skein-trace 1)\n"
    "(spawn 1000 1 0 wait)\n"
    "(end 4000)\n";

// skein-view's parser on `words` (words[0] is the program).
std::variant<skein::ViewRequest, std::string> parse(const std::vector<std::string>& words) {
  QStringList arguments;
  for (const std::string& w : words) arguments << QString::fromStdString(w);
  QCommandLineParser parser;
  skein::add_view_options(parser);
  if (!parser.parse(arguments)) return parser.errorText().toStdString();
  return skein::read_view_request(parser);
}

// The words bash makes of `command`, the program's name first.
std::vector<std::string> pasted_words(const std::string& command) {
  const auto r = run_process(
      {"/bin/bash", "-c", "skein-view() { printf '%s\\0' skein-view \"$@\"; }; " + command});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> words;
  std::size_t at = 0;
  for (std::size_t end; (end = r.out.find('\0', at)) != std::string::npos; at = end + 1)
    words.push_back(r.out.substr(at, end - at));
  return words;
}

}  // namespace

TEST_CASE(
    "skein-view command line: skein lint's open: hint parses for names starting with '-' or "
    "holding spaces") {
  TempDir dir;
  for (const std::string name : {"-dash.sexp", "my trace.sexp", "-it's here.sexp", "plain.sexp"}) {
    INFO(name);
    skein::test::write_file(dir.file(name), kTrace);
    const auto r = run_process(
        {"/bin/sh", "-c", "cd \"$1\" && exec \"$0\" lint -- \"$2\"", kSkein, dir.path(), name});
    REQUIRE(r.exit_code == 1);
    const std::size_t at = r.out.find("open: ");
    REQUIRE(at != std::string::npos);
    const std::string hint = r.out.substr(at + 6, r.out.find('\n', at) - at - 6);
    const auto parsed = parse(pasted_words(hint));
    REQUIRE(std::holds_alternative<skein::ViewRequest>(parsed));
    const auto& request = std::get<skein::ViewRequest>(parsed);
    const std::string trace = request.trace.toStdString();
    CHECK((trace == name || trace == "./" + name));
    CHECK(request.finding == 1);
    CHECK(request.export_view.isEmpty());
  }
}

TEST_CASE(
    "skein-view command line: a path starting with '-' is read after -- or as ./path but not "
    "bare") {
  const auto after_dashes = parse({"skein-view", "--finding", "2", "--", "-dash.sexp"});
  REQUIRE(std::holds_alternative<skein::ViewRequest>(after_dashes));
  CHECK(std::get<skein::ViewRequest>(after_dashes).trace == QStringLiteral("-dash.sexp"));
  CHECK(std::get<skein::ViewRequest>(after_dashes).finding == 2);

  const auto dotted = parse({"skein-view", "./-dash.sexp", "--finding", "2"});
  REQUIRE(std::holds_alternative<skein::ViewRequest>(dotted));
  CHECK(std::get<skein::ViewRequest>(dotted).trace == QStringLiteral("./-dash.sexp"));

  const auto bare = parse({"skein-view", "-dash.sexp", "--finding", "2"});
  REQUIRE(std::holds_alternative<std::string>(bare));
  CHECK_THAT(std::get<std::string>(bare), Catch::StartsWith("Unknown options"));

  // The checks of the values, with the messages main.cpp prints.
  const auto why_alone = parse({"skein-view", "t.sexp", "--why"});
  REQUIRE(std::holds_alternative<std::string>(why_alone));
  CHECK(std::get<std::string>(why_alone) == "--why needs --select ID");
  const auto bad_time = parse({"skein-view", "t.sexp", "--to", "5"});
  REQUIRE(std::holds_alternative<std::string>(bad_time));
  CHECK(std::get<std::string>(bad_time) ==
        "--to takes a time with a unit (125ms, 1.5s, 300us, 42ns)");
  const auto window =
      parse({"skein-view", "t.sexp", "--from", "1ms", "--to", "2ms", "--select", "7", "--why"});
  REQUIRE(std::holds_alternative<skein::ViewRequest>(window));
  CHECK(std::get<skein::ViewRequest>(window).from == 1'000'000);
  CHECK(std::get<skein::ViewRequest>(window).to == 2'000'000);
  CHECK(std::get<skein::ViewRequest>(window).select == 7);
  CHECK(std::get<skein::ViewRequest>(window).why);
}
