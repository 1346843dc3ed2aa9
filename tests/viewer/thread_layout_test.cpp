// thread_layout_test.cpp — the row assignment of viewer/core/thread_layout:
// hand-worked cases for each rule (first free row at or below the parent,
// reuse of free rows, merge chains on one row), then the invariants on a
// large random forest: no two chains overlap on a row, children never above
// their parents, and the same result whatever the input order.
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "viewer/core/thread_layout.hpp"

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
