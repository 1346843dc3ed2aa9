// timeline_filter.cpp — an empty filter is a plain copy. Otherwise every
// thread is classified first, by the header's rules in order, each over the
// threads still shown: folded subtrees by a stack walk over CSR children
// lists, plumbing from one pass over the edges, then lifetimes. Chains of
// stand-ins are resolved once each (a cycle or a short-lived link ends in
// none). The shown threads are copied in id order, re-parented, laid out
// again, and given their stand-ins' activations (by start, row by row) and
// edges (on a second thread, beside the layout); an edge that loses an end
// or would join a thread to itself is dropped.
#include "viewer/timeline/timeline_filter.hpp"

#include <algorithm>
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
// one is shown, and the counts of what was hidden.
void keep_shown_threads(const TimelineData& full, const std::vector<Hidden>& hidden,
                        const std::vector<std::int32_t>& final_of, FilteredTimeline& result) {
  const std::size_t n = full.threads.size();
  TimelineData& d = result.data;
  result.shown_as.assign(n, kNone);
  const auto shown = static_cast<std::size_t>(std::count(hidden.begin(), hidden.end(), Hidden::no));
  d.threads.reserve(shown);
  result.original.reserve(shown);
  for (std::size_t i = 0; i < n; ++i) {
    if (hidden[i] != Hidden::no) continue;
    result.shown_as[i] = static_cast<std::int32_t>(d.threads.size());
    result.original.push_back(static_cast<std::uint32_t>(i));
    d.threads.push_back(full.threads[i]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (hidden[i] == Hidden::no) continue;
    if (final_of[i] >= 0) result.shown_as[i] = result.shown_as[static_cast<std::size_t>(final_of[i])];
    switch (hidden[i]) {
      case Hidden::folded: ++result.folded; break;
      case Hidden::plumbing: ++result.plumbing; break;
      case Hidden::short_lived: ++result.short_lived; break;
      case Hidden::no: break;
    }
    if (hidden[i] != Hidden::folded || final_of[i] < 0)
      result.hidden_run_time = saturating_add(result.hidden_run_time, full.threads[i].run_time);
    // A folded root's line reaches its subtree's last end.
    if (hidden[i] == Hidden::folded && result.shown_as[i] >= 0) {
      TimelineThread& root = d.threads[static_cast<std::size_t>(result.shown_as[i])];
      root.end = std::max(root.end, full.threads[i].end);
    }
  }

}

// Parents: the nearest shown ancestor, where a hidden plumbing or folded
// thread's place is taken by its stand-in; then the rows are laid out anew.
void relink_and_lay_out(const TimelineData& full, const std::vector<std::int32_t>& parent,
                        const std::vector<Hidden>& hidden, const std::vector<std::int32_t>& final_of,
                        FilteredTimeline& result) {
  const std::size_t n = full.threads.size();
  TimelineData& d = result.data;
  std::vector<LayoutThread> layout_input;
  layout_input.reserve(d.threads.size());
  for (std::size_t k = 0; k < d.threads.size(); ++k) {
    TimelineThread& t = d.threads[k];
    const std::uint32_t self = result.original[k];
    std::int32_t p = parent[self];
    for (std::size_t steps = 0; p >= 0 && steps <= n; ++steps) {
      const auto up = static_cast<std::size_t>(p);
      if (hidden[up] == Hidden::no) break;
      if (hidden[up] != Hidden::short_lived && final_of[up] >= 0) { p = final_of[up]; break; }
      p = parent[up];
    }
    if (p >= 0 && static_cast<std::uint32_t>(p) == self) p = kNone;
    const std::optional<ThreadId> parent_id =
        p >= 0 ? std::optional<ThreadId>(full.threads[static_cast<std::size_t>(p)].id) : std::nullopt;
    t.parent = parent_id.value_or(-1);
    std::optional<ThreadId> into;
    if (t.merged_into >= 0)
      if (auto j = full.thread_index(t.merged_into); j && final_of[*j] >= 0 && static_cast<std::uint32_t>(final_of[*j]) != self)
        into = full.threads[static_cast<std::size_t>(final_of[*j])].id;
    t.merged_into = into.value_or(-1);
    layout_input.push_back(LayoutThread{t.id, parent_id, t.start, t.end, into, t.label != 0});
  }
  index_threads(d);
  ThreadLayout layout = layout_threads(layout_input);
  assemble_rows(d, layout.rows, layout.chain_head, layout.row_count);

}

// Activations: a shown thread's own and its folded subtree's, on its new
// row, in start order (they never overlap: one thread runs at a time),
// placed as place_activation() places them. Each row's are gathered in
// the whole trace's row order and sorted stably by start on their own: the
// order a stable sort of all of them by start would give each row, without
// sorting all of them.
void move_activations(const TimelineData& full, const std::vector<Hidden>& hidden, FilteredTimeline& result) {
  TimelineData& d = result.data;
  // Per original thread, where its activations go: (row, thread) in the
  // result, or none; one lookup an activation.
  struct Target {
    std::int32_t row = kNone;
    std::int32_t thread = kNone;
  };
  std::vector<Target> target(full.threads.size());
  for (std::size_t i = 0; i < target.size(); ++i) {
    const std::int32_t to = result.shown_as[i];
    if (to < 0 || hidden[i] == Hidden::plumbing || hidden[i] == Hidden::short_lived) continue;
    target[i] = Target{d.threads[static_cast<std::size_t>(to)].row, to};
  }
  std::vector<std::size_t> count(d.rows.size(), 0);
  for (const TimelineRow& r : full.rows)
    for (const TimelineActivation& a : r.activations)
      if (const Target t = target[a.thread]; t.row >= 0) ++count[static_cast<std::size_t>(t.row)];
  for (std::size_t k = 0; k < d.rows.size(); ++k) d.rows[k].activations.reserve(count[k]);
  for (const TimelineRow& r : full.rows)
    for (const TimelineActivation& a : r.activations)
      if (const Target t = target[a.thread]; t.row >= 0)
        d.rows[static_cast<std::size_t>(t.row)].activations.push_back(
            TimelineActivation{a.start, a.end, static_cast<std::uint32_t>(t.thread)});
  const auto by_start = [](const TimelineActivation& a, const TimelineActivation& b) { return a.start < b.start; };
  for (TimelineRow& row : d.rows) {
    std::vector<TimelineActivation>& acts = row.activations;
    if (!std::is_sorted(acts.begin(), acts.end(), by_start)) std::stable_sort(acts.begin(), acts.end(), by_start);
    // place_activation's clip: each starts no earlier than the one before ends.
    for (std::size_t k = 0; k < acts.size(); ++k) {
      if (k > 0) acts[k].start = std::max(acts[k].start, acts[k - 1].end);
      acts[k].end = std::max(acts[k].end, acts[k].start);
    }
  }
}

// Edges and findings, moved to the stand-ins: an edge is gone when an end
// is hidden with none, or when both ends now are one thread. Reads only
// `full`, `shown_as` and writes only the edges and findings of the result,
// so it runs beside the layout. It allocates nothing: the caller reserves
// room for every edge and finding before it starts, so that nothing is
// regrown on the way and the result's arrays all come from the caller's
// thread.
void move_edges_and_findings(const TimelineData& full, const std::vector<std::int32_t>& shown_as,
                             std::vector<TimelineEdge>& edges, std::vector<TimeNs>& edge_times,
                             std::vector<TimelineAnomaly>& anomalies) {
  for (const TimelineEdge& e : full.edges) {
    TimelineEdge m = e;
    bool keep = true;
    for (std::int32_t* end : {&m.src, &m.dst}) {
      if (*end < 0) continue;
      *end = shown_as[static_cast<std::size_t>(*end)];
      if (*end < 0) keep = false;
    }
    if (!keep || (m.src >= 0 && m.src == m.dst)) continue;
    edges.push_back(m);
    edge_times.push_back(m.time);
  }
  anomalies.assign(full.anomalies.begin(), full.anomalies.end());
  for (TimelineAnomaly& a : anomalies)
    for (std::int32_t* t : {&a.thread, &a.from, &a.suspect})
      if (*t >= 0) *t = shown_as[static_cast<std::size_t>(*t)];
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

// The filter itself (filter_timeline).
FilteredTimeline derive_filtered(const TimelineData& full, const TimelineFilter& filter) {
  FilteredTimeline result;
  const std::size_t n = full.threads.size();
  if (filter.empty()) {
    result.data = full;
    result.shown_as.resize(n);
    std::iota(result.shown_as.begin(), result.shown_as.end(), 0);
    result.original.resize(n);
    std::iota(result.original.begin(), result.original.end(), 0U);
    return result;
  }

  // Parents as indexes, and children lists (CSR) for folding.
  std::vector<std::int32_t> parent(n, kNone);
  for (std::size_t i = 0; i < n; ++i)
    if (auto p = full.threads[i].parent >= 0 ? full.thread_index(full.threads[i].parent) : std::nullopt)
      if (*p != i) parent[i] = static_cast<std::int32_t>(*p);

  const HiddenThreads h = hide_threads(full, filter, parent);
  const std::vector<Hidden>& hidden = h.hidden;
  const std::vector<std::int32_t> final_of = final_stand_ins(hidden, h.stand);
  keep_shown_threads(full, hidden, final_of, result);
  // The edges and findings on the second core, while this one lays the
  // threads out and moves their activations.
  TimelineData& moved = result.data;
  moved.edges.reserve(full.edges.size());
  moved.edge_times.reserve(full.edges.size());
  moved.anomalies.reserve(full.anomalies.size());
  moved.finding_rows.reserve(full.anomalies.size());
  auto edges = std::async(std::launch::async, [&full, &result, &moved] {
    move_edges_and_findings(full, result.shown_as, moved.edges, moved.edge_times, moved.anomalies);
  });
  relink_and_lay_out(full, parent, hidden, final_of, result);
  edges.get();
  // The findings' rows on the second core, while this one moves the
  // activations: both read the threads' new rows, and write apart (into
  // room reserved above).
  auto finding_rows = std::async(std::launch::async, [&moved] { index_finding_rows(moved); });
  move_activations(full, hidden, result);
  finding_rows.get();

  TimelineData& d = result.data;
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
  FilteredTimeline result = derive_filtered(full, filter);
  // The derivation's own arrays (per thread, per row) are gone now.
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
