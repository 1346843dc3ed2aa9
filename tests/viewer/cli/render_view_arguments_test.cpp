// render_view_arguments_test.cpp — the command lines the README promises
// for drawing a trace: `skein render TRACE|DB -o out.png|out.svg [--from T
// --to T | --finding N] [--width W --height H]` and `skein-view [TRACE|DB]
// [--from T --to T] [--select ID [--why]] [--finding N] [--export-view
// FILE.png|FILE.svg]`, with no display: each option does what it says,
// and every bad value exits 2 with a message naming it, never a crash or a
// dialog. `skein-view --help` and `--version` print and exit 0 with no
// window system at all (DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM unset).
//
// The trace is small and known: thread 1 from 100 ns to 2.1 µs, the end at
// 1.5 ms, so a window's ruler labels (SVG text, `>1.00 ms<`) say which
// window was drawn. Sizes are read from the files themselves: a PNG's IHDR
// width and height, an SVG's viewBox.
#include <catch2/catch.hpp>

#include <cstdint>
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
// No window system: both commands must draw offscreen by themselves.
const std::vector<std::string> kNoDisplay = {"DISPLAY=", "WAYLAND_DISPLAY=", "QT_QPA_PLATFORM="};

const char* const kTrace =
    "(skein-trace 1 (process \"t\") (pid 1))\n"
    "(spawn 100 1 0 task)\n"
    "(label 100 1 \"worker\")\n"
    "(resolve 2100 1 -1 ok)\n"
    "(end 1500000)\n";

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Size {
  long width = -1;
  long height = -1;
};

// A PNG's size from its IHDR chunk (bytes 16..23, big endian).
Size png_size(const std::string& bytes) {
  if (bytes.size() < 24 || bytes.compare(1, 3, "PNG") != 0 || bytes.compare(12, 4, "IHDR") != 0) return {};
  const auto be32 = [&](std::size_t at) {
    long v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v * 256 + static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

// An SVG's size from its viewBox ("0 0 W H").
Size svg_size(const std::string& text) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("viewBox=\"0 0 ([0-9]+) ([0-9]+)\""))) return {};
  return {std::stol(m[1]), std::stol(m[2])};
}

// The ruler's tick labels in an SVG, as record times in ns, in order.
std::vector<double> ruler_ns(const std::string& svg) {
  std::vector<double> out;
  const std::regex label(">([0-9.]+) (ns|µs|ms|s)<");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it) {
    const double value = std::stod((*it)[1]);
    const std::string unit = (*it)[2];
    out.push_back(value * (unit == "ns" ? 1 : unit == "µs" ? 1e3 : unit == "ms" ? 1e6 : 1e9));
  }
  return out;
}

}  // namespace

TEST_CASE("coverage: skein render -o writes a PNG or an SVG of the size --width and --height give") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);

  const std::string png = dir.file("default.png");
  const auto by_default = run_process({kSkein, "render", trace, "-o", png}, {}, kNoDisplay);
  INFO(by_default.err);
  REQUIRE(by_default.exit_code == 0);
  CHECK(by_default.out == png + "\n");
  const Size d = png_size(slurp(png));
  CHECK(d.width == 1600);
  CHECK(d.height == 900);

  const std::string small = dir.file("small.png");
  REQUIRE(run_process({kSkein, "render", trace, "-o", small, "--width", "400", "--height", "300"}, {}, kNoDisplay)
              .exit_code == 0);
  const Size s = png_size(slurp(small));
  CHECK(s.width == 400);
  CHECK(s.height == 300);

  // The README's gallery command.
  const std::string svg = dir.file("gallery.svg");
  const auto drawn = run_process({kSkein, "render", trace, "-o", svg, "--width", "1200", "--height", "560"}, {},
                                 kNoDisplay);
  INFO(drawn.err);
  REQUIRE(drawn.exit_code == 0);
  const std::string text = slurp(svg);
  CHECK(text.rfind("<?xml", 0) == 0);
  const Size v = svg_size(text);
  CHECK(v.width == 1200);
  CHECK(v.height == 560);
}

