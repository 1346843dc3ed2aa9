// time_ruler.hpp — the ruler over the timeline: where the divisions go and
// how their times read. A division is 1, 2 or 5 times a power of ten
// nanoseconds, the smallest such step at least `min_px` wide, so labels
// never collide at any zoom; labels read in ns, µs, ms or s with just
// enough decimals to tell neighbours apart, and the
// caption says "each division: 200 µs". Times on the ruler are relative to
// `origin`; the timeline passes 0, so the ruler reads record times, from
// the trace's origin (recorder/format/FORMAT.md, "Times"). No Qt.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "viewer/timeline/time_mapping.hpp"

namespace skein {

struct RulerTick {
  double x = 0;
  std::string label;
};

struct TimeRuler {
  double step_ns = 1;
  std::string caption;  // "each division: 200 µs"
  std::vector<RulerTick> ticks;
};

[[nodiscard]] TimeRuler make_ruler(const TimeMapping& mapping, double width, double origin, double min_px = 90);
// The division step for `ns_per_px`.
[[nodiscard]] double ruler_step_ns(double ns_per_px, double min_px);
// A time relative to the origin, in the unit of the larger of it and the
// step, with the decimals the step needs: "125.2 ms" at 200 µs a division.
[[nodiscard]] std::string format_ruler_time(double ns, double step_ns);

}  // namespace skein
