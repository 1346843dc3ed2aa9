// time_ruler.cpp — ruler_step_ns() starts at the power of ten at or below
// ns_per_px × min_px and tries 1, 2 and 5 of each power upward until one
// is at least that wide (never under 1 ns). Ticks sit at whole multiples
// of the step from the origin, from the first at or after the left edge to
// the right edge, at most about a thousand of them. A label's unit is that
// of the larger of the time and the step; its decimals are the fewest that
// show one step, and a value that would round to zero prints as 0.
#include "viewer/timeline/time_ruler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace skein {
namespace {

struct Unit {
  double scale;
  const char* name;
};

Unit unit_for(double ns) {
  if (ns >= 1e9) return {1e9, "s"};
  if (ns >= 1e6) return {1e6, "ms"};
  if (ns >= 1e3) return {1e3, "µs"};
  return {1, "ns"};
}

std::string number(double value, int decimals, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit);
  return buf;
}

}  // namespace

double ruler_step_ns(double ns_per_px, double min_px) {
  const double wanted = ns_per_px * min_px;
  double power = std::pow(10.0, std::floor(std::log10(std::max(wanted, 1e-3))));
  for (;;) {
    for (double m : {1.0, 2.0, 5.0})
      if (m * power >= wanted) return std::max(m * power, 1.0);
    power *= 10;
  }
}

std::string format_ruler_time(double ns, double step_ns) {
  // The unit of the larger of the time and the step ("125.2 ms", not
  // "125200 µs"); decimals: enough that one step changes the last digit.
  const Unit u = unit_for(std::max(std::fabs(ns), step_ns));
  const double step_in_unit = step_ns / u.scale;
  const int decimals = step_in_unit >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step_in_unit) - 1e-9));
  const double value = ns / u.scale;
  return number(std::fabs(value) < 0.5 * std::pow(10.0, -decimals) ? 0.0 : value, decimals, u.name);
}

TimeRuler make_ruler(const TimeMapping& mapping, double width, double origin, double min_px) {
  TimeRuler r;
  r.step_ns = ruler_step_ns(mapping.ns_per_px, min_px);
  const Unit u = unit_for(r.step_ns);
  r.caption = "each division: " + number(r.step_ns / u.scale, 0, u.name);
  // Divisions at multiples of the step from the origin.
  const double first = std::ceil((mapping.t_of(0) - origin) / r.step_ns) * r.step_ns;
  for (double rel = first; ; rel += r.step_ns) {
    const double x = mapping.x_of(origin + rel);
    if (x > width || r.ticks.size() > 1000) break;
    r.ticks.push_back(RulerTick{x, format_ruler_time(rel, r.step_ns)});
  }
  return r;
}

}  // namespace skein
