// timeline_filter.cpp — two stages. The plan (plan_filter) reads the
// threads and edges only: every thread is classified first, by the
// header's rules in order, each over the threads still shown (folded
// subtrees by a stack walk over CSR children lists, plumbing from one pass
// over the edges, then lifetimes); chains of stand-ins are resolved once
// each (a cycle or a short-lived link ends in none); the shown threads are
// listed in id order, re-parented and laid out again. Applying it copies
// the shown threads and fills their rows while the second core moves the
// edges to their stand-ins (an edge that loses an end or would join a
// thread to itself is dropped); the findings and the edges' times go to
// whichever core is free first; then both cores move the activations, each
// for its own range of rows. An empty filter is a plain copy.
#include "viewer/timeline/timeline_filter.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <future>
#include <numeric>
#include <string_view>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/thread_layout.hpp"
#include "viewer/timeline/freed_memory.hpp"

namespace skein {
namespace {

enum class Hidden : std::uint8_t { no, folded, plumbing, short_lived };

constexpr std::int32_t kNone = -1;

bool plumbing_kind(std::string_view kind) {
  return kind == "bind" || kind == "map" || kind == "catch" || kind == "try" || kind == "try_bind";
}

// Per thread: the one input a plumbing thread reads, else kNone.
std::vector<std::int32_t> plumbing_inputs(const TimelineData& data) {
  const std::size_t n = data.threads.size();
  constexpr std::int32_t kSeveral = -2;
  std::vector<std::int32_t> input(n, kNone);
  std::vector<std::uint8_t> notifies(n, 0);
  for (const TimelineEdge& e : data.edges) {
    if (e.src < 0) continue;
    const auto s = static_cast<std::size_t>(e.src);
    if (e.kind == EdgeKind::read || e.kind == EdgeKind::wait) {
      if (e.dst < 0 || e.dst == e.src) continue;
      if (input[s] == kNone) input[s] = e.dst;
      else if (input[s] != e.dst) input[s] = kSeveral;
    } else if (e.kind == EdgeKind::notify) {
      notifies[s] = 1;
    }
  }
  for (std::size_t i = 0; i < n; ++i)
    if (input[i] < 0 || notifies[i] || !plumbing_kind(data.text(data.threads[i].kind))) input[i] = kNone;
  return input;
}

// The stages of filter_timeline(), in its order.

// Which threads the filter hides, and why, with the thread each hidden one
// is drawn as (kNone: none) before chains are followed.
struct HiddenThreads {
  std::vector<Hidden> hidden;
  std::vector<std::int32_t> stand;  // original indexes
};

HiddenThreads hide_threads(const TimelineData& full, const TimelineFilter& filter,
                           const std::vector<std::int32_t>& parent) {
  const std::size_t n = full.threads.size();
  std::vector<Hidden> hidden(n, Hidden::no);
  std::vector<std::int32_t> stand(n, kNone);

  // 1. Folded subtrees.
  if (!filter.folded.empty()) {
    std::vector<std::uint32_t> first_child(n + 1, 0), children(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      if (parent[i] >= 0) ++first_child[static_cast<std::size_t>(parent[i]) + 1];
    std::partial_sum(first_child.begin(), first_child.end(), first_child.begin());
    std::vector<std::uint32_t> fill(first_child.begin(), first_child.end() - 1);
    for (std::size_t i = 0; i < n; ++i)
      if (parent[i] >= 0) children[fill[static_cast<std::size_t>(parent[i])]++] = static_cast<std::uint32_t>(i);
    std::vector<std::uint32_t> stack;
    for (ThreadId id : filter.folded) {
      const auto root = full.thread_index(id);
      if (!root || hidden[*root] != Hidden::no) continue;
      stack.assign(1, *root);
      while (!stack.empty()) {
        const std::uint32_t t = stack.back();
        stack.pop_back();
        for (std::uint32_t k = first_child[t]; k < first_child[t + 1]; ++k) {
          const std::uint32_t c = children[k];
          if (hidden[c] != Hidden::no || c == *root) continue;
          hidden[c] = Hidden::folded;
          stand[c] = static_cast<std::int32_t>(*root);
          stack.push_back(c);
        }
      }
    }
  }
  // 2. Plumbing.
  if (filter.simplify_binds) {
    const std::vector<std::int32_t> input = plumbing_inputs(full);
    for (std::size_t i = 0; i < n; ++i)
      if (hidden[i] == Hidden::no && input[i] != kNone) {
        hidden[i] = Hidden::plumbing;
        stand[i] = input[i];
      }
  }
  // 3. Short-lived.
  if (filter.min_duration > 0)
    for (std::size_t i = 0; i < n; ++i)
      if (hidden[i] == Hidden::no && full.threads[i].end - full.threads[i].start < filter.min_duration)
        hidden[i] = Hidden::short_lived;

  return HiddenThreads{std::move(hidden), std::move(stand)};
}

// Each thread's final stand-in: itself when shown, else the end of its
// chain of stand-ins (kNone for a cycle or a thread standing for none).
std::vector<std::int32_t> final_stand_ins(const std::vector<Hidden>& hidden, const std::vector<std::int32_t>& stand) {
  const std::size_t n = hidden.size();
  constexpr std::int32_t kUnknown = -2, kVisiting = -3;
  std::vector<std::int32_t> final_of(n, kUnknown);
  std::vector<std::uint32_t> path;
  for (std::size_t i = 0; i < n; ++i) {
    if (final_of[i] != kUnknown) continue;
    path.clear();
    std::int32_t x = static_cast<std::int32_t>(i);
    std::int32_t answer = kNone;
    while (true) {
      const auto ux = static_cast<std::size_t>(x);
      if (final_of[ux] == kVisiting) { answer = kNone; break; }  // a cycle of plumbing
      if (final_of[ux] != kUnknown) { answer = final_of[ux]; break; }
      if (hidden[ux] == Hidden::no) { answer = x; break; }
      if (hidden[ux] == Hidden::short_lived || stand[ux] < 0) {
        answer = kNone;
        path.push_back(static_cast<std::uint32_t>(x));
        break;
      }
      final_of[ux] = kVisiting;
      path.push_back(static_cast<std::uint32_t>(x));
      x = stand[ux];
    }
    for (std::uint32_t p : path) final_of[p] = answer;
  }

  return final_of;
}

// The shown threads, in id order (the original order), where each hidden
// one is shown and where its activations go, and the counts of what was
// hidden. `ends` gets each shown thread's end: its own, or for a folded
// root its subtree's last.
void keep_shown_threads(const TimelineData& full, const std::vector<Hidden>& hidden,
                        const std::vector<std::int32_t>& final_of, FilterPlan& plan, std::vector<TimeNs>& ends) {
  const std::size_t n = full.threads.size();
  plan.shown_as.assign(n, kNone);
  plan.activations_to.assign(n, FilterPlan::ActivationTarget{});
  const auto shown = static_cast<std::size_t>(std::count(hidden.begin(), hidden.end(), Hidden::no));
  plan.original.reserve(shown);
  ends.reserve(shown);
  for (std::size_t i = 0; i < n; ++i) {
    if (hidden[i] != Hidden::no) continue;
    plan.shown_as[i] = static_cast<std::int32_t>(plan.original.size());
    plan.activations_to[i].thread = plan.shown_as[i];
    plan.original.push_back(static_cast<std::uint32_t>(i));
    ends.push_back(full.threads[i].end);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (hidden[i] == Hidden::no) continue;
    if (final_of[i] >= 0) plan.shown_as[i] = plan.shown_as[static_cast<std::size_t>(final_of[i])];
    switch (hidden[i]) {
      case Hidden::folded: ++plan.folded; break;
      case Hidden::plumbing: ++plan.plumbing; break;
      case Hidden::short_lived: ++plan.short_lived; break;
      case Hidden::no: break;
    }
    if (hidden[i] != Hidden::folded || final_of[i] < 0)
      plan.hidden_run_time = saturating_add(plan.hidden_run_time, full.threads[i].run_time);
    // A folded thread's activations go to its root's row, and the root's
    // line reaches its subtree's last end.
    if (hidden[i] == Hidden::folded && plan.shown_as[i] >= 0) {
      plan.activations_to[i].thread = plan.shown_as[i];
      TimeNs& end = ends[static_cast<std::size_t>(plan.shown_as[i])];
      end = std::max(end, full.threads[i].end);
    }
  }
  for (std::size_t k = 0; k < ends.size(); ++k)
    if (ends[k] != full.threads[plan.original[k]].end)
      plan.folded_ends.emplace_back(static_cast<std::uint32_t>(k), ends[k]);
}

// Parents: the nearest shown ancestor, where a hidden plumbing or folded
// thread's place is taken by its stand-in; merge targets likewise; then the
// rows are laid out anew.
void relink_and_lay_out(const TimelineData& full, const std::vector<std::int32_t>& parent,
                        const std::vector<Hidden>& hidden, const std::vector<std::int32_t>& final_of,
                        const std::vector<TimeNs>& ends, FilterPlan& plan) {
  const std::size_t n = full.threads.size();
  const std::size_t shown = plan.original.size();
  plan.parent.assign(shown, kNone);
  plan.merged_into.assign(shown, kNone);
  std::vector<LayoutThread> layout_input;
  layout_input.reserve(shown);
  const auto id_of = [&full](std::int32_t i) {
    return i >= 0 ? std::optional<ThreadId>(full.threads[static_cast<std::size_t>(i)].id) : std::nullopt;
  };
  for (std::size_t k = 0; k < shown; ++k) {
    const std::uint32_t self = plan.original[k];
    const TimelineThread& t = full.threads[self];
    std::int32_t p = parent[self];
    for (std::size_t steps = 0; p >= 0 && steps <= n; ++steps) {
      const auto up = static_cast<std::size_t>(p);
      if (hidden[up] == Hidden::no) break;
      if (hidden[up] != Hidden::short_lived && final_of[up] >= 0) { p = final_of[up]; break; }
      p = parent[up];
    }
    if (p >= 0 && static_cast<std::uint32_t>(p) == self) p = kNone;
    plan.parent[k] = p;
    if (t.merged_into >= 0)
      if (auto j = full.thread_index(t.merged_into);
          j && final_of[*j] >= 0 && static_cast<std::uint32_t>(final_of[*j]) != self)
        plan.merged_into[k] = final_of[*j];
    layout_input.push_back(
        LayoutThread{t.id, id_of(plan.parent[k]), t.start, ends[k], id_of(plan.merged_into[k]), t.label != 0});
  }
  ThreadLayout layout = layout_threads(layout_input);
  plan.rows = std::move(layout.rows);
  plan.chain_head = std::move(layout.chain_head);
  plan.row_count = layout.row_count;
  std::vector<TimeNs> starts;
  starts.reserve(shown);
  for (const LayoutThread& t : layout_input) starts.push_back(t.start);
  plan.members = group_rows(starts, plan.rows, plan.row_count);
}

// Where each thread's activations go, and how many each row takes.
void target_activations(const TimelineData& full, FilterPlan& plan) {
  for (FilterPlan::ActivationTarget& t : plan.activations_to)
    if (t.thread >= 0) t.row = plan.rows[static_cast<std::size_t>(t.thread)];
  plan.row_activations.assign(static_cast<std::size_t>(plan.row_count), 0);
  for (const TimelineRow& r : full.rows)
    for (const TimelineActivation& a : r.activations)
      if (const FilterPlan::ActivationTarget t = plan.activations_to[a.thread]; t.row >= 0)
        ++plan.row_activations[static_cast<std::size_t>(t.row)];
}

// The shown threads as the result holds them: the originals, re-parented,
// their merges redirected, folded roots' lines lengthened; rows come with
// assemble_rows.
void copy_shown_threads(const TimelineData& full, const FilterPlan& plan, TimelineData& d) {
  const std::size_t shown = plan.original.size();
  d.threads.resize(shown);
  const auto id_of = [&full](std::int32_t i) {
    return i >= 0 ? full.threads[static_cast<std::size_t>(i)].id : ThreadId{-1};
  };
  for (std::size_t k = 0; k < shown; ++k) {
    TimelineThread& t = d.threads[k];
    t = full.threads[plan.original[k]];
    t.parent = id_of(plan.parent[k]);
    t.merged_into = id_of(plan.merged_into[k]);
  }
  for (const auto& [k, end] : plan.folded_ends) d.threads[k].end = end;
}

// Activations: a shown thread's own and its folded subtree's, on its new
// row, in start order (they never overlap: one thread runs at a time),
// placed as place_activation() places them. Each row's are gathered in
// the whole trace's row order and sorted stably by start on their own: the
// order a stable sort of all of them by start would give each row, without
// sorting all of them. Rows are split in two ranges of about as many
// activations, each gathered by a core of its own from a walk over all of
// them; `rows` comes back with each row's activations.
void move_activations(const TimelineData& full, const FilterPlan& plan, std::vector<TimelineRow>& rows) {
  const std::vector<FilterPlan::ActivationTarget>& target = plan.activations_to;
  std::size_t total = 0;
  for (std::size_t k = 0; k < rows.size(); ++k) total += plan.row_activations[k];
  // The first row of the second range.
  std::size_t split = 0;
  for (std::size_t sum = 0; split < rows.size() && 2 * sum < total; ++split) sum += plan.row_activations[split];

  const auto gather = [&full, &plan, &target, &rows](std::size_t low, std::size_t high) {
    for (std::size_t k = low; k < high; ++k) rows[k].activations.reserve(plan.row_activations[k]);
    for (const TimelineRow& r : full.rows)
      for (const TimelineActivation& a : r.activations)
        if (const FilterPlan::ActivationTarget t = target[a.thread]; t.row >= 0) {
          const auto row = static_cast<std::size_t>(t.row);
          if (row >= low && row < high)
            rows[row].activations.push_back(TimelineActivation{a.start, a.end, static_cast<std::uint32_t>(t.thread)});
        }
    const auto by_start = [](const TimelineActivation& a, const TimelineActivation& b) { return a.start < b.start; };
    for (std::size_t k = low; k < high; ++k) {
      LargeArray<TimelineActivation>& acts = rows[k].activations;
      if (!std::is_sorted(acts.begin(), acts.end(), by_start)) std::stable_sort(acts.begin(), acts.end(), by_start);
      // place_activation's clip: each starts no earlier than the one before ends.
      for (std::size_t j = 0; j < acts.size(); ++j) {
        if (j > 0) acts[j].start = std::max(acts[j].start, acts[j - 1].end);
        acts[j].end = std::max(acts[j].end, acts[j].start);
      }
    }
  };
  auto second = std::async(std::launch::async, gather, split, rows.size());
  gather(0, split);
  second.get();
}

// An edge moved to the stand-ins of its ends: gone (nullopt) when an end is
// hidden with none, or when both ends now are one thread.
std::optional<TimelineEdge> moved_edge(TimelineEdge e, const std::vector<std::int32_t>& shown_as) {
  for (std::int32_t* end : {&e.src, &e.dst}) {
    if (*end < 0) continue;
    *end = shown_as[static_cast<std::size_t>(*end)];
    if (*end < 0) return std::nullopt;
  }
  if (e.src >= 0 && e.src == e.dst) return std::nullopt;
  return e;
}

// The edges, moved to the stand-ins, in their order.
void move_edges(const TimelineData& full, const std::vector<std::int32_t>& shown_as, LargeArray<TimelineEdge>& edges) {
  for (const TimelineEdge& e : full.edges)
    if (const auto m = moved_edge(e, shown_as)) edges.push_back(*m);
}

// The findings, moved to the stand-ins, and the rows each touches
// (index_finding_rows's, from the plan's rows rather than the threads').
void move_findings(const TimelineData& full, const FilterPlan& plan, std::vector<TimelineAnomaly>& anomalies,
                   std::vector<FindingRowSpan>& finding_rows) {
  anomalies.assign(full.anomalies.begin(), full.anomalies.end());
  finding_rows.assign(anomalies.size(), FindingRowSpan{});
  for (std::size_t i = 0; i < anomalies.size(); ++i) {
    TimelineAnomaly& a = anomalies[i];
    for (std::int32_t* t : {&a.thread, &a.from, &a.suspect})
      if (*t >= 0) *t = plan.shown_as[static_cast<std::size_t>(*t)];
    FindingRowSpan& span = finding_rows[i];
    for (const std::int32_t t : {a.thread, a.from})
      if (t >= 0) {
        const std::int32_t row = plan.rows[static_cast<std::size_t>(t)];
        span.low = std::min(span.low, row);
        span.high = std::max(span.high, row);
      }
  }
}

// The times of the edges move_edges keeps, in its order, by
// the plan's list of them.
void edge_times_of(const TimelineData& full, const FilterPlan& plan, LargeArray<TimeNs>& times) {
  times.reserve(plan.edges_kept);
  for (std::size_t k = 0; k < full.edges.size(); ++k)
    if (plan.edge_kept[k / 64] >> (k % 64) & 1) times.push_back(full.edges[k].time);
}

// Which edges the filter keeps.
void keep_edges(const TimelineData& full, FilterPlan& plan) {
  plan.edge_kept.assign((full.edges.size() + 63) / 64, 0);
  plan.edges_kept = 0;
  for (std::size_t k = 0; k < full.edges.size(); ++k)
    if (moved_edge(full.edges[k], plan.shown_as)) {
      plan.edge_kept[k / 64] |= std::uint64_t{1} << (k % 64);
      ++plan.edges_kept;
    }
}

}  // namespace

std::vector<std::uint32_t> plumbing_threads(const TimelineData& data) {
  const std::vector<std::int32_t> input = plumbing_inputs(data);
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < input.size(); ++i)
    if (input[i] != kNone) out.push_back(static_cast<std::uint32_t>(i));
  return out;
}

namespace {

// plan_filter(), with the list of edges kept or without it: a plan applied
// at once, as it is derived, moves the edges without it and takes their
// times from the moved ones, rather than looking up both ends of every edge
// twice.
FilterPlan derive_plan(const TimelineData& full, const TimelineFilter& filter, bool list_edges) {
  FilterPlan plan;
  plan.filter = filter;
  plan.thread_count = full.threads.size();
  plan.edge_count = full.edges.size();
  plan.end_time = full.end_time;
  const std::size_t n = full.threads.size();
  if (filter.empty()) {
    plan.shown_as.resize(n);
    std::iota(plan.shown_as.begin(), plan.shown_as.end(), 0);
    plan.activations_to.resize(n);
    plan.original.resize(n);
    std::iota(plan.original.begin(), plan.original.end(), 0U);
    return plan;
  }
  // Parents as indexes, and children lists (CSR) for folding.
  std::vector<std::int32_t> parent(n, kNone);
  for (std::size_t i = 0; i < n; ++i)
    if (auto p = full.threads[i].parent >= 0 ? full.thread_index(full.threads[i].parent) : std::nullopt)
      if (*p != i) parent[i] = static_cast<std::int32_t>(*p);

  const HiddenThreads h = hide_threads(full, filter, parent);
  const std::vector<std::int32_t> final_of = final_stand_ins(h.hidden, h.stand);
  std::vector<TimeNs> ends;
  keep_shown_threads(full, h.hidden, final_of, plan, ends);
  relink_and_lay_out(full, parent, h.hidden, final_of, ends, plan);
  target_activations(full, plan);
  if (list_edges) keep_edges(full, plan);
  return plan;
}

}  // namespace

FilterPlan plan_filter(const TimelineData& full, const TimelineFilter& filter) {
  return derive_plan(full, filter, true);
}

namespace {

bool plan_fits(const TimelineData& full, const FilterPlan& plan) {
  const std::size_t shown = plan.original.size();
  const auto rows = static_cast<std::size_t>(std::max(plan.row_count, 0));
  return plan.thread_count == full.threads.size() && plan.edge_count == full.edges.size() &&
         plan.end_time == full.end_time && plan.shown_as.size() == full.threads.size() &&
         plan.activations_to.size() == full.threads.size() &&
         (plan.filter.empty() || (plan.parent.size() == shown && plan.merged_into.size() == shown &&
                                  plan.rows.size() == shown && plan.chain_head.size() == shown &&
                                  plan.members.first.size() == rows + 1 && plan.members.threads.size() == shown &&
                                  plan.row_activations.size() == rows &&
                                  plan.edge_kept.size() == (full.edges.size() + 63) / 64));
}

// The filter itself, by a plan that fits `full`.
FilteredTimeline apply_plan(const TimelineData& full, const FilterPlan& plan) {
  FilteredTimeline result;
  result.shown_as = plan.shown_as;
  result.original = plan.original;
  result.folded = plan.folded;
  result.plumbing = plan.plumbing;
  result.short_lived = plan.short_lived;
  result.hidden_run_time = plan.hidden_run_time;
  if (plan.filter.empty()) {
    result.data = full;
    return result;
  }

  // Both cores at once: this one copies the threads and fills the rows
  // while the second moves the edges; then each takes, as it comes free,
  // the next of the findings (with their rows) and the edges' times; then
  // both move the activations, each for its range of rows.
  TimelineData& d = result.data;
  // Without the plan's list of edges kept (a plan applied as it is derived),
  // the edges' times come from the moved edges, once they are moved.
  const bool edges_listed = plan.edge_kept.size() == (full.edges.size() + 63) / 64 && !full.edges.empty();
  // Room for the edges, made on this thread (they are mapped on their own;
  // the rest comes from the heap of the thread that fills it).
  d.edges.reserve(edges_listed ? plan.edges_kept : full.edges.size());
  std::vector<std::function<void()>> spare{
      [&full, &plan, &d] { move_findings(full, plan, d.anomalies, d.finding_rows); }};
  if (edges_listed) spare.emplace_back([&full, &plan, &d] { edge_times_of(full, plan, d.edge_times); });
  std::atomic<std::size_t> next_spare{0};
  const auto take_spare = [&spare, &next_spare] {
    for (std::size_t k = next_spare++; k < spare.size(); k = next_spare++) spare[k]();
  };
  auto second = std::async(std::launch::async, [&full, &result, &d, &take_spare] {
    move_edges(full, result.shown_as, d.edges);
    take_spare();
  });
  copy_shown_threads(full, plan, d);
  index_threads(d);
  assemble_grouped_rows(d, plan.rows, plan.chain_head, plan.members);
  take_spare();
  second.get();
  if (!edges_listed) {
    d.edge_times.reserve(d.edges.size());
    for (const TimelineEdge& e : d.edges) d.edge_times.push_back(e.time);
  }
  move_activations(full, plan, d.rows);

  d.source = full.source;
  d.first_time = full.first_time;
  d.end_time = full.end_time;
  d.idle = full.idle;
  d.gc = full.gc;
  d.counters = full.counters;
  d.strings = full.strings;
  d.label_counts = full.label_counts;
  d.label_lists = full.label_lists;
  d.label_lists_error = full.label_lists_error;
  d.sites = full.sites;
  return result;
}

}  // namespace

FilteredTimeline filter_timeline(const TimelineData& full, const TimelineFilter& filter) {
  FilteredTimeline result;
  {
    const FilterPlan plan = derive_plan(full, filter, false);
    result = apply_plan(full, plan);
  }
  // The derivation's own arrays (per thread, per row) are gone now.
  release_freed_memory();
  return result;
}

FilteredTimeline filter_timeline(const TimelineData& full, const FilterPlan& plan) {
  if (!plan_fits(full, plan)) return filter_timeline(full, plan.filter);
  FilteredTimeline result = apply_plan(full, plan);
  release_freed_memory();
  return result;
}

std::optional<std::uint32_t> shown_index(const TimelineData& full, const FilteredTimeline* filtered, ThreadId id) {
  const auto i = full.thread_index(id);
  if (!i || !filtered) return i;
  if (*i >= filtered->shown_as.size()) return std::nullopt;
  const std::int32_t s = filtered->shown_as[*i];
  return s >= 0 ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(s)) : std::nullopt;
}

}  // namespace skein
