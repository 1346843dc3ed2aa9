// timeline_marks.cpp — each layer is stored apart (an array of band lists,
// the current match, the links, the finding), so a layer's setter writes
// only its own. resolve() maps every id through shown_index once, then
// TimelineViewState::highlight's rule (sort, unique) gives the bands; the
// cost is linear in the marks, never in the trace.
#include "viewer/timeline/timeline_marks.hpp"

#include <algorithm>

namespace skein {

void TimelineMarks::set_threads(MarkLayer layer, std::vector<ThreadId> ids) {
  bands_[static_cast<std::size_t>(layer)] = std::move(ids);
}

void TimelineMarks::set_current_match(std::optional<ThreadId> id) { current_match_ = id; }

void TimelineMarks::set_path(std::vector<MarkedLink> links) {
  std::vector<ThreadId>& bands = bands_[static_cast<std::size_t>(MarkLayer::why_path)];
  bands.clear();
  for (const MarkedLink& l : links) {
    if (l.cause != -1) bands.push_back(l.cause);
    bands.push_back(l.effect);
  }
  path_ = std::move(links);
}

void TimelineMarks::set_finding(std::optional<TimelineAnomaly> finding) { finding_ = std::move(finding); }

void TimelineMarks::clear(MarkLayer layer) {
  bands_[static_cast<std::size_t>(layer)].clear();
  switch (layer) {
    case MarkLayer::search: current_match_.reset(); break;
    case MarkLayer::why_path: path_.clear(); break;
    case MarkLayer::finding: finding_.reset(); break;
    case MarkLayer::summary: break;
  }
}

void TimelineMarks::clear() {
  for (std::size_t l = 0; l < kMarkLayerCount; ++l) clear(static_cast<MarkLayer>(l));
}

bool TimelineMarks::empty(MarkLayer layer) const {
  if (!bands_[static_cast<std::size_t>(layer)].empty()) return false;
  switch (layer) {
    case MarkLayer::search: return !current_match_;
    case MarkLayer::why_path: return path_.empty();
    case MarkLayer::finding: return !finding_;
    case MarkLayer::summary: return true;
  }
  return true;
}

ResolvedMarks TimelineMarks::resolve(const TimelineData& full, const FilteredTimeline* filtered) const {
  ResolvedMarks out;
  for (const std::vector<ThreadId>& layer : bands_)
    for (ThreadId id : layer)
      if (const auto i = shown_index(full, filtered, id)) out.highlighted.push_back(*i);
  std::sort(out.highlighted.begin(), out.highlighted.end());
  out.highlighted.erase(std::unique(out.highlighted.begin(), out.highlighted.end()), out.highlighted.end());
  if (current_match_) out.current_match = shown_index(full, filtered, *current_match_);
  for (const MarkedLink& l : path_) {
    TimelinePathLink link{l.cause_time, l.effect_time, -1, -1};
    if (l.cause != -1) {
      const auto c = shown_index(full, filtered, l.cause);
      if (!c) continue;
      link.cause = static_cast<std::int32_t>(*c);
    }
    const auto e = shown_index(full, filtered, l.effect);
    if (!e) continue;
    link.effect = static_cast<std::int32_t>(*e);
    out.path.push_back(link);
  }
  return out;
}

std::optional<FindingFocus> TimelineMarks::finding_focus(const TimelineData& full,
                                                         const FilteredTimeline* filtered) const {
  if (!finding_) return std::nullopt;
  const TimelineAnomaly* shown = finding_in_view(filtered, *finding_);
  if (!shown) return std::nullopt;
  return focus_on_finding(filtered ? filtered->data : full, *shown);
}

const TimelineAnomaly* finding_in_view(const FilteredTimeline* filtered, const TimelineAnomaly& finding) {
  if (!filtered) return &finding;
  const TimelineAnomaly* found = nullptr;  // the last of equal ones
  for (const TimelineAnomaly& a : filtered->data.anomalies)
    if (a.time == finding.time && a.number == finding.number && a.rule() == finding.rule()) found = &a;
  return found;
}

}  // namespace skein
