// finding_focus.cpp — the window, turn, edges and row names of one finding
// (the rules are in finding_focus.hpp). Every lookup is a binary search over
// a row's activations or the sorted edges, so a click on a finding costs
// the same on a 10M-record trace as on a small one.
#include "viewer/timeline/finding_focus.hpp"

#include <algorithm>
#include <iterator>

#include "viewer/timeline/timeline_findings.hpp"

namespace skein {
namespace {

bool valid_index(const TimelineData& data, std::int32_t i) {
  return i >= 0 && static_cast<std::size_t>(i) < data.threads.size();
}

const TimelineRow* row_of(const TimelineData& data, std::uint32_t thread) {
  const std::int32_t r = data.threads[thread].row;
  return r >= 0 && static_cast<std::size_t>(r) < data.rows.size() ? &data.rows[static_cast<std::size_t>(r)] : nullptr;
}

// The activation of `row` covering t: the latest starting at or before t,
// if it reaches t.
std::optional<TimelineActivation> activation_at(const TimelineRow& row, TimeNs t) {
  const auto& a = row.activations;
  auto it = std::upper_bound(a.begin(), a.end(), t, [](TimeNs v, const TimelineActivation& x) { return v < x.start; });
  if (it == a.begin()) return std::nullopt;
  --it;
  if (it->end < t) return std::nullopt;
  return *it;
}

// The last activation on `thread`'s row ending by t (the row holds the
// thread's merge chain: any of its turns is the suspect running).
std::optional<TimelineActivation> last_turn_before(const TimelineData& data, std::uint32_t thread, TimeNs t) {
  const TimelineRow* row = row_of(data, thread);
  if (!row) return std::nullopt;
  const auto& a = row->activations;
  // Ends are sorted too (activations are disjoint): the last ending by t.
  auto it = std::upper_bound(a.begin(), a.end(), t, [](TimeNs v, const TimelineActivation& x) { return v < x.end; });
  if (it == a.begin()) return std::nullopt;
  return *std::prev(it);
}

}  // namespace

std::string focus_thread_name(const TimelineData& data, std::int32_t thread_index) {
  if (!valid_index(data, thread_index)) return "the scheduler";
  const TimelineThread& t = data.threads[static_cast<std::size_t>(thread_index)];
  const std::string& name = t.label != 0 ? data.text(t.label) : data.text(t.kind);
  return (name.empty() ? std::string("thread") : name) + " #" + std::to_string(t.id);
}

std::optional<FindingFocus> focus_on_finding(const TimelineData& data, const TimelineAnomaly& finding) {
  if (!valid_index(data, finding.thread)) return std::nullopt;
  FindingFocus f;
  f.thread = static_cast<std::uint32_t>(finding.thread);
  const TimeNs t = finding.time;
  if (const TimelineRow* row = row_of(data, f.thread)) f.activation = activation_at(*row, t);

  double from = 0, to = 0;
  if (f.activation && double(f.activation->end - f.activation->start) < kFindingWindowNs) {
    const double centre = (double(f.activation->start) + double(f.activation->end)) / 2;
    from = centre - kFindingWindowNs / 2;
    to = centre + kFindingWindowNs / 2;
  } else {
    from = double(t) - kFindingWindowNs / 2;
    to = double(t) + kFindingWindowNs / 2;
  }
  if (valid_index(data, finding.suspect) && finding.suspect != finding.thread)
    if (auto s = last_turn_before(data, static_cast<std::uint32_t>(finding.suspect), t))
      if (double(s->start) < from && from - double(s->end) <= kFindingLookBackNs)
        from = double(s->start) - 0.1 * (to - double(s->start));
  const TimeWindow fitted = fitted_window(data.first_time, data.end_time);
  from = std::max(from, fitted.from);
  to = std::min(to, fitted.to);
  if (to <= from) to = from + 1;
  f.window = {from, to};

  if (f.activation) {
    const auto first = std::lower_bound(data.edge_times.begin(), data.edge_times.end(), f.activation->start);
    const auto last = std::upper_bound(data.edge_times.begin(), data.edge_times.end(), f.activation->end);
    // At the turn's last instant, another thread's record is the next
    // turn's (times are shared at the boundary): only the turn's own.
    const auto ran = static_cast<std::int32_t>(f.activation->thread);
    for (auto k = first; k != last; ++k) {
      const auto i = static_cast<std::size_t>(k - data.edge_times.begin());
      const TimelineEdge& e = data.edges[i];
      if (e.time == f.activation->end && e.time > f.activation->start && e.src != ran && e.dst != ran) continue;
      f.edges.push_back(static_cast<std::uint32_t>(i));
    }
  }

  // The tag says what the finding is ("error #1", "note #3"), as the
  // Anomalies dock and `skein lint` do.
  const std::string severity(finding_severity(finding));
  std::string what = severity.empty() ? std::string("finding") : severity;
  if (finding.number > 0) what += " #" + std::to_string(finding.number);
  f.labels.push_back({f.thread, what + ": " + focus_thread_name(data, finding.thread), severity});
  if (valid_index(data, finding.suspect) && finding.suspect != finding.thread)
    f.labels.push_back({static_cast<std::uint32_t>(finding.suspect),
                        "suspect: " + focus_thread_name(data, finding.suspect), severity});
  if (valid_index(data, finding.from) && finding.from != finding.thread && finding.from != finding.suspect)
    f.labels.push_back({static_cast<std::uint32_t>(finding.from),
                        "had control: " + focus_thread_name(data, finding.from), severity});
  return f;
}

}  // namespace skein
