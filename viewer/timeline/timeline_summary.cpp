// timeline_summary.cpp — summarize() again over the timeline's interned
// strings, since a million StoredThreads (each carrying its strings) cost
// about a second and a quarter of a gigabyte. One pass over the threads in
// id order (summarize()'s order of floating-point additions) names each
// key once (labels and kinds through a table by string index, sites through
// a hash) and merges keys of one name; rows are sorted by name, then stably
// by run time, descending; members by (start, id). thread_details_test.cpp
// and inspection_models_test.cpp check the result against summarize().
#include "viewer/timeline/timeline_summary.hpp"

#include "viewer/analysis/duration_accumulator.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <unordered_map>

namespace skein {
namespace {

// summary.cpp's group name for the thread's label, kind or site.
std::string group_name(const TimelineData& data, const TimelineThread& t, SummaryGrouping by) {
  switch (by) {
    case SummaryGrouping::label: return t.label ? data.text(t.label) : "(no label)";
    case SummaryGrouping::kind: return t.kind ? data.text(t.kind) : "(no kind)";
    case SummaryGrouping::site: {
      if (t.site < 0) return "(no site)";
      const StoredSite* s = data.site(t.site);
      if (!s) return "site " + std::to_string(t.site);
      return s->function + " (" + s->file + ":" + std::to_string(s->line) + ")";
    }
  }
  return {};
}

std::int64_t group_key(const TimelineThread& t, SummaryGrouping by) {
  switch (by) {
    case SummaryGrouping::label: return t.label;
    case SummaryGrouping::kind: return t.kind;
    case SummaryGrouping::site: return t.site;
  }
  return 0;
}

// A summary group with the name of its label, kind or site.
struct Group : SummaryGroup {
  std::string name;
};

}  // namespace

TimeNs timeline_thread_lifetime(const TimelineData& data, const TimelineThread& t) {
  const TimeNs end = t.outcome != ThreadOutcome::pending ? t.end : std::max(data.end_time, t.start);
  return std::max<TimeNs>(0, end - t.start);
}

std::vector<bool> threads_hidden_by_duration(const TimelineData& data, TimeNs bound) {
  std::vector<bool> hidden(data.threads.size(), false);
  if (bound <= 0) return hidden;
  for (std::size_t i = 0; i < data.threads.size(); ++i)
    hidden[i] = timeline_thread_lifetime(data, data.threads[i]) < bound;
  return hidden;
}

TimelineSummary summarize_timeline(const TimelineData& data, SummaryGrouping by, TimeNs min_lifetime) {
  TimelineSummary out;
  const std::vector<bool> hidden = threads_hidden_by_duration(data, min_lifetime);

  // Groups by name (as summarize() does: two keys with one name are one
  // group), each key named once.
  std::vector<Group> groups;
  std::unordered_map<std::string, std::uint32_t> group_of_name;
  std::unordered_map<std::int64_t, std::uint32_t> group_of_key;
  std::vector<std::int64_t> group_of_string(by == SummaryGrouping::site ? 0 : data.strings.size(), -1);
  std::vector<std::uint32_t> group_of_thread(data.threads.size(), 0);
  SummaryGroup all;
  // Threads in id order, as the store lists them: the same order of
  // floating-point additions as summarize() over store.threads().
  for (std::size_t i = 0; i < data.threads.size(); ++i) {
    if (hidden[i]) {
      ++out.hidden;
      continue;
    }
    const TimelineThread& t = data.threads[i];
    const std::int64_t key = group_key(t, by);
    // Labels and kinds are string indexes: a direct table; sites a hash.
    std::int64_t* slot = by == SummaryGrouping::site ? nullptr : &group_of_string[static_cast<std::size_t>(key)];
    std::int64_t group = slot ? *slot : -1;
    if (group < 0) {
      const auto it = by == SummaryGrouping::site ? group_of_key.find(key) : group_of_key.end();
      if (it != group_of_key.end()) {
        group = it->second;
      } else {
        std::string name = group_name(data, t, by);
        auto named = group_of_name.find(name);
        if (named == group_of_name.end()) {
          named = group_of_name.emplace(name, static_cast<std::uint32_t>(groups.size())).first;
          groups.emplace_back().name = std::move(name);
        }
        group = named->second;
        if (slot) *slot = group;
        else group_of_key.emplace(key, static_cast<std::uint32_t>(group));
      }
    }
    group_of_thread[i] = static_cast<std::uint32_t>(group);
    const double lifetime = static_cast<double>(timeline_thread_lifetime(data, t));
    const bool failed = t.outcome == ThreadOutcome::fail;
    for (SummaryGroup* g : {static_cast<SummaryGroup*>(&groups[static_cast<std::size_t>(group)]), &all})
      g->add(lifetime, t.run_time, failed);
  }

  // Rows by name, then (stably) by run time, descending: summarize()'s order.
  std::vector<std::uint32_t> row_groups(groups.size());
  std::iota(row_groups.begin(), row_groups.end(), 0u);
  std::sort(row_groups.begin(), row_groups.end(),
            [&](std::uint32_t a, std::uint32_t b) { return groups[a].name < groups[b].name; });
  std::stable_sort(row_groups.begin(), row_groups.end(), [&](std::uint32_t a, std::uint32_t b) {
    return static_cast<double>(groups[a].run_time) > static_cast<double>(groups[b].run_time);
  });
  std::vector<std::uint32_t> row_of_group(groups.size(), 0);
  for (std::size_t r = 0; r < row_groups.size(); ++r) {
    const Group& g = groups[row_groups[r]];
    out.summary.rows.push_back(g.row(g.name, all.run_time));
    row_of_group[row_groups[r]] = static_cast<std::uint32_t>(r);
  }
  out.summary.total = all.row("total", all.run_time);

  // Members in (start, id) order: threads are by id, so (start, index);
  // usually already so (ids grow with time), else sorted as contiguous keys.
  out.members.resize(out.summary.rows.size());
  std::vector<std::uint32_t> order(data.threads.size());
  std::iota(order.begin(), order.end(), 0u);
  if (!std::is_sorted(data.threads.begin(), data.threads.end(),
                      [](const TimelineThread& a, const TimelineThread& b) { return a.start < b.start; })) {
    std::vector<std::pair<TimeNs, std::uint32_t>> keys(data.threads.size());
    for (std::size_t i = 0; i < keys.size(); ++i) keys[i] = {data.threads[i].start, static_cast<std::uint32_t>(i)};
    std::sort(keys.begin(), keys.end());
    for (std::size_t p = 0; p < keys.size(); ++p) order[p] = keys[p].second;
  }
  for (std::uint32_t i : order)
    if (!hidden[i]) out.members[row_of_group[group_of_thread[i]]].push_back(i);
  return out;
}

}  // namespace skein