TEST_CASE("coverage: skein render --from and --to choose the window, together or alone") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string svg = dir.file("w.svg");
  const auto ticks = [&](const std::vector<std::string>& window) {
    std::vector<std::string> argv = {kSkein, "render", trace, "-o", svg};
    argv.insert(argv.end(), window.begin(), window.end());
    const auto r = run_process(argv, {}, kNoDisplay);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    const std::vector<double> labels = ruler_ns(slurp(svg));
    REQUIRE(labels.size() >= 3);
    return labels;
  };

  const auto both = ticks({"--from", "1ms", "--to", "1.2ms"});
  CHECK(both.front() == Approx(1e6));
  CHECK(both.back() <= 1.2e6);
  CHECK(both.back() >= 1.1e6);

  const auto from_only = ticks({"--from", "1000us"});  // to the trace's end
  CHECK(from_only.front() == Approx(1e6));
  CHECK(from_only.back() <= 1.5e6);
  CHECK(from_only.back() > 1.2e6);

  const auto to_only = ticks({"--to", "0.5ms"});  // from the first record
  CHECK(to_only.front() < 1e5);
  CHECK(to_only.back() <= 5e5);
  CHECK(to_only.back() >= 3e5);
}

TEST_CASE("coverage: skein render's bad values exit 2 with a message naming them") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string out = dir.file("x.png");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"render", trace}, "missing -o FILE.png|FILE.svg"},
      {{"render", "-o", out}, "missing DB|TRACE"},
      {{"render", trace, trace, "-o", out}, "expected one DB|TRACE, got 2"},
      {{"render", trace, "-o", dir.file("x.jpg")}, "-o takes a .png or .svg file, not '" + dir.file("x.jpg") + "'"},
      {{"render", trace, "-o", out, "--from", "soon"}, "--from takes a time with a unit"},
      {{"render", trace, "-o", out, "--to", "12"},
       "--to takes a time with a unit (125ms, 1.5s, 300us, 42ns), not '12'"},
      {{"render", trace, "-o", out, "--from", "-1ms"}, "--from takes a time with a unit"},
      {{"render", trace, "-o", out, "--from", "2ms", "--to", "1ms"}, "--to must be after --from"},
      {{"render", trace, "-o", out, "--from", "1ms", "--to", "1ms"}, "--to must be after --from"},
      {{"render", trace, "-o", out, "--width", "199"}, "--width and --height take pixels, 200x150 to 16384x16384"},
      {{"render", trace, "-o", out, "--height", "149"}, "--width and --height take pixels"},
      {{"render", trace, "-o", out, "--width", "16385"}, "--width and --height take pixels"},
      {{"render", trace, "-o", out, "--height", "wide"}, "--width and --height take pixels"},
      {{"render", trace, "-o", out, "--finding", "1", "--to", "1ms"}, "--finding sets the window"},
      {{"render", trace, "-o", out, "--no-such-option"}, "Unknown option 'no-such-option'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kSkein};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const auto r = run_process(argv, {}, kNoDisplay);
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    INFO(line << "-> exit " << r.exit_code << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("skein render: " + c.message) != std::string::npos);
    CHECK(r.err.find(c.message) != std::string::npos);
    CHECK(r.out.empty());
    CHECK_FALSE(skein::test::file_exists(out));
  }
  // A trace that cannot be opened is the other cause of exit status 2.
  const auto missing = run_process({kSkein, "render", dir.file("no.sexp"), "-o", out}, {}, kNoDisplay);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find(dir.file("no.sexp") + ": cannot open") != std::string::npos);
  CHECK_FALSE(skein::test::file_exists(out));
}

TEST_CASE("coverage: skein-view --help and --version print and exit 0 with no window system at all") {
  // env -u, so the variables are unset rather than empty.
  const std::vector<std::string> unset = {"/usr/bin/env", "-u", "DISPLAY", "-u", "WAYLAND_DISPLAY", "-u",
                                          "QT_QPA_PLATFORM"};
  std::vector<std::string> help = unset;
  help.insert(help.end(), {kView, "--help"});
  const auto h = run_process(help);
  INFO(h.err);
  CHECK(h.exit_code == 0);
  CHECK(h.out.rfind("Usage: ", 0) == 0);
  for (const char* option : {"TRACE|DB", "--from <T>", "--to <T>", "--select <ID>", "--why", "--finding <N>",
                             "--export-view <FILE>", "--version", "--help"}) {
    INFO(option);
    CHECK(h.out.find(option) != std::string::npos);
  }
  CHECK(h.err.find("platform plugin") == std::string::npos);
  std::vector<std::string> version = unset;
  version.insert(version.end(), {kView, "--version"});
  const auto v = run_process(version);
  CHECK(v.exit_code == 0);
  CHECK(std::regex_search(v.out, std::regex("^skein-view [0-9]+\\.[0-9]+")));
}

