// thread_details.cpp — thread_details() makes one pass over `threads` for
// the children (then stable-sorted by start, keeping index order for ties)
// and one over `edges` for the edge list and the four relation lists;
// relate() scans its list for the other thread, so each list holds it once.
// The parent chain is walked upwards, then reversed: it stops at an unknown
// parent, at the thread itself, or at an ancestor already seen, so a
// corrupt cycle cannot loop. Times are copied as the records' own (from the
// trace's origin); lifetime is never negative.
#include "viewer/timeline/thread_details.hpp"

#include <algorithm>

#include "viewer/analysis/units.hpp"

namespace skein {
namespace {

// Adds one edge to a relation list (each other thread once, first edge first).
void relate(std::vector<ThreadRelation>& list, std::int32_t other, TimeNs time) {
  for (ThreadRelation& r : list)
    if (r.thread == other) {
      ++r.count;
      return;
    }
  list.push_back(ThreadRelation{other, time, 1});
}

std::string relation_line(const TimelineData& data, const ThreadRelation& r) {
  std::string s = thread_display_name(data, r.thread) + " at " + format_duration_ns(r.first_time);
  if (r.count > 1) s += " (" + std::to_string(r.count) + " times)";
  return s;
}

}  // namespace

std::string_view thread_outcome_name(ThreadOutcome outcome) {
  switch (outcome) {
    case ThreadOutcome::ok: return "ok";
    case ThreadOutcome::fail: return "fail";
    case ThreadOutcome::cancel: return "cancel";
    case ThreadOutcome::pending: return "pending";
  }
  return "pending";
}

std::string_view edge_kind_name(EdgeKind kind) {
  switch (kind) {
    case EdgeKind::spawn: return "spawn";
    case EdgeKind::wait: return "wait";
    case EdgeKind::read: return "read";
    case EdgeKind::notify: return "notify";
    case EdgeKind::resolve: return "resolve";
  }
  return "spawn";
}

std::string thread_display_name(const TimelineData& data, std::int32_t thread_index) {
  if (thread_index < 0 || static_cast<std::size_t>(thread_index) >= data.threads.size()) return "the scheduler";
  const TimelineThread& t = data.threads[static_cast<std::size_t>(thread_index)];
  std::string s = "thread " + std::to_string(t.id);
  if (t.label != 0) s += " (" + data.text(t.label) + ")";
  return s;
}

std::string describe_thread_edge(const TimelineData& data, const ThreadEdgeItem& e) {
  const std::string other = thread_display_name(data, e.other);
  const std::string reason = e.reason.empty() ? std::string() : " (" + e.reason + ")";
  switch (e.kind) {
    case EdgeKind::spawn: return e.outgoing ? "created " + other : "created by " + other;
    case EdgeKind::wait: return e.outgoing ? "waits on " + other : "waited on by " + other;
    case EdgeKind::read: return e.outgoing ? "read " + other : "read by " + other;
    case EdgeKind::notify: return (e.outgoing ? "notified " : "notified by ") + other + reason;
    case EdgeKind::resolve: return e.outgoing ? "resolved " + other : "resolved by " + other;
  }
  return {};
}

ThreadDetails thread_details(const TimelineData& data, std::uint32_t thread_index) {
  ThreadDetails d;
  if (thread_index >= data.threads.size()) return d;
  const TimelineThread& t = data.threads[thread_index];
  const auto me = static_cast<std::int32_t>(thread_index);
  d.index = thread_index;
  d.id = t.id;
  d.label = data.text(t.label);
  d.labels = data.labels_of(thread_index);
  d.label_count = data.label_count(thread_index);
  d.labels_pending = data.labels_pending(thread_index);
  if (d.label_count > 1 && d.labels.empty() && !d.labels_pending) d.labels_error = data.label_lists_error;
  d.kind = data.text(t.kind);
  if (const StoredSite* s = t.site >= 0 ? data.site(t.site) : nullptr) {
    d.has_site = true;
    d.site_file = s->file;
    d.site_line = s->line;
    d.site_function = s->function;
  }
  d.parent = t.parent;
  d.outcome = t.outcome;
  d.failure = data.text(t.failure);
  d.merged_into = t.merged_into;
  // Record times, from the trace's origin, as everywhere (FORMAT.md, "Times").
  d.created = t.start;
  if (t.first_run >= 0) d.first_run = t.first_run;
  if (t.outcome != ThreadOutcome::pending) d.resolved = t.end;
  d.lifetime = std::max<TimeNs>(0, t.end - t.start);
  d.run_time = t.run_time;

  // Ancestors: walk up, then reverse (root first). At most one step per
  // thread, so a corrupt cycle cannot loop.
  std::vector<bool> seen;
  for (ThreadId p = t.parent; p >= 0 && d.parent_chain.size() < data.threads.size();) {
    const auto i = data.thread_index(p);
    if (!i || *i == thread_index) break;
    if (seen.empty()) seen.assign(data.threads.size(), false);
    if (seen[*i]) break;
    seen[*i] = true;
    d.parent_chain.push_back(*i);
    p = data.threads[*i].parent;
  }
  std::reverse(d.parent_chain.begin(), d.parent_chain.end());

  for (std::size_t i = 0; i < data.threads.size(); ++i)
    if (data.threads[i].parent == t.id && i != thread_index) d.children.push_back(static_cast<std::uint32_t>(i));
  std::stable_sort(d.children.begin(), d.children.end(), [&](std::uint32_t a, std::uint32_t b) {
    return data.threads[a].start < data.threads[b].start;
  });

  for (const TimelineEdge& e : data.edges) {
    if (e.src != me && e.dst != me) continue;
    const TimeNs time = e.time;
    ThreadEdgeItem item;
    item.time = time;
    item.kind = e.kind;
    item.outgoing = e.dst != me;
    item.other = item.outgoing ? e.dst : e.src;
    if (e.kind == EdgeKind::notify) item.reason = data.text(e.text);
    d.edges.push_back(std::move(item));
    if (e.kind == EdgeKind::wait && e.src == me) relate(d.waits_on, e.dst, time);
    if (e.dst != me) continue;
    if (e.kind == EdgeKind::read) relate(d.read_by, e.src, time);
    if (e.kind == EdgeKind::resolve) relate(d.resolved_by, e.src, time);
    if (e.kind == EdgeKind::notify) relate(d.notified_by, e.src, time);
  }
  return d;
}

std::string thread_details_text(const TimelineData& data, const ThreadDetails& d) {
  std::string out = thread_display_name(data, static_cast<std::int32_t>(d.index)) + "\n";
  const auto line = [&](const std::string& field, const std::string& value) {
    out += "  " + field + ": " + value + "\n";
  };
  // Every label, one a line, when there are several (the row shows a few).
  if (d.labels_pending) {
    out += "  labels (" + std::to_string(d.label_count) + "): still being read\n";
  } else if (!d.labels_error.empty()) {
    out += "  labels (" + std::to_string(d.label_count) + "): could not be read: " + d.labels_error + "\n";
  } else if (d.labels.size() > 1) {
    out += "  labels (" + std::to_string(d.labels.size()) + "):\n";
    for (const std::string& l : d.labels) out += "    " + l + "\n";
  }
  line("kind", d.kind.empty() ? "-" : d.kind);
  line("site", d.has_site ? d.site_file + ":" + std::to_string(d.site_line) + " (" + d.site_function + ")" : "-");
  std::string outcome(thread_outcome_name(d.outcome));
  if (!d.failure.empty()) outcome += ": " + d.failure;
  line("outcome", outcome);
  if (d.merged_into >= 0) {
    const auto into = data.thread_index(d.merged_into);
    line("merged into", into ? thread_display_name(data, static_cast<std::int32_t>(*into))
                             : "thread " + std::to_string(d.merged_into));
  }
  line("created", format_duration_ns(d.created));
  line("first run", d.first_run ? format_duration_ns(*d.first_run) : "never ran");
  line("resolved", d.resolved ? format_duration_ns(*d.resolved) : "pending at the end");
  line("lifetime", format_duration_ns(d.lifetime));
  line("run time", format_duration_ns(d.run_time));
  const auto threads = [&](const char* title, const std::vector<std::uint32_t>& list, const char* separator) {
    out += std::string(title) + ":";
    if (list.empty()) out += " (none)";
    for (std::size_t k = 0; k < list.size(); ++k)
      out += (k == 0 ? " " : separator) + thread_display_name(data, static_cast<std::int32_t>(list[k]));
    out += "\n";
  };
  threads("Parent chain", d.parent_chain, " > ");
  threads("Children", d.children, ", ");
  const auto relations = [&](const char* title, const std::vector<ThreadRelation>& list) {
    out += std::string(title) + ":";
    if (list.empty()) out += " (none)";
    out += "\n";
    for (const ThreadRelation& r : list) out += "  " + relation_line(data, r) + "\n";
  };
  relations("Waits on", d.waits_on);
  relations("Read by", d.read_by);
  relations("Resolved by", d.resolved_by);
  relations("Notified by", d.notified_by);
  out += "Edges:";
  if (d.edges.empty()) out += " (none)";
  out += "\n";
  for (const ThreadEdgeItem& e : d.edges)
    out += "  " + format_duration_ns(e.time) + "  " + std::string(edge_kind_name(e.kind)) + "  " +
           describe_thread_edge(data, e) + "\n";
  return out;
}

std::string thread_details_text(const TimelineData& data, std::uint32_t thread_index) {
  if (thread_index >= data.threads.size()) return {};
  return thread_details_text(data, thread_details(data, thread_index));
}

}  // namespace skein
