// zoom_history.hpp — Back and Forward for the timeline's time window, as a
// browser has for pages: every window change a user makes (zoom, pan,
// fit, range selection, a jump to a thread or a finding) records the
// window it replaced; back() returns to it, forward() undoes the back.
// Plain code: the widget records, and passes the time in ms, so the tests
// drive it with any clock.
//
// Invariants:
//   - a record() clears the forward list (a new branch of history);
//   - consecutive records of one continuous gesture (wheel ticks, a held
//     key, the same key pressed again) less than kCoalesceMs apart are one
//     entry: the window from before the first of them;
//   - at most kCapacity entries back; the oldest go first;
//   - back() then forward() returns the window back() was given.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>

#include "viewer/timeline/time_mapping.hpp"

namespace skein {

// What made a change; `once` never coalesces (a fit, a range, a jump).
enum class WindowGesture : std::uint8_t {
  once,
  wheel_zoom,
  wheel_pan,
  zoom_in,
  zoom_out,
  pan_earlier,
  pan_later,
  drag,
};

class ZoomHistory {
 public:
  static constexpr std::size_t kCapacity = 100;
  static constexpr std::int64_t kCoalesceMs = 500;

  // `before` is the window a change replaced (the caller records only
  // changes that changed something), at `now_ms`.
  void record(const TimeMapping& before, WindowGesture gesture, std::int64_t now_ms);
  // The window to go back (forward) to, given the one shown now; nullopt
  // when there is none.
  [[nodiscard]] std::optional<TimeMapping> back(const TimeMapping& current);
  [[nodiscard]] std::optional<TimeMapping> forward(const TimeMapping& current);
  void clear();

  [[nodiscard]] std::size_t back_size() const { return back_.size(); }
  [[nodiscard]] std::size_t forward_size() const { return forward_.size(); }

 private:
  std::deque<TimeMapping> back_;     // newest last
  std::deque<TimeMapping> forward_;  // the next forward() last
  WindowGesture last_gesture_ = WindowGesture::once;
  std::int64_t last_ms_ = 0;
};

}  // namespace skein
