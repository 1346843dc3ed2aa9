// thread_layout_test.cpp — the row assignment of recorder/store/thread_layout:
// hand-worked cases for each rule (first free row at or below the parent,
// reuse of free rows, merge chains on one row), then the invariants on a
// large random forest: no two chains overlap on a row, children never above
// their parents, and the same result whatever the input order; the
// prominent (labelled, long-lived) chains on the top rows; and the first
// screen of a hand-built trace: the prominent row on top, start-up rows
// folded at the fitted zoom and back when zoomed into the start.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "recorder/store/thread_layout.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_view.hpp"

using namespace skein;

namespace {

LayoutThread thread(ThreadId id, std::optional<ThreadId> parent, TimeNs start, TimeNs end,
                    std::optional<ThreadId> merged_into = std::nullopt) {
  return LayoutThread{id, parent, start, end, merged_into};
}

std::map<ThreadId, std::int32_t> rows_by_id(const std::vector<LayoutThread>& threads) {
  const ThreadLayout layout = layout_threads(threads);
  std::map<ThreadId, std::int32_t> out;
  for (std::size_t i = 0; i < threads.size(); ++i) out[threads[i].id] = layout.rows[i];
  return out;
}

}  // namespace

TEST_CASE("layout: a child goes to the first free row at or below its parent", "[layout]") {
  // 0 lives throughout on row 0. 1 (child of 0) goes below it; 2 (child of
  // 1) below 1; 3 (child of 0) starts after 1 ended, so it reuses row 1.
  const std::vector<LayoutThread> threads = {
      thread(0, std::nullopt, 0, 100), thread(1, 0, 10, 20), thread(2, 1, 12, 30), thread(3, 0, 25, 40)};
  const auto rows = rows_by_id(threads);
  CHECK(rows.at(0) == 0);
  CHECK(rows.at(1) == 1);
  CHECK(rows.at(2) == 2);
  CHECK(rows.at(3) == 1);
  CHECK(layout_threads(threads).row_count == 3);
}

TEST_CASE("layout: a free row above the parent is not used", "[layout]") {
  // 0 ends at 5, so row 0 is free from then; 1 lives on row 1 and its child
  // 2 must still go below it, not up to row 0.
  const std::vector<LayoutThread> threads = {thread(0, std::nullopt, 0, 5), thread(1, std::nullopt, 1, 100),
                                             thread(2, 1, 50, 60)};
  const auto rows = rows_by_id(threads);
  CHECK(rows.at(0) == 0);
  CHECK(rows.at(1) == 1);
  CHECK(rows.at(2) == 2);
}

TEST_CASE("layout: no staircase, rows are reused once free", "[layout]") {
  // A thousand short sequential children of a long-lived parent all fit on
  // the one row under it.
  std::vector<LayoutThread> threads = {thread(0, std::nullopt, 0, 1'000'000)};
  for (ThreadId i = 1; i <= 1000; ++i) threads.push_back(thread(i, 0, i * 100, i * 100 + 50));
  const ThreadLayout layout = layout_threads(threads);
  CHECK(layout.row_count == 2);
  for (std::size_t i = 1; i < threads.size(); ++i) CHECK(layout.rows[i] == 1);
}

TEST_CASE("layout: touching spans do not share a row", "[layout]") {
  const std::vector<LayoutThread> threads = {thread(1, std::nullopt, 0, 10), thread(2, std::nullopt, 10, 20),
                                             thread(3, std::nullopt, 11, 20)};
  const auto rows = rows_by_id(threads);
  CHECK(rows.at(1) == 0);
  CHECK(rows.at(2) == 1);
  CHECK(rows.at(3) == 0);
}

TEST_CASE("layout: a merge chain continues on its predecessor's row", "[layout]") {
  // 1 merges into 2, 2 into 3 (Skein's runtime: chains A->B->C); 3 is a
  // child of 2 created while 2 is alive, which alone would put it below.
  // Thread 4, alive meanwhile, must not land on the chain's row.
  const std::vector<LayoutThread> threads = {
      thread(0, std::nullopt, 0, 1000), thread(1, 0, 10, 50, 2), thread(2, 1, 20, 60, 3), thread(3, 2, 40, 90),
      thread(4, 0, 15, 70)};
  const ThreadLayout layout = layout_threads(threads);
  CHECK(layout.rows[1] == 1);
  CHECK(layout.rows[2] == 1);
  CHECK(layout.rows[3] == 1);
  CHECK(layout.rows[4] == 2);
  CHECK(layout.chain_head[2] == 1);
  CHECK(layout.chain_head[3] == 1);
  CHECK(layout.chain_head[4] == 4);
  CHECK(merge_chain_heads(threads) == layout.chain_head);
}

