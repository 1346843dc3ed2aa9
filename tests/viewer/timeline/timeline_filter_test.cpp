// timeline_filter_test.cpp — the declutter toggles (viewer/timeline/
// timeline_filter.hpp) on a small trace imported for real: simplify binds
// hides exactly the bind that only reads its input and re-parents its
// child; folding a subtree draws it on its root's row; the duration bound
// hides exactly the short thread; an empty filter gives the picture back.
#include <catch2/catch.hpp>
#include <algorithm>

#include "tests/viewer/declutter_trace.hpp"
#include "tests/viewer/loaded_timeline.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_filter.hpp"

using namespace skein;

namespace {

// The trace, imported and loaded.
struct Loaded : test::LoadedTimeline {
  Loaded() : LoadedTimeline(test::kDeclutterTrace, "filter") {}
};

std::vector<ThreadId> ids(const TimelineData& d) {
  std::vector<ThreadId> out;
  for (const TimelineThread& t : d.threads) out.push_back(t.id);
  return out;
}

const TimelineThread& thread(const TimelineData& d, ThreadId id) { return d.threads[*d.thread_index(id)]; }

bool has_edge(const TimelineData& d, EdgeKind kind, ThreadId src, ThreadId dst) {
  return std::any_of(d.edges.begin(), d.edges.end(), [&](const TimelineEdge& e) {
    return e.kind == kind && e.src >= 0 && e.dst >= 0 && d.threads[std::size_t(e.src)].id == src &&
           d.threads[std::size_t(e.dst)].id == dst;
  });
}

// The activations drawn on `id`'s row that belong to it: (start, end).
std::vector<std::pair<TimeNs, TimeNs>> runs_of(const TimelineData& d, ThreadId id) {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  const std::uint32_t i = *d.thread_index(id);
  for (const TimelineActivation& a : d.rows[std::size_t(d.threads[i].row)].activations)
    if (a.thread == i) out.emplace_back(a.start, a.end);
  return out;
}

}  // namespace

TEST_CASE("plumbing: a bind that only reads one input, not a map that also notifies", "[timeline][filter]") {
  Loaded t;
  CHECK(plumbing_threads(t.data) == std::vector<std::uint32_t>{t.index(2)});
}

TEST_CASE("simplify binds hides exactly the plumbing and re-parents its child under its input",
          "[timeline][filter]") {
  Loaded t;
  const FilteredTimeline f = filter_timeline(t.data, TimelineFilter{true, {}, 0});
  const TimelineData& d = f.data;
  CHECK(d.check_invariants());
  CHECK(ids(d) == std::vector<ThreadId>{0, 1, 3, 4, 5, 6});
  CHECK(f.plumbing == 1);
  CHECK(f.folded == 0);
  CHECK(f.short_lived == 0);
  CHECK(thread(d, 3).parent == 1);  // was 2, the bind; 2 read 1
  CHECK(f.shown_as[t.index(2)] == std::int32_t(*d.thread_index(1)));
  for (std::size_t k = 0; k < d.threads.size(); ++k) CHECK(f.shown_as[f.original[k]] == std::int32_t(k));
  // The bind's spawn of 3 now comes from 1; its wait and read on 1 vanish.
  CHECK(has_edge(d, EdgeKind::spawn, 1, 3));
  CHECK_FALSE(has_edge(d, EdgeKind::wait, 1, 1));
  CHECK(has_edge(d, EdgeKind::notify, 4, 3));
  // The bind's own activation (2300..2400) is not drawn; its run time counted.
  CHECK(f.hidden_run_time == t.data.threads[t.index(2)].run_time);
  CHECK(f.hidden_run_time > 0);
  // The loaded data is untouched.
  CHECK(t.data.threads.size() == 7);
  CHECK(t.data.threads[t.index(3)].parent == 2);
}

TEST_CASE("folding a subtree draws its threads on the root's row", "[timeline][filter]") {
  Loaded t;
  const FilteredTimeline f = filter_timeline(t.data, TimelineFilter{false, {3}, 0});
  const TimelineData& d = f.data;
  CHECK(d.check_invariants());
  CHECK(ids(d) == std::vector<ThreadId>{0, 1, 2, 3, 4});
  CHECK(f.folded == 2);
  CHECK(f.shown_as[t.index(5)] == std::int32_t(*d.thread_index(3)));
  CHECK(f.shown_as[t.index(6)] == std::int32_t(*d.thread_index(3)));
  // 5's and 6's runs are now on 3's row, as 3's.
  auto expected = runs_of(t.data, 3);
  for (ThreadId c : {5, 6})
    for (auto run : runs_of(t.data, c)) expected.push_back(run);
  std::sort(expected.begin(), expected.end());
  CHECK(std::count(expected.begin(), expected.end(), std::pair<TimeNs, TimeNs>{1900, 2100}) == 1);  // 6's
  CHECK(runs_of(d, 3) == expected);
  CHECK(thread(d, 3).end == 2200);
  // 3 -> 5 and 3 -> 6 spawns are inside the subtree now.
  CHECK_FALSE(has_edge(d, EdgeKind::spawn, 3, 3));
  CHECK(has_edge(d, EdgeKind::spawn, 2, 3));
  CHECK(f.hidden_run_time == 0);
}

TEST_CASE("the duration bound hides exactly the threads living less than it", "[timeline][filter]") {
  Loaded t;
  const FilteredTimeline f = filter_timeline(t.data, TimelineFilter{false, {}, 50});
  CHECK(ids(f.data) == std::vector<ThreadId>{0, 1, 2, 3, 4, 6});
  CHECK(f.short_lived == 1);
  CHECK(f.shown_as[t.index(5)] == -1);
  CHECK_FALSE(has_edge(f.data, EdgeKind::spawn, 3, 5));
  // 701 ns also hides 1 (it lived 700 ns) and 6 (500 ns); 2, a child of
  // hidden 1, goes under 1's parent 0.
  const FilteredTimeline g = filter_timeline(t.data, TimelineFilter{false, {}, 701});
  CHECK(ids(g.data) == std::vector<ThreadId>{0, 2, 3, 4});
  CHECK(thread(g.data, 2).parent == 0);
  CHECK(g.data.check_invariants());
}

TEST_CASE("all three at once, and an empty filter gives the loaded picture back", "[timeline][filter]") {
  Loaded t;
  const FilteredTimeline f = filter_timeline(t.data, TimelineFilter{true, {3}, 50});
  CHECK(ids(f.data) == std::vector<ThreadId>{0, 1, 3, 4});
  CHECK(thread(f.data, 3).parent == 1);
  CHECK(f.data.check_invariants());
  const FilteredTimeline none = filter_timeline(t.data, TimelineFilter{});
  REQUIRE(none.data.threads.size() == t.data.threads.size());
  for (std::size_t i = 0; i < t.data.threads.size(); ++i) {
    CHECK(none.data.threads[i].row == t.data.threads[i].row);
    CHECK(none.shown_as[i] == std::int32_t(i));
  }
  CHECK(none.data.edges.size() == t.data.edges.size());
}
