// units.cpp — plain std formatting and parsing. Negative values are
// handled through their unsigned magnitude, so INT64_MIN is safe.
// format_duration_ns() picks the largest unit not above the magnitude and
// 2, 1 or 0 decimals to keep three significant digits. parse_duration_ns()
// reads the number with strtod and then a unit suffix (spaces allowed
// before it); parse_milliseconds_ns() uses std::from_chars, hence
// locale-independent, and refuses NaN, infinities and negatives.
#include "viewer/analysis/units.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace skein {

std::string group_thousands(std::int64_t value) {
  const bool negative = value < 0;
  // Work on the unsigned magnitude so INT64_MIN is safe.
  std::uint64_t magnitude = negative ? ~static_cast<std::uint64_t>(value) + 1 : static_cast<std::uint64_t>(value);
  std::string digits = std::to_string(magnitude);
  std::string out;
  const std::size_t n = digits.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return negative ? "-" + out : out;
}

std::string plural_noun(std::uint64_t count, std::string_view singular, std::string_view plural) {
  if (count == 1) return std::string(singular);
  return plural.empty() ? std::string(singular) + "s" : std::string(plural);
}

std::string counted(std::uint64_t count, std::string_view singular, std::string_view plural) {
  // Past INT64_MAX the digits are printed ungrouped: no count gets there.
  const std::string digits = count <= static_cast<std::uint64_t>(INT64_MAX)
                                 ? group_thousands(static_cast<std::int64_t>(count))
                                 : std::to_string(count);
  return digits + " " + plural_noun(count, singular, plural);
}

std::string format_time_us(std::int64_t ns) {
  const bool negative = ns < 0;
  // |INT64_MIN| does not fit: take it from the unsigned value.
  const std::uint64_t magnitude = negative ? std::uint64_t{0} - static_cast<std::uint64_t>(ns) : static_cast<std::uint64_t>(ns);
  const std::uint64_t whole = magnitude / 1000;
  const std::uint64_t frac = magnitude % 1000;
  std::string digits = group_thousands(static_cast<std::int64_t>(whole));
  char tail[8];
  std::snprintf(tail, sizeof tail, ".%03u", static_cast<unsigned>(frac));
  return (negative ? "-" : "") + digits + tail + " µs";
}

std::string format_duration_ns(std::int64_t ns) {
  const double magnitude = std::fabs(static_cast<double>(ns));
  if (magnitude < 1000.0) return std::to_string(ns) + " ns";
  struct Unit {
    double scale;
    const char* name;
  };
  static constexpr Unit kUnits[] = {{1e3, "µs"}, {1e6, "ms"}, {1e9, "s"}};
  const Unit* unit = &kUnits[0];
  for (const Unit& u : kUnits)
    if (magnitude >= u.scale) unit = &u;
  const double value = static_cast<double>(ns) / unit->scale;
  const double abs_value = std::fabs(value);
  const int decimals = abs_value >= 100.0 ? 0 : abs_value >= 10.0 ? 1 : 2;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit->name);
  return buf;
}

std::optional<std::int64_t> parse_duration_ns(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  const double value = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || !(value >= 0)) return std::nullopt;
  std::string_view unit(end);
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  double scale = 0;
  if (unit == "ns") scale = 1;
  else if (unit == "us" || unit == "µs") scale = 1e3;
  else if (unit == "ms") scale = 1e6;
  else if (unit == "s") scale = 1e9;
  else return std::nullopt;
  const double ns = value * scale;
  if (ns > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(ns));
}

std::optional<std::int64_t> parse_milliseconds_ns(std::string_view text, double max_ms) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  // from_chars takes no '+'; a number may have one.
  if (text.size() > 1 && text.front() == '+' && text[1] != '-') text.remove_prefix(1);
  double ms = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  // NaN fails every comparison, so `!(ms >= 0)` refuses it with the negatives.
  if (!std::isfinite(ms) || !(ms >= 0) || ms > max_ms) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(ms * 1e6));
}

}  // namespace skein
