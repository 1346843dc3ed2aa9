// zoom_history.cpp — two deques, newest entry last. record() coalesces
// only a gesture other than `once` that repeats the previous one less than
// kCoalesceMs later (a clock going backwards never coalesces); any record
// empties the forward list. back() and forward() move the current window
// onto the other list and reset the last gesture, so the next gesture opens
// an entry of its own. Both pushes onto the back list drop the oldest entry
// beyond kCapacity; the forward list needs no cap, being filled only by back().
#include "viewer/timeline/zoom_history.hpp"

namespace skein {

void ZoomHistory::record(const TimeMapping& before, WindowGesture gesture, std::int64_t now_ms) {
  const bool continues = gesture != WindowGesture::once && gesture == last_gesture_ && !back_.empty() &&
                         now_ms - last_ms_ >= 0 && now_ms - last_ms_ < kCoalesceMs;
  last_gesture_ = gesture;
  last_ms_ = now_ms;
  forward_.clear();
  if (continues) return;
  back_.push_back(before);
  if (back_.size() > kCapacity) back_.pop_front();
}

std::optional<TimeMapping> ZoomHistory::back(const TimeMapping& current) {
  last_gesture_ = WindowGesture::once;  // the next gesture starts an entry of its own
  if (back_.empty()) return std::nullopt;
  const TimeMapping to = back_.back();
  back_.pop_back();
  forward_.push_back(current);
  return to;
}

std::optional<TimeMapping> ZoomHistory::forward(const TimeMapping& current) {
  last_gesture_ = WindowGesture::once;
  if (forward_.empty()) return std::nullopt;
  const TimeMapping to = forward_.back();
  forward_.pop_back();
  back_.push_back(current);
  if (back_.size() > kCapacity) back_.pop_front();
  return to;
}

void ZoomHistory::clear() {
  back_.clear();
  forward_.clear();
  last_gesture_ = WindowGesture::once;
}

}  // namespace skein
