// numeric_option_test.cpp — every numeric option of `skein` and skein-view
// refuses NaN, infinities, negatives where they make no sense, and text
// that is not a number, with a usage error (exit 2) naming the option,
// before it reads any input; valid values still pass.
#include <catch2/catch.hpp>

#include <cmath>

#include "tests/hostile/hostile_inputs.hpp"
#include "viewer/analysis/units.hpp"

namespace skein::test {

TEST_CASE("hostile: numeric options refuse NaN, infinities and negatives", "[hostile]") {
  TempDir dir;
  const std::string trace = copy_corpus(dir, "thread-ids-near-2p63.sexp");
  const std::string png = dir.file("o.png");
  struct Option {
    std::vector<std::string> before;  // the command and options before the value
    std::string option;
    std::vector<std::string> bad;
  };
  const std::vector<std::string> not_numbers = {"nan", "NaN", "inf", "-inf", "infinity", "1e400", "", "2x", "0x1p3"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> all = not_numbers;
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  };
  const std::vector<Option> options = {
      {{"lint"}, "--block-ms", with({"-1", "-0.001", "1e10"})},
      {{"summary"}, "--duration", with({"-1", "1e13"})},
      {{"render", "-o", png}, "--from", with({"-1ms", "nan ms", "inf s", "1e400s"})},
      {{"render", "-o", png}, "--to", with({"-5us", "nanms", "infs"})},
      {{"render", "-o", png}, "--width", with({"-1600", "1e3", "199", "16385"})},
      {{"render", "-o", png}, "--height", with({"-900", "9e2", "149", "16385"})},
      {{"check"}, "--max-errors", with({"-1", "1.5"})},
      {{"info"}, "--max-warnings", with({"-1", "2.5"})},
      {{"why"}, "--thread", with({"1.5", "9223372036854775808", "-2"})},
      {{"why", "--thread", "0"}, "--at", with({"-1ms", "nan ms", "inf s"})},
      {{"why"}, "--finding", with({"0", "-1", "1.5"})},
      {{"why"}, "--event", with({"0", "-1", "1.5"})},
  };
  for (const Option& o : options)
    for (const std::string& value : o.bad) {
      std::vector<std::string> args = o.before;
      args.push_back(o.option);
      args.push_back(value);
      args.push_back(trace);
      INFO(args[0] << " " << o.option << " '" << value << "'");
      const ProcessResult r = run_skein(args);
      CHECK(r.exit_code == 2);
      CHECK(r.err.find("skein " + args[0] + ": ") != std::string::npos);
      CHECK(r.err.find(o.option) != std::string::npos);
    }
  // The values these options take still pass.
  CHECK(run_skein({"lint", "--no-store", "--block-ms", "2.5", trace}).exit_code <= 1);
  CHECK(run_skein({"lint", "--no-store", "--block-ms", " 0 ", trace}).exit_code <= 1);
  CHECK(run_skein({"summary", "--duration", "0", trace}).exit_code == 0);
  CHECK(run_skein({"summary", "--duration", "1e12", trace}).exit_code == 0);
  CHECK(run_skein({"render", "-o", png, "--from", "0ns", "--to", "90ns", trace}).exit_code == 0);

  // skein-view reads --from and --to before it opens a window.
  for (const std::string value : {"nan", "nanms", "inf s", "-1ms"}) {
    INFO("skein-view --from '" << value << "'");
    const ProcessResult r =
        run_process({SKEIN_VIEW_PATH, "--from", value, trace}, {}, {"QT_QPA_PLATFORM=offscreen"});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("skein-view: --from takes a time with a unit") != std::string::npos);
  }
}

TEST_CASE("hostile: milliseconds and durations parse only finite, non-negative numbers", "[hostile]") {
  CHECK(parse_milliseconds_ns("2.5", 1e9) == 2'500'000);
  CHECK(parse_milliseconds_ns("0", 1e9) == 0);
  CHECK(parse_milliseconds_ns("\t1e3 ", 1e9) == 1'000'000'000);
  CHECK(parse_milliseconds_ns("1e9", 1e9) == 1'000'000'000'000'000);
  CHECK(parse_milliseconds_ns("1e12", 1e12) == 1'000'000'000'000'000'000);
  CHECK(parse_milliseconds_ns("+1.5", 1e9) == 1'500'000);
  for (const std::string bad : {"nan", "-nan", "NAN", "inf", "-inf", "infinity", "-1", "-0.5", "1e400", "1e9.5", "",
                                " ", "2x", "+", "+-1", "0x10", "1,5"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_milliseconds_ns(bad, 1e9));
  }
  CHECK_FALSE(parse_milliseconds_ns("1000000001", 1e9));
  for (const std::string bad : {"nan ms", "nanms", "inf s", "-inf s", "-1ms", "1e400s", "1e19ns"}) {
    INFO("'" << bad << "'");
    CHECK_FALSE(parse_duration_ns(bad));
  }
}

}  // namespace skein::test
