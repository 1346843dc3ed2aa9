// timeline_view.hpp — what part of a trace the timeline shows and where
// things land on screen: the x mapping (time_mapping.hpp), the vertical
// scroll in rows, the selection, and the fixed geometry of the canvas
// (ruler, rows, counter lanes, legend). Plain code: the painter, the widget,
// `skein render` and the tests compute positions from the same functions,
// so a test can click "on thread 7" or read the pixel "under the arrow".
//
// Canvas, top to bottom: the ruler (kRulerHeight), the edge-density strip
// (kDensityHeight), the rows (kRowHeight each: the label above the line,
// the line at kLineOffset, the kind under it), the counter lanes
// (kCounterLaneHeight each, at most kMaxCounterLanes), the legend.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include "viewer/timeline/finding_focus.hpp"
#include "viewer/timeline/time_mapping.hpp"
#include "viewer/timeline/timeline_navigation.hpp"
#include "viewer/timeline/timeline_data.hpp"

namespace skein {

struct TimelineGeometry {
  static constexpr int kRulerHeight = 30;
  static constexpr int kDensityHeight = 6;
  static constexpr int kRowHeight = 34;
  static constexpr int kLineOffset = 18;  // the line's y within its row
  static constexpr int kCounterLaneHeight = 26;
  static constexpr int kMaxCounterLanes = 4;
  static constexpr int kLegendHeight = 24;

  int width = 0;
  int height = 0;
  int counter_lanes = 0;

  TimelineGeometry(int w, int h, const TimelineData& data);

  [[nodiscard]] int rows_top() const { return kRulerHeight + kDensityHeight; }
  [[nodiscard]] int rows_bottom() const;
  [[nodiscard]] int counters_top() const { return rows_bottom(); }
  [[nodiscard]] int legend_top() const { return height - kLegendHeight; }
  // Positions are by *slot*: the place of a shown row on screen
  // (TimelineViewState folds rows with nothing in view).
  [[nodiscard]] double row_top(std::int32_t slot, double row_offset) const {
    return rows_top() + (slot - row_offset) * kRowHeight;
  }
  [[nodiscard]] double line_y(std::int32_t slot, double row_offset) const {
    return row_top(slot, row_offset) + kLineOffset;
  }
  // The slot under y (nullopt outside the rows area).
  [[nodiscard]] std::optional<std::int32_t> slot_at(double y, double row_offset) const;
  [[nodiscard]] double visible_rows() const { return double(rows_bottom() - rows_top()) / kRowHeight; }
};

// Edges on screen: the strip under the ruler shades each pixel column by
// how many edges fall in it, and a column with at most kMaxArrowsPerColumn
// also draws them as arrows (more would be a smear). An edge at time t
// falls in column floor(mapping.x_of(t)). The shade's opacity is
// edge_density_opacity(count), full from kFullDensityEdges edges on: a
// frame that knows a column holds at least that many need not count them.
inline constexpr int kMaxArrowsPerColumn = 3;
inline constexpr int kFullDensityEdges = 1023;
[[nodiscard]] inline double edge_density_opacity(double count) {
  return std::min(1.0, 0.2 + 0.8 * std::log2(1.0 + count) / 10.0);
}

// Folding: rows with nothing to see in the window take no space. `empty`
// folds rows with no thread alive in the window; `quiet` also folds rows
// whose threads only wait through it (none is created, runs or ends in
// the window: a line from edge to edge with nothing on it). A 12 ms window
// of a 137-row MirageOS trace then shows the 30 rows where things happen.
//
// `quiet` also folds *start-up rows* while the window is wide (spans more
// than kStartupFoldWindow of the trace, as the fitted first screen does):
// rows whose every thread has ended within the first kStartupShare of the
// trace, none of them failed. At the whole-trace zoom such a row is a tick
// at the left edge (the 2014 MirageOS trace net.ctf has 74 of them), and
// it would push the rows that live through the trace off the first screen;
// zoomed into the start, the rows come back.
//
// The selected thread's row is never folded (folding != none): a thread the
// user selected, or the search brought into view, stays in view; nor are
// the rows a finding's notes name.
//
// refold() recomputes the shown rows; the widget calls it whenever the
// window changes, `skein render` once. Invariant: shown_rows is increasing
// and slot_of_row is its inverse (-1 for a folded row); with `none` every
// row is shown.
enum class RowFolding : std::uint8_t { none, empty, quiet };
inline constexpr double kStartupShare = 0.05;
inline constexpr double kStartupFoldWindow = 0.5;

// One link of a causal path drawn on the timeline (viewer/timeline/
// causal_path.hpp): the cause's thread at the cause's record, to the
// effect's thread at the effect's record. Threads are indexes into
// data.threads; -1 is the scheduler (drawn from above the effect's row).
struct TimelinePathLink {
  TimeNs cause_time = 0;
  TimeNs effect_time = 0;
  std::int32_t cause = -1;
  std::int32_t effect = -1;
};

struct TimelineViewState {
  TimeMapping mapping;
  double row_offset = 0;  // the slot at the top of the rows area (fractional while scrolling)
  RowFolding folding = RowFolding::quiet;
  std::int32_t folded = 0;  // rows folded by the last refold()
  std::int32_t folded_startup = 0;  // of which start-up rows
  std::vector<std::int32_t> shown_rows;   // slot -> row
  std::vector<std::int32_t> slot_of_row;  // row -> slot, -1 when folded
  std::optional<std::uint32_t> selected;
  std::vector<std::uint32_t> selected_chain;  // the selected thread's merge chain
  std::vector<std::uint32_t> selected_edges;  // edges with an end in the chain, by time
  // A finding's turn (select_turn): the turn that acted, outlined; then
  // selected_chain is that one thread and selected_edges the turn's edges
  // only. `notes` name rows ("suspect: backend #1"). select() clears both.
  std::optional<TimelineActivation> selected_turn;
  std::vector<FocusLabel> notes;
  // Marks from the inspection docks, drawn over the timeline: threads
  // highlighted by a summary row, the search or an anomaly (a band behind
  // each one's span; sorted, no duplicates), the search's current match
  // (outlined), and a causal path (bold links from cause to effect).
  std::vector<std::uint32_t> highlighted;
  std::optional<std::uint32_t> current_match;
  std::vector<TimelinePathLink> path;
  // Lint rules whose findings are not drawn (the Anomalies dock's toggles).
  std::vector<std::string> hidden_rules;

