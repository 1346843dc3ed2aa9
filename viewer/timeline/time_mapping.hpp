// time_mapping.hpp — the timeline's x axis: a pure, copyable value mapping
// trace time (ns since the origin) to pixels and back, and the zoom and
// pan operations on it. No Qt; the widget, the `skein render` command and
// the tests share it.
//
// Invariants: ns_per_px is in [kMinNsPerPx, kMaxNsPerPx]; x_of(t_of(x)) == x
// up to rounding; zoom_at(x, f) keeps t_of(x) fixed (the time under the
// pointer stays put).
#pragma once

#include <cstdint>

#include "recorder/format/record.hpp"

namespace skein {

struct TimeMapping {
  static constexpr double kMinNsPerPx = 1e-3;  // 1 ps a pixel: deeper than any trace resolves
  static constexpr double kMaxNsPerPx = 1e15;

  double start = 0;      // the time at x == 0, ns (fractional: zooming is continuous)
  double ns_per_px = 1;

  [[nodiscard]] double x_of(double t) const { return (t - start) / ns_per_px; }
  [[nodiscard]] double t_of(double x) const { return start + x * ns_per_px; }
  [[nodiscard]] double end(double width) const { return t_of(width); }

  // `factor` > 1 zooms in (fewer ns a pixel) around pixel x.
  void zoom_at(double x, double factor);
  void pan_px(double dx) { start -= dx * ns_per_px; }
  // Shows [from, to] across `width` pixels.
  void fit(double from, double to, double width);

  [[nodiscard]] static TimeMapping fitted(double from, double to, double width) {
    TimeMapping m;
    m.fit(from, to, width);
    return m;
  }

  // Exact equality: the zoom history restores a window bit for bit.
  friend bool operator==(const TimeMapping&, const TimeMapping&) = default;
};

}  // namespace skein
