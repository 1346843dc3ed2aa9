// finding_focus.hpp — what the timeline shows of one lint finding: the
// window around the turn that acted, that turn alone with its edges, and
// the rows to name ("suspect: backend #1"). The viewer applies it when a
// finding is clicked or opened with --finding N, and `skein render
// --finding N` draws the same; both come from this one function, so the
// picture in the docs is the one a user gets. No Qt.
//
// The window, for a finding at time T on thread A (anomaly.thread):
//   - the turn is A's row's activation covering T (the latest one starting
//     at or before T when several touch it); none when A did not run there;
//   - a turn shorter than kFindingWindowNs is centred in a window
//     kFindingWindowNs wide; a longer one gives a window of that width
//     centred on T, so the record that acted is readable either way;
//   - the suspect's last activation ending by T, when it ended within
//     kFindingLookBackNs of the window's start, widens the window to the
//     left to show it with a margin: the hand-off the trace lacks is
//     between those two turns.
// The window never extends past the trace's fitted window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_navigation.hpp"

namespace skein {

inline constexpr double kFindingWindowNs = 40e3;
inline constexpr double kFindingLookBackNs = 60e3;

// A name drawn on a row, at the right of the row's header, for the
// thread it names, in the colour of the finding's severity.
struct FocusLabel {
  std::uint32_t thread = 0;  // index into threads
  std::string text;          // "suspect: backend #1"
  std::string severity;      // the finding's (finding_severity(): "" when unknown)
};

struct FindingFocus {
  TimeWindow window;
  std::uint32_t thread = 0;  // the thread that acted (index into threads)
  // The turn that acted, on `thread`'s row; nullopt when it did not run at
  // the finding's time (the window is then centred on the time).
  std::optional<TimelineActivation> activation;
  // Indexes into data.edges: every edge recorded within the turn's time
  // (one thread runs at a time, so they are the turn's doing, and what woke
  // it at its start), except, at its last instant, edges of neither the
  // thread that ran it: those begin the next turn. Only these are
  // highlighted.
  std::vector<std::uint32_t> edges;
  // The actor first ("error #1: poll #2": the finding's severity, its
  // number, the thread), then the suspect, then who had control.
  std::vector<FocusLabel> labels;
};

// "backend #1", "blkfront.poll #13968"; an unlabelled thread by its kind
// ("bind #42"), "the scheduler" for an index out of range.
[[nodiscard]] std::string focus_thread_name(const TimelineData& data, std::int32_t thread_index);

// nullopt when the finding names no thread of `data`.
[[nodiscard]] std::optional<FindingFocus> focus_on_finding(const TimelineData& data, const TimelineAnomaly& finding);

}  // namespace skein