  // Sets `highlighted` from any list of indexes (sorts, drops duplicates).
  void highlight(std::vector<std::uint32_t> threads);
  [[nodiscard]] bool is_highlighted(std::uint32_t thread) const;
  [[nodiscard]] bool is_rule_hidden(std::string_view rule) const {
    return !hidden_rules.empty() && std::find(hidden_rules.begin(), hidden_rules.end(), rule) != hidden_rules.end();
  }

  // The whole trace across `width` pixels, from the first record, with a
  // margin each side (timeline_navigation.hpp, fitted_window).
  void fit(const TimelineData& data, double width);
  // Selects a thread (nullopt clears): its chain and its direct edges.
  // Linear in the edges of the chain's lifetime, one O(1) test each; the
  // painter draws only those in the window.
  void select(const TimelineData& data, std::optional<std::uint32_t> thread);
  // Selects a finding's turn: the thread that acted, its turn, the turn's
  // edges and the focus's row names; the window is the caller's to set.
  void select_turn(const TimelineData& data, const FindingFocus& focus);
  // Recomputes shown_rows for the window [t_of(0), t_of(width)].
  void refold(const TimelineData& data, double width);
  // Scrolls the fewest rows so that the shown rows among `rows` are in a
  // rows area `visible_rows` tall: all of them, centred, when they fit, else
  // the first of them near the top; nothing moves when they are in view.
  void show_rows(const std::vector<std::int32_t>& rows, double visible_rows);
  // Keeps row_offset within [0, slots - 1].
  void clamp_rows();
  [[nodiscard]] std::int32_t slot_count() const { return static_cast<std::int32_t>(shown_rows.size()); }
  [[nodiscard]] std::optional<std::int32_t> row_of_slot(std::int32_t slot) const {
    if (slot < 0 || slot >= slot_count()) return std::nullopt;
    return shown_rows[static_cast<std::size_t>(slot)];
  }
  [[nodiscard]] std::optional<std::int32_t> slot_of(std::int32_t row) const {
    if (row < 0 || static_cast<std::size_t>(row) >= slot_of_row.size() || slot_of_row[static_cast<std::size_t>(row)] < 0)
      return std::nullopt;
    return slot_of_row[static_cast<std::size_t>(row)];
  }
};

// True when some thread of `row` is alive somewhere in [t0, t1].
[[nodiscard]] bool row_alive_in(const TimelineData& data, std::int32_t row, double t0, double t1);
// True when something happens on `row` in [t0, t1]: a thread is created or
// ends there, or one runs.
[[nodiscard]] bool row_active_in(const TimelineData& data, std::int32_t row, double t0, double t1);
// True when every thread of `row` has ended within the first kStartupShare
// of the trace and none failed (see RowFolding).
[[nodiscard]] bool row_is_startup(const TimelineData& data, std::int32_t row);
// The rule behind it, from a row's latest end and whether any of its
// threads failed, for a trace of [first_time, end_time]; and whether a
// window [t0, t1] folds start-up rows at all.
[[nodiscard]] bool is_startup_row(TimeNs last_end, bool any_failed, TimeNs first_time, TimeNs end_time);
[[nodiscard]] bool folds_startup_rows(RowFolding folding, double t0, double t1, TimeNs first_time, TimeNs end_time);

// The thread under (x, y), within 4 pixels horizontally.
[[nodiscard]] std::optional<std::uint32_t> pick_thread(const TimelineData& data, const TimelineViewState& view,
                                                       const TimelineGeometry& geometry, double x, double y);

}  // namespace skein
