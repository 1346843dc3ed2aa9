// timeline_navigation.hpp — the moves a user makes on the timeline's time
// window, as pure functions of a TimeMapping, the canvas width and the
// trace's extent: fitting, zooming, panning, going to the end, and bringing
// a thread into view. No Qt: the widget (viewer/app/timeline_widget.hpp)
// applies them, and the tests check them with exact numbers.
//
// The limits every move keeps to (limit_window), so that no key or wheel
// loses the trace:
//   1. the window is never wider than the fitted window: the trace plus a
//      margin of kFitMargin of its length on each side;
//   2. at least kMinTraceShown of the window (or of the fitted window, when
//      that is the narrower) lies over the fitted window: panning never
//      moves the window off the trace.
// A zoom stopped by rule 1 keeps its anchor (the time under the pointer
// stays put); rule 2 then shifts the window as little as it must.
#pragma once

#include <optional>

#include "recorder/format/record.hpp"
#include "viewer/timeline/time_mapping.hpp"

namespace skein {

// A stretch of trace time, [from, to], ns (the store's times).
struct TimeWindow {
  double from = 0;
  double to = 0;
  [[nodiscard]] double span() const { return to - from; }
};

inline constexpr double kFitMargin = 0.01;     // of the trace's length, each side of the fitted window
inline constexpr double kMinTraceShown = 0.5;  // rule 2's share
// Bringing a thread into view (reveal_window).
inline constexpr double kRevealSmallest = 0.01;  // narrower than this share of the window: zoom in
inline constexpr double kRevealFill = 1.0 / 3;   // ... until it fills this share
inline constexpr double kRevealLargest = 0.9;    // wider than this share: zoom out
inline constexpr double kRevealMargin = 0.05;    // ... to the thread plus this share of it each side
inline constexpr double kRevealMinSpanNs = 1000;  // never zoom in deeper than a 1 µs window

// The window Home shows: [first_time, end_time] (at least 1 ns) with the
// margin on both sides, so the first and last marks are not cut.
[[nodiscard]] TimeWindow fitted_window(TimeNs first_time, TimeNs end_time);

// Applies rules 1 and 2 to `m` for a canvas `width` pixels wide; a scale
// reduced by rule 1 keeps t_of(anchor_x).
void limit_window(TimeMapping& m, const TimeWindow& fitted, double width, double anchor_x);

// `factor` > 1 zooms in around pixel x; then limited.
[[nodiscard]] TimeMapping zoomed(const TimeMapping& m, const TimeWindow& fitted, double width, double x, double factor);
// Moves by `fraction` of the window: > 0 shows later times; then limited.
[[nodiscard]] TimeMapping panned(const TimeMapping& m, const TimeWindow& fitted, double width, double fraction);
// The same zoom, moved so that `end_time` has the right margin the fitted
// view has (the same share of the window: at the fitted zoom, the fitted
// window itself); then limited.
[[nodiscard]] TimeMapping at_end(const TimeMapping& m, TimeNs end_time, const TimeWindow& fitted, double width);

// Where to move so that a thread living [start, end] is in view, or
// nullopt when it already is. With W the window's span and
// d = max(end - start, 1):
//   - wholly in the window and d >= kRevealSmallest * W: nullopt;
//   - d > kRevealLargest * W (it does not fit): the thread with a margin
//     of kRevealMargin * d each side (zoom out);
//   - d < kRevealSmallest * W (too thin to see): a window centred on it
//     that it fills kRevealFill of, but never narrower than
//     kRevealMinSpanNs (zoom in); when that is not narrower than W,
//     nullopt if it is in the window, else centred on it, span W;
//   - otherwise (it fits but is cut or off-screen): centred on it, span W.
// The caller limits the result like any other window.
[[nodiscard]] std::optional<TimeWindow> reveal_window(const TimeMapping& m, double width, TimeNs start, TimeNs end);

}  // namespace skein