TEST_CASE("layout: a loop absorbing each iteration stays on one row", "[layout]") {
  // The 2014 MirageOS shape: A -> B1, A -> B2, ... (merged_into is the
  // latest merge only, so the chain is joined through A).
  std::vector<LayoutThread> threads = {thread(1, 0, 0, 1000, 5)};
  for (ThreadId b = 2; b <= 5; ++b) threads.push_back(thread(b, 1, b * 100, b * 100 + 300));
  threads[1].merged_into = 1;  // B1 names A (a merge in the other direction joins the same chain)
  threads[2].merged_into = 1;
  threads[3].merged_into = 1;
  const ThreadLayout layout = layout_threads(threads);
  for (std::size_t i = 0; i < threads.size(); ++i) CHECK(layout.rows[i] == 0);
  CHECK(layout.row_count == 1);
}

TEST_CASE("layout: invariants and determinism on a random forest", "[layout]") {
  std::mt19937_64 rng(7);
  std::vector<LayoutThread> threads;
  const int n = 20'000;
  for (int i = 0; i < n; ++i) {
    const TimeNs start = static_cast<TimeNs>(rng() % 1'000'000);
    const TimeNs end = start + static_cast<TimeNs>(rng() % 5'000);
    std::optional<ThreadId> parent;
    if (i > 0 && rng() % 10 != 0) parent = static_cast<ThreadId>(rng() % static_cast<std::uint64_t>(i));
    std::optional<ThreadId> merged;
    if (i > 0 && rng() % 20 == 0) merged = static_cast<ThreadId>(rng() % static_cast<std::uint64_t>(i));
    threads.push_back(thread(i, parent, start, end, merged));
  }
  const ThreadLayout layout = layout_threads(threads);

  // Chains occupy [min start, max end] of their members; per row, no two
  // chains overlap (touching counts as overlapping).
  std::map<std::uint32_t, std::pair<TimeNs, TimeNs>> chain_span;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    auto [it, fresh] = chain_span.try_emplace(layout.chain_head[i], threads[i].start, threads[i].end);
    if (!fresh) {
      it->second.first = std::min(it->second.first, threads[i].start);
      it->second.second = std::max(it->second.second, threads[i].end);
    }
    CHECK(layout.rows[i] == layout.rows[layout.chain_head[i]]);
  }
  std::map<std::int32_t, std::vector<std::pair<TimeNs, TimeNs>>> by_row;
  for (const auto& [head, span] : chain_span) by_row[layout.rows[head]].push_back(span);
  std::size_t overlaps = 0;
  for (auto& [row, spans] : by_row) {
    std::sort(spans.begin(), spans.end());
    for (std::size_t k = 1; k < spans.size(); ++k) overlaps += spans[k].first <= spans[k - 1].second ? 1 : 0;
  }
  CHECK(overlaps == 0);

  // A chain's head is never above its parent when the parent's chain
  // started first (it was placed first).
  std::size_t above = 0;
  for (const auto& [head, span] : chain_span) {
    const auto& parent = threads[head].parent;
    if (!parent) continue;
    const std::uint32_t parent_head = layout.chain_head[static_cast<std::size_t>(*parent)];
    if (parent_head == head) continue;
    const auto& pspan = chain_span.at(parent_head);
    const bool placed_first =
        pspan.first < span.first || (pspan.first == span.first && threads[parent_head].id < threads[head].id);
    if (placed_first && layout.rows[head] < layout.rows[parent_head]) ++above;
  }
  CHECK(above == 0);

  // Rows are compact: far fewer rows than threads, since rows are reused.
  CHECK(layout.row_count < n / 10);

  // The same rows whatever the input order.
  std::vector<LayoutThread> shuffled = threads;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const ThreadLayout again = layout_threads(shuffled);
  std::size_t differences = 0;
  for (std::size_t i = 0; i < shuffled.size(); ++i)
    differences += again.rows[i] != layout.rows[static_cast<std::size_t>(shuffled[i].id)] ? 1 : 0;
  CHECK(differences == 0);
  CHECK(again.row_count == layout.row_count);
}

