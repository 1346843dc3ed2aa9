// timeline_view.cpp — the row tests are binary searches over a row's
// sorted arrays (starts, activations, end_prefix_max), row_alive_in() after
// the row's first-start / last-end bounds; row_active_in() checks ends among
// at most 64 threads alive at the window's start, past that calling the row
// active. refold() is one pass over all rows, the cheap test first; pinned
// rows (the selection's and the notes') never fold, start-up rows only in
// quiet mode over more than half the trace; the top row stays on top.
// select() scans only edges inside the chain's lifetime, testing a bitmap.
#include "viewer/timeline/timeline_view.hpp"

#include <algorithm>
#include <cmath>

namespace skein {

TimelineGeometry::TimelineGeometry(int w, int h, const TimelineData& data)
    : width(w), height(h), counter_lanes(std::min<int>(kMaxCounterLanes, static_cast<int>(data.counters.size()))) {}

int TimelineGeometry::rows_bottom() const {
  return std::max(rows_top(), height - kLegendHeight - counter_lanes * kCounterLaneHeight);
}

std::optional<std::int32_t> TimelineGeometry::slot_at(double y, double row_offset) const {
  if (y < rows_top() || y >= rows_bottom()) return std::nullopt;
  return static_cast<std::int32_t>(std::floor((y - rows_top()) / kRowHeight + row_offset));
}

void TimelineViewState::fit(const TimelineData& data, double width) {
  const TimeWindow w = fitted_window(data.first_time, data.end_time);
  mapping.fit(w.from, w.to, width);
}

void TimelineViewState::select(const TimelineData& data, std::optional<std::uint32_t> thread) {
  selected = thread;
  selected_chain.clear();
  selected_edges.clear();
  selected_turn.reset();
  notes.clear();
  if (!thread || *thread >= data.threads.size()) {
    selected.reset();
    return;
  }
  selected_chain = data.chain_members(*thread);
  // Membership by flag: a chain of tens of thousands of threads over
  // millions of edges stays one lookup an edge.
  std::vector<bool> in_chain(data.threads.size(), false);
  for (std::uint32_t m : selected_chain) in_chain[m] = true;
  const auto member = [&](std::int32_t i) { return i >= 0 && in_chain[static_cast<std::size_t>(i)]; };
  // The chain's edges lie within its lifetime.
  TimeNs from = INT64_MAX, to = INT64_MIN;
  for (std::uint32_t m : selected_chain) {
    from = std::min(from, data.threads[m].start);
    to = std::max(to, data.threads[m].end);
  }
  auto first = std::lower_bound(data.edge_times.begin(), data.edge_times.end(), from) - data.edge_times.begin();
  auto last = std::upper_bound(data.edge_times.begin(), data.edge_times.end(), to) - data.edge_times.begin();
  for (auto i = first; i < last; ++i) {
    const TimelineEdge& e = data.edges[static_cast<std::size_t>(i)];
    if (member(e.src) || member(e.dst)) selected_edges.push_back(static_cast<std::uint32_t>(i));
  }
}

void TimelineViewState::select_turn(const TimelineData& data, const FindingFocus& focus) {
  selected.reset();
  selected_chain.clear();
  selected_edges.clear();
  selected_turn.reset();
  notes.clear();
  if (focus.thread >= data.threads.size()) return;
  selected = focus.thread;
  selected_chain = {focus.thread};
  selected_turn = focus.activation;
  for (std::uint32_t e : focus.edges)
    if (e < data.edges.size()) selected_edges.push_back(e);
  for (const FocusLabel& l : focus.labels)
    if (l.thread < data.threads.size()) notes.push_back(l);
}

bool row_alive_in(const TimelineData& data, std::int32_t row, double t0, double t1) {
  const auto r_index = static_cast<std::size_t>(row);
  if (r_index < data.row_first_start.size() &&
      (double(data.row_first_start[r_index]) > t1 || double(data.row_last_end[r_index]) < t0))
    return false;
  const TimelineRow& r = data.rows[static_cast<std::size_t>(row)];
  auto k = std::lower_bound(r.end_prefix_max.begin(), r.end_prefix_max.end(), t0,
                            [](TimeNs e, double t) { return double(e) < t; });
  return k != r.end_prefix_max.end() && double(r.starts[static_cast<std::size_t>(k - r.end_prefix_max.begin())]) <= t1;
}

bool row_active_in(const TimelineData& data, std::int32_t row, double t0, double t1) {
  const TimelineRow& r = data.rows[static_cast<std::size_t>(row)];
  // A creation in the window.
  auto s = std::lower_bound(r.starts.begin(), r.starts.end(), t0, [](TimeNs v, double t) { return double(v) < t; });
  if (s != r.starts.end() && double(*s) <= t1) return true;
  // A running span overlapping it (disjoint spans: their ends are sorted).
  auto a = std::lower_bound(r.activations.begin(), r.activations.end(), t0,
                            [](const TimelineActivation& act, double t) { return double(act.end) < t; });
  if (a != r.activations.end() && double(a->start) <= t1) return true;
  // An end in it, among the threads alive at t0 (few: a row's threads
  // overlap only within a merge chain); past a bound, call the row active.
  auto k = static_cast<std::size_t>(std::lower_bound(r.end_prefix_max.begin(), r.end_prefix_max.end(), t0,
                                                     [](TimeNs e, double t) { return double(e) < t; }) -
                                    r.end_prefix_max.begin());
  for (int checked = 0; k < r.threads.size() && double(r.starts[k]) <= t1; ++k, ++checked) {
    if (checked == 64) return true;
    const TimelineThread& t = data.threads[r.threads[k]];
    if (double(t.end) >= t0 && double(t.end) <= t1 && t.end < data.end_time) return true;
  }
  return false;
}

bool is_startup_row(TimeNs last_end, bool any_failed, TimeNs first_time, TimeNs end_time) {
  const double cut = double(first_time) + kStartupShare * double(end_time - first_time);
  return !any_failed && double(last_end) <= cut;
}

bool folds_startup_rows(RowFolding folding, double t0, double t1, TimeNs first_time, TimeNs end_time) {
  return folding == RowFolding::quiet && t1 - t0 > kStartupFoldWindow * double(end_time - first_time);
}

bool row_is_startup(const TimelineData& data, std::int32_t row) {
  const auto r = static_cast<std::size_t>(row);
  if (r >= data.row_last_end.size() || data.rows[r].threads.empty()) return false;
  return is_startup_row(data.row_last_end[r], !data.rows[r].failures.empty(), data.first_time, data.end_time);
}

void TimelineViewState::refold(const TimelineData& data, double width) {
  // Keep the row at the top of the view at the top across the refold.
  const std::optional<std::int32_t> top = row_of_slot(static_cast<std::int32_t>(std::floor(row_offset)));
  const double within = row_offset - std::floor(row_offset);
  const double t0 = mapping.t_of(0), t1 = mapping.t_of(width);
  const std::int32_t selected_row = selected && *selected < data.threads.size() ? data.threads[*selected].row : -1;
  // The rows a finding names stay shown with the selected one.
  std::vector<std::int32_t> named;
  for (const FocusLabel& n : notes)
    if (n.thread < data.threads.size()) named.push_back(data.threads[n.thread].row);
  const auto pinned_row = [&](std::int32_t row) {
    return row == selected_row || std::find(named.begin(), named.end(), row) != named.end();
  };
  const bool fold_startup = folds_startup_rows(folding, t0, t1, data.first_time, data.end_time);
  shown_rows.clear();
  slot_of_row.assign(data.rows.size(), -1);
  folded = 0;
  folded_startup = 0;
  for (std::size_t r = 0; r < data.rows.size(); ++r) {
    const auto row = static_cast<std::int32_t>(r);
    // The cheap test first: most rows of a narrow window are not even alive.
    const bool pinned = pinned_row(row);
    const bool fold = !pinned && ((folding != RowFolding::none && !row_alive_in(data, row, t0, t1)) ||
                                        (folding == RowFolding::quiet && !row_active_in(data, row, t0, t1)));
    const bool startup = !fold && !pinned && fold_startup && row_is_startup(data, row);
    if (fold || startup) {
      ++folded;
      if (startup) ++folded_startup;
      continue;
    }
    slot_of_row[r] = static_cast<std::int32_t>(shown_rows.size());
    shown_rows.push_back(static_cast<std::int32_t>(r));
  }
  // The rows a window read alone left out hold nothing alive in it.
  if (folding != RowFolding::none) folded += data.rows_elsewhere;
  if (top) {
    // The first shown row at or after the old top row.
    auto it = std::lower_bound(shown_rows.begin(), shown_rows.end(), *top);
    row_offset = double(it - shown_rows.begin()) + (it != shown_rows.end() && *it == *top ? within : 0.0);
  }
  clamp_rows();
}

void TimelineViewState::show_rows(const std::vector<std::int32_t>& rows, double visible_rows) {
  std::int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (std::int32_t r : rows)
    if (auto s = slot_of(r)) {
      lo = std::min(lo, *s);
      hi = std::max(hi, *s);
    }
  if (lo > hi) return;
  const bool fits = hi + 1 - lo <= visible_rows;
  if (lo >= row_offset && hi + 1 <= row_offset + visible_rows) return;
  // Both ends when they fit, centred; else the first, a row below the top.
  row_offset = fits ? (lo + hi + 1) / 2.0 - visible_rows / 2 : lo - 1.0;
  row_offset = std::max(0.0, std::min(row_offset, double(lo)));
  clamp_rows();
}

void TimelineViewState::clamp_rows() {
  const double max_offset = std::max(0.0, static_cast<double>(slot_count()) - 1);
  row_offset = std::clamp(row_offset, 0.0, max_offset);
}

std::optional<std::uint32_t> pick_thread(const TimelineData& data, const TimelineViewState& view,
                                         const TimelineGeometry& geometry, double x, double y) {
  const auto slot = geometry.slot_at(y, view.row_offset);
  if (!slot) return std::nullopt;
  const auto row = view.row_of_slot(*slot);
  if (!row) return std::nullopt;
  const double t = view.mapping.t_of(x);
  const auto slack = static_cast<TimeNs>(std::ceil(4 * view.mapping.ns_per_px));
  return data.thread_at(*row, static_cast<TimeNs>(std::llround(t)), slack);
}

void TimelineViewState::highlight(std::vector<std::uint32_t> threads) {
  std::sort(threads.begin(), threads.end());
  threads.erase(std::unique(threads.begin(), threads.end()), threads.end());
  highlighted = std::move(threads);
}

bool TimelineViewState::is_highlighted(std::uint32_t thread) const {
  return std::binary_search(highlighted.begin(), highlighted.end(), thread);
}

}  // namespace skein
