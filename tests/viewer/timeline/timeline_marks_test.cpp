// timeline_marks_test.cpp — the inspection's marks by id (viewer/timeline/
// timeline_marks.hpp), headless, on a small trace imported for real:
//   - setting or clearing one layer leaves every other layer, and what it
//     resolves to, as it was;
//   - the bands are the union of the layers, sorted, without duplicates;
//   - through a filter, an id hidden with a stand-in resolves to it (bands,
//     the current match, both ends of a link) and one hidden with none is
//     dropped, a link with it whole; the scheduler stays -1;
//   - the same marks resolved again into the unfiltered view give its own
//     indexes back (ids survive a change of view);
//   - a finding opens in a filtered view on the stand-in of its thread;
//   - shown_index: full's index without a filter, nothing for an unknown id.
#include <catch2/catch.hpp>
#include <algorithm>

#include "tests/viewer/declutter_trace.hpp"
#include "tests/viewer/loaded_timeline.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_filter.hpp"
#include "viewer/timeline/timeline_marks.hpp"

using namespace skein;

namespace {

// The trace, imported and loaded.
struct Loaded : test::LoadedTimeline {
  Loaded() : LoadedTimeline(test::kDeclutterTrace, "marks") {}
};

std::vector<std::uint32_t> sorted(std::vector<std::uint32_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// The thread ids of a view's indexes.
std::vector<ThreadId> ids_of(const TimelineData& d, const std::vector<std::uint32_t>& indexes) {
  std::vector<ThreadId> out;
  for (std::uint32_t i : indexes) out.push_back(d.threads[i].id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("marks: a layer set or cleared leaves every other layer as it was", "[timeline][marks]") {
  Loaded t;
  TimelineMarks m;
  m.set_threads(MarkLayer::summary, {3});
  m.set_threads(MarkLayer::search, {1, 6});
  m.set_current_match(6);
  m.set_path({{1700, 1800, 1, 2}, {1500, 1600, -1, 1}});
  m.set_finding(TimelineAnomaly{});
  // The why_path layer's bands are the threads its links join.
  CHECK(m.threads(MarkLayer::why_path) == std::vector<ThreadId>{1, 2, 1});

  ResolvedMarks r = m.resolve(t.data, nullptr);
  CHECK(r.highlighted == sorted({t.index(1), t.index(2), t.index(3), t.index(6)}));
  CHECK(r.current_match == std::optional<std::uint32_t>(t.index(6)));
  REQUIRE(r.path.size() == 2);
  CHECK(r.path[0].cause == std::int32_t(t.index(1)));
  CHECK(r.path[0].effect == std::int32_t(t.index(2)));
  CHECK(r.path[0].cause_time == 1700);
  CHECK(r.path[0].effect_time == 1800);
  CHECK(r.path[1].cause == -1);  // the scheduler
  CHECK(r.path[1].effect == std::int32_t(t.index(1)));

  // The search goes, with its current match; the summary, the path and the
  // finding stay.
  m.clear(MarkLayer::search);
  CHECK(m.empty(MarkLayer::search));
  CHECK(m.threads(MarkLayer::summary) == std::vector<ThreadId>{3});
  CHECK(m.path().size() == 2);
  CHECK(m.finding().has_value());
  r = m.resolve(t.data, nullptr);
  CHECK(r.highlighted == sorted({t.index(1), t.index(2), t.index(3)}));
  CHECK_FALSE(r.current_match.has_value());
  CHECK(r.path.size() == 2);

  // An empty summary row: only the path's threads remain.
  m.set_threads(MarkLayer::summary, {});
  r = m.resolve(t.data, nullptr);
  CHECK(r.highlighted == sorted({t.index(1), t.index(2)}));
  CHECK(r.path.size() == 2);

  // The path goes: its links and its bands, nothing else.
  m.set_threads(MarkLayer::summary, {4});
  m.clear(MarkLayer::why_path);
  CHECK(m.path().empty());
  CHECK(m.threads(MarkLayer::why_path).empty());
  r = m.resolve(t.data, nullptr);
  CHECK(r.highlighted == std::vector<std::uint32_t>{t.index(4)});
  CHECK(r.path.empty());
  CHECK(m.finding().has_value());

  // The finding goes: the summary stays.
  m.clear(MarkLayer::finding);
  CHECK_FALSE(m.finding().has_value());
  CHECK(m.threads(MarkLayer::summary) == std::vector<ThreadId>{4});
  m.clear();
  for (MarkLayer l : {MarkLayer::search, MarkLayer::summary, MarkLayer::why_path, MarkLayer::finding})
    CHECK(m.empty(l));
  CHECK(m.resolve(t.data, nullptr).highlighted.empty());
}

TEST_CASE("marks: the bands of several layers on one thread are one band", "[timeline][marks]") {
  Loaded t;
  TimelineMarks m;
  m.set_threads(MarkLayer::search, {6, 3, 6});
  m.set_threads(MarkLayer::summary, {3});
  m.set_path({{1900, 2100, 6, 3}});
  CHECK(m.resolve(t.data, nullptr).highlighted == sorted({t.index(3), t.index(6)}));
}

TEST_CASE("marks: ids hidden by the filter resolve to their stand-in, or go with none", "[timeline][marks]") {
  Loaded t;
  TimelineMarks m;
  m.set_threads(MarkLayer::summary, {6});  // folded into 3
  m.set_threads(MarkLayer::search, {2});   // the bind: stands for 1
  m.set_current_match(5);                  // folded into 3
  m.set_path({{1800, 1900, 2, 6}, {1400, 1410, 3, 5}});

  // Simplify binds and fold 3: 2 is drawn as 1, 5 and 6 as 3.
  const FilteredTimeline folded = filter_timeline(t.data, TimelineFilter{true, {3}, 0});
  const auto in = [&](ThreadId id) { return *folded.data.thread_index(id); };
  ResolvedMarks r = m.resolve(t.data, &folded);
  CHECK(ids_of(folded.data, r.highlighted) == std::vector<ThreadId>{1, 3});
  CHECK(r.current_match == std::optional<std::uint32_t>(in(3)));
  REQUIRE(r.path.size() == 2);
  CHECK(r.path[0].cause == std::int32_t(in(1)));
  CHECK(r.path[0].effect == std::int32_t(in(3)));
  CHECK(r.path[1].cause == std::int32_t(in(3)));
  CHECK(r.path[1].effect == std::int32_t(in(3)));
  CHECK(shown_index(t.data, &folded, 6) == std::optional<std::uint32_t>(in(3)));

  // The duration bound hides 5 with no stand-in: its band, the current
  // match and its link go; the rest is drawn on the threads themselves.
  const FilteredTimeline bounded = filter_timeline(t.data, TimelineFilter{false, {}, 50});
  CHECK_FALSE(shown_index(t.data, &bounded, 5).has_value());
  r = m.resolve(t.data, &bounded);
  CHECK(ids_of(bounded.data, r.highlighted) == std::vector<ThreadId>{2, 3, 6});
  CHECK_FALSE(r.current_match.has_value());
  REQUIRE(r.path.size() == 1);
  CHECK(bounded.data.threads[std::size_t(r.path[0].cause)].id == 2);
  CHECK(bounded.data.threads[std::size_t(r.path[0].effect)].id == 6);

  // The same marks in the trace as loaded: each on its own thread again.
  r = m.resolve(t.data, nullptr);
  CHECK(r.highlighted == sorted({t.index(2), t.index(3), t.index(5), t.index(6)}));
  CHECK(r.current_match == std::optional<std::uint32_t>(t.index(5)));
  CHECK(r.path.size() == 2);
}

TEST_CASE("marks: a finding opens on its thread's stand-in in a filtered view", "[timeline][marks]") {
  Loaded t;
  TimelineAnomaly finding;
  finding.time = 1950;  // in 6's turn
  finding.thread = std::int32_t(t.index(6));
  finding.suspect = std::int32_t(t.index(4));
  finding.set_text("missing-notification", "error", "");
  finding.number = 7;
  t.data.anomalies.push_back(finding);
  TimelineMarks m;
  CHECK_FALSE(m.finding_focus(t.data, nullptr).has_value());
  m.set_finding(finding);

  const auto as_loaded = m.finding_focus(t.data, nullptr);
  REQUIRE(as_loaded.has_value());
  CHECK(as_loaded->thread == t.index(6));
  REQUIRE(as_loaded->activation.has_value());
  CHECK(as_loaded->activation->start == 1900);
  CHECK(finding_in_view(nullptr, finding) == &finding);

  const FilteredTimeline folded = filter_timeline(t.data, TimelineFilter{false, {3}, 0});
  const TimelineAnomaly* there = finding_in_view(&folded, finding);
  REQUIRE(there != nullptr);
  CHECK(there->thread == std::int32_t(*folded.data.thread_index(3)));
  const auto focus = m.finding_focus(t.data, &folded);
  REQUIRE(focus.has_value());
  CHECK(focus->thread == *folded.data.thread_index(3));
  REQUIRE(focus->activation.has_value());
  CHECK(focus->activation->start == 1900);  // 6's turn, now on 3's row

  // Another finding at the same time is not this one.
  TimelineAnomaly other = finding;
  other.number = 8;
  CHECK(finding_in_view(&folded, other) == nullptr);
}

TEST_CASE("shown_index: full's own index without a filter, nothing for an unknown id", "[timeline][marks]") {
  Loaded t;
  for (ThreadId id : {0, 1, 2, 3, 4, 5, 6}) CHECK(shown_index(t.data, nullptr, id) == t.data.thread_index(id));
  CHECK_FALSE(shown_index(t.data, nullptr, 99).has_value());
  const FilteredTimeline folded = filter_timeline(t.data, TimelineFilter{false, {3}, 0});
  CHECK_FALSE(shown_index(t.data, &folded, 99).has_value());
  CHECK(shown_index(t.data, &folded, 4) == folded.data.thread_index(4));
}