TEST_CASE("layout: labelled chains alive through most creations take the top rows", "[layout]") {
  // 0 (unlabelled) lives throughout; 1 "sleep" is labelled but alive only
  // while 1 of the 13 threads is created (itself); 2 "poll" (child of 0)
  // and its continuation 3 (merged into it) are labelled, and alive while
  // 11 are; 4..12 are short children of 2, one after another.
  std::vector<LayoutThread> threads = {thread(0, std::nullopt, 0, 1000), thread(1, 0, 1, 90),
                                       thread(2, 0, 100, 500), thread(3, 2, 400, 1000, 2)};
  threads[1].labelled = true;
  threads[2].labelled = true;
  for (ThreadId k = 4; k <= 12; ++k) threads.push_back(thread(k, 2, 100 + 20 * k, 110 + 20 * k));
  const ThreadLayout layout = layout_threads(threads);
  const auto rows = rows_by_id(threads);
  CHECK(rows.at(2) == 0);  // first, though created after 0 and 1
  CHECK(rows.at(3) == 0);  // its chain
  CHECK(rows.at(0) == 1);
  CHECK(rows.at(1) == 2);  // below its parent, as before
  for (ThreadId k = 4; k <= 12; ++k) CHECK(rows.at(k) == 2);  // reusing 1's row once it ended
  CHECK(layout.prominent[2]);
  CHECK(layout.prominent[3]);
  CHECK_FALSE(layout.prominent[0]);  // not labelled
  CHECK_FALSE(layout.prominent[1]);  // labelled, but not alive while most threads are created
  // Without labels, the layout of before: by start, children below parents.
  for (LayoutThread& t : threads) t.labelled = false;
  const auto plain = rows_by_id(threads);
  CHECK(plain.at(0) == 0);
  CHECK(plain.at(1) == 1);
  CHECK(plain.at(2) == 1);
}

