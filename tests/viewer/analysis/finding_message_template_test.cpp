// finding_message_template_test.cpp — a finding's sentence split into a
// template and its numbers comes back byte for byte, two ways: through
// render_message_template, and through SQLite's own printf(), which is what
// the `anomalies` view runs (the oracle that is not the code under test).
// The exact templates of small cases pin the documented forms; rendering
// refuses each form the splitter never writes, beside the accepted value on
// the other side of each boundary.
#include <catch2/catch.hpp>
#include <random>
#include <string>
#include <vector>

#include "recorder/store/sqlite_database.hpp"
#include "tests/support/store_query.hpp"
#include "viewer/analysis/finding_message_template.hpp"

using namespace skein;
namespace test = skein::test;

namespace {

using Arguments = std::array<std::optional<std::int64_t>, kMessageArguments>;

// printf(template, a1, a2, a3, a4) as SQLite computes it.
std::string sqlite_printf(SqliteDatabase& db, const MessageTemplate& t) {
  auto q = db.prepare("SELECT printf(?1, ?2, ?3, ?4, ?5)");
  REQUIRE(q.ok());
  q.value().bind(1, std::string_view(t.text));
  for (std::size_t a = 0; a < kMessageArguments; ++a) q.value().bind(static_cast<int>(2 + a), t.arguments[a]);
  auto row = q.value().step();
  REQUIRE(row.ok());
  REQUIRE(row.value());
  return std::string(q.value().text(0));
}

}  // namespace

TEST_CASE("finding message template: the documented forms, exactly") {
  const MessageTemplate t = split_message("thread 12 took control from thread 3 at its resolve of thread 12 with 100% of it");
  CHECK(t.text == "thread %d took control from thread %d at its resolve of thread %d with %d%% of it");
  CHECK(t.arguments == Arguments{12, 3, 12, 100});
  // A leading zero keeps its width; "0" alone is a plain number.
  const MessageTemplate times = split_message("at 0.003000 ms, 0 left");
  CHECK(times.text == "at %d.%06d ms, %d left");
  CHECK(times.arguments == Arguments{0, 3000, 0, std::nullopt});
  // Past four numbers, and past 18 digits, digits stay as written.
  CHECK(split_message("1 2 3 4 5").text == "%d %d %d %d 5");
  CHECK(split_message("1234567890123456789 x 123456789012345678").text == "1234567890123456789 x %d");
  CHECK(split_message("1234567890123456789 x 123456789012345678").arguments[0] == 123456789012345678);
  // A label with a percent sign and digits of its own.
  CHECK(split_message("thread 6 \"50%d\"").text == "thread %d \"%d%%d\"");
  CHECK(split_message("").text.empty());
}

TEST_CASE("finding message template: any text comes back byte for byte, as SQLite's printf gives it") {
  test::TempDir dir;
  auto db = SqliteDatabase::create_for_bulk_load(dir.file("printf.db"));
  REQUIRE(db.ok());
  // Texts drawn from an alphabet that exercises every branch: digits (with
  // leading zeros and long runs), percent signs, d's and the bytes of UTF-8.
  const std::string alphabet = "0000123456789%%%dd -.\"ab\xc3\xa9\n";
  std::mt19937_64 rng(20141018);
  for (int i = 0; i < 20'000; ++i) {
    std::string text;
    const std::size_t length = rng() % 48;
    for (std::size_t k = 0; k < length; ++k) text += alphabet[rng() % alphabet.size()];
    if (i % 50 == 0) text += std::string(rng() % 25, '0' + static_cast<char>(rng() % 10));  // a long run
    INFO(text);
    const MessageTemplate t = split_message(text);
    const auto rendered = render_message_template(t.text, t.arguments);
    REQUIRE(rendered.has_value());
    CHECK(*rendered == text);
    CHECK(sqlite_printf(db.value(), t) == text);
  }
}

TEST_CASE("finding message template: rendering refuses what the splitter never writes") {
  const Arguments one{7, std::nullopt, std::nullopt, std::nullopt};
  // Conversions other than %d, %0Nd and %%.
  CHECK(render_message_template("a %s", one) == std::nullopt);
  CHECK(render_message_template("a %", one) == std::nullopt);
  CHECK(render_message_template("a %5d", one) == std::nullopt);
  CHECK(render_message_template("a %d", one) == "a 7");
  CHECK(render_message_template("a %%", one) == "a %");
  // Widths from 2 to 18.
  CHECK(render_message_template("%0d", one) == std::nullopt);
  CHECK(render_message_template("%01d", one) == std::nullopt);
  CHECK(render_message_template("%02d", one) == "07");
  CHECK(render_message_template("%018d", one) == "000000000000000007");
  CHECK(render_message_template("%019d", one) == std::nullopt);
  CHECK(render_message_template("%0100d", one) == std::nullopt);
  // A number for each conversion, none negative, none wider than its width.
  CHECK(render_message_template("%d %d", one) == std::nullopt);
  CHECK(render_message_template("%d %d %d %d %d", Arguments{1, 2, 3, 4}) == std::nullopt);
  CHECK(render_message_template("%d %d %d %d", Arguments{1, 2, 3, 4}) == "1 2 3 4");
  CHECK(render_message_template("%d", Arguments{-1, {}, {}, {}}) == std::nullopt);
  CHECK(render_message_template("%d", Arguments{0, {}, {}, {}}) == "0");
  CHECK(render_message_template("%02d", Arguments{100, {}, {}, {}}) == std::nullopt);
  CHECK(render_message_template("%02d", Arguments{99, {}, {}, {}}) == "99");
}

TEST_CASE("finding message template: its shape and the numbers' fit say exactly when rendering succeeds") {
  // Readers that keep a template check it once (message_template_shape)
  // and each finding's numbers (message_arguments_fit), then render later:
  // the two must accept exactly what rendering accepts. Templates from an
  // alphabet of conversions, malformed ones included, with numbers absent,
  // negative, at and past each width's boundary.
  const std::vector<std::string> pieces = {"%d", "%%", "%", "%02d", "%03d", "%018d", "%019d", "%0d", "%01d",
                                           "%5d", "%s", "x", " ", "0", "%0100d", "d"};
  const std::vector<std::optional<std::int64_t>> values = {std::nullopt, -1, 0, 7, 99, 100, 999, 1000,
                                                           999'999'999'999'999'999, 1'000'000'000'000'000'000};
  std::mt19937_64 rng(2014);
  int accepted = 0, refused = 0;
  for (int i = 0; i < 20'000; ++i) {
    std::string text;
    const std::size_t length = rng() % 7;
    for (std::size_t k = 0; k < length; ++k) text += pieces[rng() % pieces.size()];
    Arguments arguments;
    for (auto& a : arguments) a = values[rng() % values.size()];
    INFO(text);
    const auto rendered = render_message_template(text, arguments);
    const auto shape = message_template_shape(text);
    CHECK(rendered.has_value() == (shape.has_value() && message_arguments_fit(*shape, arguments)));
    (rendered ? accepted : refused) += 1;
  }
  // Both sides of the boundary were reached often.
  CHECK(accepted > 1000);
  CHECK(refused > 1000);
  const auto shape = message_template_shape("a %d b %03d %% %018d");
  REQUIRE(shape.has_value());
  CHECK(shape->count == 3);
  CHECK(shape->widths == std::array<std::uint8_t, kMessageArguments>{0, 3, 18, 0});
}
