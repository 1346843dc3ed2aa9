// timeline_style.hpp — the timeline's palette and fonts, in one place so
// the widget, `skein render`, the legend and the pixel tests agree on what
// colour means what. A light theme: dark text and saturated marks on a
// near-white canvas, each arrow kind its own hue (the legend lists them).
#pragma once

#include <QColor>
#include <string_view>

#include "viewer/timeline/timeline_data.hpp"

namespace skein::style {

inline const QColor kCanvas{0xfb, 0xfb, 0xfc};
inline const QColor kRowStripe{0xf3, 0xf4, 0xf6};
inline const QColor kRulerBackground{0xff, 0xff, 0xff};
inline const QColor kRulerText{0x37, 0x41, 0x51};
inline const QColor kCaptionText{0x6b, 0x72, 0x80};
inline const QColor kGrid{0xe2, 0xe5, 0xea};
inline const QColor kBorder{0xc9, 0xce, 0xd6};

inline const QColor kWaiting{0x94, 0x9c, 0xab};  // a thread's thin line while it waits
inline const QColor kRunning{0x6d, 0x3f, 0xd9};  // the thick span while it runs
inline const QColor kLabel{0x11, 0x18, 0x27};
inline const QColor kKind{0x8a, 0x91, 0x9e};
inline const QColor kFailure{0xdc, 0x26, 0x26};
// A lint finding by its severity (LINTS.md): its marker, the tags naming
// its rows, its word in the docks. One palette, so amber means a note
// wherever it is drawn.
inline const QColor kFindingError{0xb9, 0x1c, 0x1c};
inline const QColor kFindingWarning{0xc2, 0x41, 0x0c};
inline const QColor kFindingNote{0xd9, 0x77, 0x06};
inline const QColor kSelection{0xfd, 0xf0, 0xc4};
inline const QColor kSelectedLine{0x11, 0x18, 0x27};
inline const QColor kHighlight{0xbf, 0xee, 0xf9};     // a band behind a highlighted thread
inline const QColor kCurrentMatch{0x08, 0x91, 0xb2};  // the outline of the search's current match
inline const QColor kCausalPath{0xc0, 0x26, 0xd3};    // the Why? path's links
// Behind the tags naming a finding's rows, by its severity.
inline const QColor kFindingErrorBackground{0xfe, 0xf2, 0xf2};
inline const QColor kFindingWarningBackground{0xff, 0xf7, 0xed};
inline const QColor kFindingNoteBackground{0xff, 0xfb, 0xeb};

inline const QColor kSpawn{0x6b, 0x72, 0x80};
inline const QColor kRead{0x25, 0x63, 0xeb};
inline const QColor kWait{0xe0, 0xa8, 0x00};
inline const QColor kResolve{0x16, 0xa3, 0x4a};
inline const QColor kNotify{0xea, 0x58, 0x0c};
inline const QColor kDensity{0x47, 0x55, 0x69};

inline const QColor kIdle{0xee, 0xf3, 0xfa};
inline const QColor kGc{0xfb, 0xe4, 0xee};
inline const QColor kCounterLine{0x0e, 0x76, 0x90};
inline const QColor kCounterFill{0xd5, 0xee, 0xf4};

// "error", "warning", "note"; anything else (an older table recorded no
// severity) is drawn as a note.
[[nodiscard]] inline QColor finding_colour(std::string_view severity) {
  if (severity == "error") return kFindingError;
  if (severity == "warning") return kFindingWarning;
  return kFindingNote;
}
[[nodiscard]] inline QColor finding_background(std::string_view severity) {
  if (severity == "error") return kFindingErrorBackground;
  if (severity == "warning") return kFindingWarningBackground;
  return kFindingNoteBackground;
}

[[nodiscard]] inline QColor edge_colour(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::spawn: return kSpawn;
    case EdgeKind::wait: return kWait;
    case EdgeKind::read: return kRead;
    case EdgeKind::notify: return kNotify;
    case EdgeKind::resolve: return kResolve;
  }
  return kSpawn;
}

}  // namespace skein::style
