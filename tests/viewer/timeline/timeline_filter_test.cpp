// timeline_filter_test.cpp — the declutter toggles (viewer/timeline/
// timeline_filter.hpp) on a small trace imported for real: simplify binds
// hides exactly the bind that only reads its input and re-parents its
// child; folding a subtree draws it on its root's row; the duration bound
// hides exactly the short thread; an empty filter gives the picture back.
// On a generated trace, the activations and edges each filter moves are
// those its definition gives, computed the plain way.
#include <catch2/catch.hpp>
#include <algorithm>
#include <tuple>

#include "samples/synthetic/synthetic_trace.hpp"
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

namespace {

// What the filter's header promises of the activations and edges, computed
// the plain way: every kept activation, in the whole trace's row order,
// sorted stably by start all together and placed one by one with
// place_activation() on the filtered rows; every edge with both ends
// shown (or the scheduler), moved to the stand-ins, in the whole trace's
// order. `dropped(i)`: thread i's activations are not drawn (a hidden
// plumbing or short-lived thread).
template <class Dropped>
void check_moved_like_the_definition(const TimelineData& full, const FilteredTimeline& got, Dropped dropped) {
  TimelineData want = got.data;
  for (TimelineRow& r : want.rows) r.activations.clear();
  std::vector<TimelineActivation> all;
  for (const TimelineRow& r : full.rows)
    for (const TimelineActivation& a : r.activations)
      if (!dropped(a.thread) && got.shown_as[a.thread] >= 0)
        all.push_back(TimelineActivation{a.start, a.end, static_cast<std::uint32_t>(got.shown_as[a.thread])});
  std::stable_sort(all.begin(), all.end(),
                   [](const TimelineActivation& a, const TimelineActivation& b) { return a.start < b.start; });
  for (const TimelineActivation& a : all) place_activation(want, a);
  REQUIRE(want.rows.size() == got.data.rows.size());
  std::size_t moved = 0;
  for (std::size_t r = 0; r < want.rows.size(); ++r) {
    const auto& w = want.rows[r].activations;
    const auto& g = got.data.rows[r].activations;
    REQUIRE(w.size() == g.size());
    for (std::size_t k = 0; k < w.size(); ++k) {
      INFO("row " << r << ", activation " << k);
      CHECK(std::tie(w[k].start, w[k].end, w[k].thread) == std::tie(g[k].start, g[k].end, g[k].thread));
    }
    moved += g.size();
  }
  CHECK(moved > 0);
  std::vector<std::tuple<TimeNs, std::int32_t, std::int32_t, int>> edges_want, edges_got;
  for (const TimelineEdge& e : full.edges) {
    const std::int32_t src = e.src < 0 ? e.src : got.shown_as[std::size_t(e.src)];
    const std::int32_t dst = e.dst < 0 ? e.dst : got.shown_as[std::size_t(e.dst)];
    if ((e.src >= 0 && src < 0) || (e.dst >= 0 && dst < 0) || (src >= 0 && src == dst)) continue;
    edges_want.emplace_back(e.time, src, dst, int(e.kind));
  }
  for (const TimelineEdge& e : got.data.edges) edges_got.emplace_back(e.time, e.src, e.dst, int(e.kind));
  CHECK(edges_got == edges_want);
  CHECK(got.data.edge_times.size() == got.data.edges.size());
  CHECK(got.data.check_invariants());
}

// Two filtered views are the same: their threads (ids, rows, chains,
// parents, merges, ends), each row's activations, the edges, and where each
// original thread is shown.
bool same_view(const FilteredTimeline& a, const FilteredTimeline& b) {
  if (a.shown_as != b.shown_as || a.original != b.original) return false;
  const TimelineData& x = a.data;
  const TimelineData& y = b.data;
  if (x.threads.size() != y.threads.size() || x.rows.size() != y.rows.size() || x.edges.size() != y.edges.size())
    return false;
  for (std::size_t k = 0; k < x.threads.size(); ++k) {
    const TimelineThread& p = x.threads[k];
    const TimelineThread& q = y.threads[k];
    if (std::tie(p.id, p.row, p.chain, p.parent, p.merged_into, p.start, p.end) !=
        std::tie(q.id, q.row, q.chain, q.parent, q.merged_into, q.start, q.end))
      return false;
  }
  for (std::size_t r = 0; r < x.rows.size(); ++r) {
    const auto& p = x.rows[r].activations;
    const auto& q = y.rows[r].activations;
    if (p.size() != q.size() || x.rows[r].threads != y.rows[r].threads) return false;
    for (std::size_t k = 0; k < p.size(); ++k)
      if (std::tie(p[k].start, p[k].end, p[k].thread) != std::tie(q[k].start, q[k].end, q[k].thread)) return false;
  }
  for (std::size_t k = 0; k < x.edges.size(); ++k)
    if (std::tie(x.edges[k].time, x.edges[k].src, x.edges[k].dst, x.edges[k].kind) !=
        std::tie(y.edges[k].time, y.edges[k].src, y.edges[k].dst, y.edges[k].kind))
      return false;
  return true;
}

}  // namespace