TEST_CASE("coverage: skein-view's arguments, with --export-view and no display") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);

  // The window: the ruler reads the record times asked for.
  const std::string svg = dir.file("view.svg");
  const auto r = run_process({kView, trace, "--from", "1us", "--to", "2.5us", "--export-view", svg}, {},
                             kNoDisplay);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out == svg + "\n");
  const std::string text = slurp(svg);
  CHECK(svg_size(text).width > 0);
  const std::vector<double> labels = ruler_ns(text);
  REQUIRE(labels.size() >= 3);
  CHECK(labels.front() == Approx(1e3));
  CHECK(labels.back() <= 2.5e3);

  // --select marks the thread; --why adds the Why? path, drawn in its own
  // colour (viewer/render/timeline_style.hpp, kCausalPath #c026d3).
  const auto view = [&](const std::vector<std::string>& options, const std::string& name) {
    std::vector<std::string> argv = {kView, trace};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"--export-view", dir.file(name)});
    const auto v = run_process(argv, {}, kNoDisplay);
    INFO(v.err);
    REQUIRE(v.exit_code == 0);
    return slurp(dir.file(name));
  };
  const std::string plain = view({}, "plain.svg");
  const std::string selected = view({"--select", "1"}, "selected.svg");
  const std::string why = view({"--select", "1", "--why"}, "why.svg");
  const std::string path_colour = "stroke=\"#c026d3\"";
  CHECK(selected != plain);
  CHECK(plain.find(path_colour) == std::string::npos);
  CHECK(selected.find(path_colour) == std::string::npos);
  CHECK(why.find(path_colour) != std::string::npos);

  const std::string png = dir.file("view.png");
  REQUIRE(run_process({kView, trace, "--export-view", png}, {}, kNoDisplay).exit_code == 0);
  CHECK(png_size(slurp(png)).width > 0);

  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::string out = dir.file("x.png");
  const std::vector<Case> cases = {
      {{trace, "--from", "soon", "--export-view", out}, "--from takes a time with a unit"},
      {{trace, "--to", "12", "--export-view", out}, "--to takes a time with a unit"},
      {{trace, "--select", "first", "--export-view", out}, "--select takes a thread id"},
      {{trace, "--why", "--export-view", out}, "--why needs --select ID"},
      {{trace, "--finding", "0", "--export-view", out}, "--finding takes a finding's number"},
      {{trace, "--finding", "one", "--export-view", out}, "--finding takes a finding's number"},
      {{trace, "--export-view", dir.file("x.jpg")}, "--export-view takes a .png or .svg file"},
      {{"--export-view", out}, "--export-view needs a TRACE or DB to open"},
      {{trace, "--finding", "9", "--export-view", out}, "no finding #9"},
      {{trace, "--no-such-option", "--export-view", out}, "Unknown option 'no-such-option'"},
      {{trace, "--from"}, "Missing value after '--from'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {kView};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    const auto bad = run_process(argv, {}, kNoDisplay);
    std::string line;
    for (const auto& a : c.args) line += a + " ";
    INFO(line << "-> exit " << bad.exit_code << ": " << bad.err);
    CHECK(bad.exit_code == 2);
    CHECK(bad.err.find(c.message) != std::string::npos);
    CHECK_FALSE(skein::test::file_exists(out));
  }
  // A trace that cannot be opened: exit 1, with the reason.
  const auto missing = run_process({kView, dir.file("no.sexp"), "--export-view", out}, {}, kNoDisplay);
  CHECK(missing.exit_code == 1);
  CHECK(missing.err.find(dir.file("no.sexp")) != std::string::npos);
  CHECK_FALSE(skein::test::file_exists(out));
}