TEST_CASE("layout: prominent chains keep their rows, and the result is the same in any order", "[layout]") {
  std::mt19937_64 rng(11);
  std::vector<LayoutThread> threads;
  const int n = 5'000;
  for (int i = 0; i < n; ++i) {
    const TimeNs start = static_cast<TimeNs>(rng() % 1'000'000);
    // Every 250th thread lives from near the start to the end.
    const TimeNs end = i % 250 == 0 ? 1'000'000 : start + static_cast<TimeNs>(rng() % 5'000);
    std::optional<ThreadId> parent;
    if (i > 0 && rng() % 10 != 0) parent = static_cast<ThreadId>(rng() % static_cast<std::uint64_t>(i));
    threads.push_back(thread(i, parent, i % 250 == 0 ? start / 20 : start, end));
    threads.back().labelled = rng() % 2 == 0;
  }
  const ThreadLayout layout = layout_threads(threads);
  std::size_t prominent = 0;
  for (bool p : layout.prominent) prominent += p ? 1 : 0;
  CHECK(prominent > 0);
  // On each row, the prominent threads end before any other thread starts.
  std::map<std::int32_t, TimeNs> prominent_end, other_start;
  for (std::size_t i = 0; i < threads.size(); ++i) {
    const std::int32_t r = layout.rows[i];
    if (layout.prominent[i]) {
      auto [it, fresh] = prominent_end.try_emplace(r, threads[i].end);
      if (!fresh) it->second = std::max(it->second, threads[i].end);
    } else {
      auto [it, fresh] = other_start.try_emplace(r, threads[i].start);
      if (!fresh) it->second = std::min(it->second, threads[i].start);
    }
  }
  std::size_t before_prominent = 0;
  for (const auto& [row, end] : prominent_end)
    if (auto it = other_start.find(row); it != other_start.end() && it->second <= end) ++before_prominent;
  CHECK(before_prominent == 0);
  std::vector<LayoutThread> shuffled = threads;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  const ThreadLayout again = layout_threads(shuffled);
  std::size_t differences = 0;
  for (std::size_t i = 0; i < shuffled.size(); ++i)
    differences += again.rows[i] != layout.rows[static_cast<std::size_t>(shuffled[i].id)] ? 1 : 0;
  CHECK(differences == 0);
}

namespace {

// A TimelineData laid out from `threads` by the real layout, with `labels`
// (id -> text) and `failed` ids; no activations or edges.
TimelineData timeline_of(const std::vector<LayoutThread>& threads, const std::map<ThreadId, std::string>& labels,
                         const std::vector<ThreadId>& failed, TimeNs end_time) {
  TimelineData d;
  d.first_time = 0;
  d.end_time = end_time;
  d.strings = {""};
  std::vector<LayoutThread> input = threads;
  for (LayoutThread& l : input) {
    TimelineThread t;
    t.id = l.id;
    t.parent = l.parent.value_or(-1);
    t.start = l.start;
    t.end = l.end;
    t.outcome = std::find(failed.begin(), failed.end(), l.id) != failed.end() ? ThreadOutcome::fail : ThreadOutcome::ok;
    if (auto it = labels.find(l.id); it != labels.end()) {
      d.strings.push_back(it->second);
      t.label = static_cast<std::uint32_t>(d.strings.size() - 1);
      l.labelled = true;
    }
    d.threads.push_back(t);
  }
  index_threads(d);
  const ThreadLayout layout = layout_threads(input);
  assemble_rows(d, layout.rows, layout.chain_head, layout.row_count);
  return d;
}

}  // namespace

TEST_CASE("first screen: the long-lived labelled row first, start-up rows folded until zoomed into", "[layout]") {
  // 0 is the main thread; 1..5 are start-up threads ending by 10 ns of a
  // 1000 ns trace (1%), 5 of them failing; 10 "poll" lives from 100 to the
  // end with its short children 20..40, one after another.
  std::vector<LayoutThread> threads = {thread(0, std::nullopt, 0, 1000)};
  for (ThreadId k = 1; k <= 5; ++k) threads.push_back(thread(k, 0, k, 5 + k));
  threads.push_back(thread(10, 0, 100, 1000));
  for (ThreadId k = 20; k <= 40; ++k) threads.push_back(thread(k, 10, 40 * (k - 20) + 110, 40 * (k - 20) + 120));
  const TimelineData d = timeline_of(threads, {{10, "poll"}}, {5}, 1000);
  const auto row = [&](ThreadId id) { return d.threads[*d.thread_index(id)].row; };
  CHECK(row(10) == 0);
  CHECK(row(0) == 1);
  // 1 shares its row with 20..40; 2, 3, 4 have rows to themselves.
  CHECK(row(20) == row(1));
  for (ThreadId k : {2, 3, 4}) CHECK(row_is_startup(d, row(k)));
  CHECK_FALSE(row_is_startup(d, row(1)));
  CHECK_FALSE(row_is_startup(d, row(5)));  // it failed
  CHECK_FALSE(row_is_startup(d, row(10)));

  TimelineViewState view;
  view.fit(d, 1000);
  view.refold(d, 1000);
  CHECK(view.folded_startup == 3);
  CHECK(view.row_of_slot(0) == row(10));
  CHECK(view.row_of_slot(1) == row(0));
  CHECK_FALSE(view.slot_of(row(2)));
  CHECK(view.slot_of(row(5)));
  // Zoomed into the start (under half the trace), they come back.
  view.mapping.fit(0, 50, 1000);
  view.refold(d, 1000);
  CHECK(view.folded_startup == 0);
  CHECK(view.slot_of(row(2)));
  // Selected, a start-up row stays shown at the fitted zoom too.
  view.fit(d, 1000);
  view.select(d, *d.thread_index(3));
  view.refold(d, 1000);
  CHECK(view.slot_of(row(3)));
  CHECK(view.folded_startup == 2);
  // Other folding modes never fold them.
  view.select(d, std::nullopt);
  view.folding = RowFolding::empty;
  view.refold(d, 1000);
  CHECK(view.folded_startup == 0);
  CHECK(view.slot_of(row(2)));
}