TEST_CASE("filtered activations and edges are those the definition gives, on a generated trace",
          "[timeline][filter]") {
  samples::SyntheticOptions options;
  options.records = 80'000;
  options.seed = 5;
  test::LoadedTimeline t(samples::synthetic_trace_text(options), "filter-generated");
  const TimelineData& full = t.data;
  std::vector<bool> plumbing(full.threads.size(), false);
  for (const std::uint32_t i : plumbing_threads(full)) plumbing[i] = true;
  REQUIRE(std::count(plumbing.begin(), plumbing.end(), true) > 100);

  SECTION("simplify binds") {
    const FilteredTimeline got = filter_timeline(full, TimelineFilter{true, {}, 0});
    CHECK(got.plumbing == std::size_t(std::count(plumbing.begin(), plumbing.end(), true)));
    check_moved_like_the_definition(full, got, [&](std::uint32_t i) { return bool(plumbing[i]); });
  }
  SECTION("folded subtrees: their activations on their roots' rows, clipped where they meet") {
    // The parents of every 97th thread: many roots, nested ones among them.
    std::vector<ThreadId> roots;
    for (std::size_t i = 0; i < full.threads.size(); i += 97)
      if (full.threads[i].parent >= 0) roots.push_back(full.threads[i].parent);
    const FilteredTimeline got = filter_timeline(full, TimelineFilter{false, roots, 0});
    CHECK(got.folded > 100);
    check_moved_like_the_definition(full, got, [](std::uint32_t) { return false; });
    // The same, with each row's activations starting on whole microseconds
    // (many rows' at once: ties) and each lasting until the next on its
    // row: still sorted and disjoint on their rows, but a folded subtree's
    // now overlap on its root's row, where the later one is clipped.
    TimelineData stretched = full;
    std::size_t overlapping = 0;
    for (TimelineRow& r : stretched.rows) {
      auto& acts = r.activations;
      for (std::size_t k = 0; k < acts.size(); ++k)
        acts[k].start = std::max(k > 0 ? acts[k - 1].start : TimeNs{0}, acts[k].start / 1'000 * 1'000);
      for (std::size_t k = 0; k < acts.size(); ++k) {
        const TimeNs end = k + 1 < acts.size() ? acts[k + 1].start : stretched.end_time;
        overlapping += end > acts[k].end;
        acts[k].end = std::max(acts[k].start, end);
      }
    }
    CHECK(overlapping > 1'000);
    const FilteredTimeline clipped = filter_timeline(stretched, TimelineFilter{false, roots, 0});
    check_moved_like_the_definition(stretched, clipped, [](std::uint32_t) { return false; });
  }
  SECTION("a plan derived ahead gives the view derived at once, and one of another trace is not followed") {
    std::vector<ThreadId> roots;
    for (std::size_t i = 0; i < full.threads.size(); i += 211)
      if (full.threads[i].parent >= 0) roots.push_back(full.threads[i].parent);
    for (const TimelineFilter& filter :
         {TimelineFilter{true, {}, 0}, TimelineFilter{true, roots, 0}, TimelineFilter{false, roots, 5'000}}) {
      const FilterPlan plan = plan_filter(full, filter);
      const FilteredTimeline at_once = filter_timeline(full, filter);
      const FilteredTimeline planned = filter_timeline(full, plan);
      CHECK(same_view(planned, at_once));
      CHECK(planned.plumbing == at_once.plumbing);
      CHECK(planned.folded == at_once.folded);
      CHECK(planned.short_lived == at_once.short_lived);
      CHECK(planned.hidden_run_time == at_once.hidden_run_time);
      // (Simplify binds with folds: which plumbing is folded rather than
      // hidden is the filter's own derivation; the view derived at once,
      // held to its definition above, stands for it.)
      if (filter.simplify_binds && filter.folded.empty())
        check_moved_like_the_definition(full, planned, [&](std::uint32_t i) { return bool(plumbing[i]); });
      else if (!filter.simplify_binds)
        check_moved_like_the_definition(full, planned, [](std::uint32_t) { return false; });
    }
    // The plan of another trace (this one less its short threads): the
    // filter is derived anew for `full`, not misapplied.
    const FilteredTimeline shorter = filter_timeline(full, TimelineFilter{false, {}, 20'000});
    const FilterPlan other = plan_filter(shorter.data, TimelineFilter{true, {}, 0});
    CHECK(other.thread_count < full.threads.size());
    CHECK(same_view(filter_timeline(full, other), filter_timeline(full, TimelineFilter{true, {}, 0})));
  }
  SECTION("the duration bound") {
    const FilteredTimeline got = filter_timeline(full, TimelineFilter{false, {}, 20'000});
    CHECK(got.short_lived > 100);
    check_moved_like_the_definition(full, got, [](std::uint32_t) { return false; });
  }
}
