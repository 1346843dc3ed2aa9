// summary.cpp — one pass over the threads adds each to its named group and
// to the running total (SummaryGroup, duration_accumulator.hpp). Groups
// live in a std::map keyed by name, so rows start in name order and the
// stable sort by a numeric column (descending) leaves ties by name; --sort
// name skips the sort. Site groups are named from an id index of the
// sites ("site N" when the id is unknown). Rendering is fixed-width
// snprintf, with every name from the trace through terminal_text().
#include "viewer/analysis/summary.hpp"

#include "viewer/analysis/duration_accumulator.hpp"
#include "recorder/export/output_escape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace skein {
namespace {

struct ColumnName {
  std::string_view name;
  SummaryColumn column;
};
constexpr ColumnName kColumns[] = {
    {"time", SummaryColumn::time},         {"seconds", SummaryColumn::time}, {"total", SummaryColumn::time},
    {"threads", SummaryColumn::threads},   {"failures", SummaryColumn::failures},
    {"life-min", SummaryColumn::life_min}, {"life-avg", SummaryColumn::life_avg},
    {"life-max", SummaryColumn::life_max}, {"life-stddev", SummaryColumn::life_stddev},
    {"run-min", SummaryColumn::run_min},   {"run-avg", SummaryColumn::run_avg},
    {"run-max", SummaryColumn::run_max},   {"run-stddev", SummaryColumn::run_stddev},
    {"name", SummaryColumn::name},
};


std::string group_name(const StoredThread& t, SummaryGrouping by,
                       const std::map<std::int64_t, const StoredSite*>& sites) {
  switch (by) {
    case SummaryGrouping::label: return t.label ? *t.label : "(no label)";
    case SummaryGrouping::kind: return t.kind ? *t.kind : "(no kind)";
    case SummaryGrouping::site: {
      if (!t.site) return "(no site)";
      const auto it = sites.find(*t.site);
      if (it == sites.end()) return "site " + std::to_string(*t.site);
      const StoredSite& s = *it->second;
      return s.function + " (" + s.file + ":" + std::to_string(s.line) + ")";
    }
  }
  return {};
}

double sort_key(const SummaryRow& r, SummaryColumn c) {
  switch (c) {
    case SummaryColumn::time: return static_cast<double>(r.run_time);
    case SummaryColumn::threads: return static_cast<double>(r.threads);
    case SummaryColumn::failures: return static_cast<double>(r.failures);
    case SummaryColumn::life_min: return r.lifetime.min;
    case SummaryColumn::life_avg: return r.lifetime.avg;
    case SummaryColumn::life_max: return r.lifetime.max;
    case SummaryColumn::life_stddev: return r.lifetime.stddev;
    case SummaryColumn::run_min: return r.run.min;
    case SummaryColumn::run_avg: return r.run.avg;
    case SummaryColumn::run_max: return r.run.max;
    case SummaryColumn::run_stddev: return r.run.stddev;
    case SummaryColumn::name: return 0;
  }
  return 0;
}

std::string ms(double ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", ns / 1e6);
  return buf;
}

std::string right(std::string s, std::size_t width) {
  if (s.size() < width) s.insert(0, width - s.size(), ' ');
  return s;
}

}  // namespace

std::optional<SummaryGrouping> summary_grouping_from_name(std::string_view name) {
  if (name == "label") return SummaryGrouping::label;
  if (name == "kind") return SummaryGrouping::kind;
  if (name == "site") return SummaryGrouping::site;
  return std::nullopt;
}

std::optional<SummaryColumn> summary_column_from_name(std::string_view name) {
  for (const auto& c : kColumns)
    if (c.name == name) return c.column;
  return std::nullopt;
}

std::string_view summary_column_names() {
  return "time, threads, failures, life-min, life-avg, life-max, life-stddev, run-min, run-avg, "
         "run-max, run-stddev, name";
}

TimeNs thread_lifetime(const StoredThread& t, TimeNs end_time) {
  const TimeNs end = t.resolved ? *t.resolved : std::max(end_time, t.created);
  return std::max<TimeNs>(0, end - t.created);
}

Summary summarize(const std::vector<StoredThread>& threads, const std::vector<StoredSite>& sites,
                  TimeNs end_time, SummaryGrouping by, SummaryColumn sort) {
  std::map<std::int64_t, const StoredSite*> site_index;
  for (const StoredSite& s : sites) site_index.emplace(s.id, &s);
  std::map<std::string, SummaryGroup> groups;
  SummaryGroup all;
  for (const StoredThread& t : threads) {
    const double lifetime = static_cast<double>(thread_lifetime(t, end_time));
    const bool failed = t.outcome && *t.outcome == "fail";
    for (SummaryGroup* g : {&groups[group_name(t, by, site_index)], &all}) g->add(lifetime, t.run_time, failed);
  }
  Summary summary;
  for (const auto& [name, g] : groups) summary.rows.push_back(g.row(name, all.run_time));
  summary.total = all.row("total", all.run_time);
  // Ties (and --sort name) by name: the map gave them in that order, and
  // the sort is stable.
  if (sort != SummaryColumn::name)
    std::stable_sort(
        summary.rows.begin(), summary.rows.end(),
        [sort](const SummaryRow& a, const SummaryRow& b) { return sort_key(a, sort) > sort_key(b, sort); });
  return summary;
}

std::vector<StoredThread> threads_longer_than(const std::vector<StoredThread>& threads, TimeNs end_time,
                                              TimeNs bound) {
  std::vector<StoredThread> out;
  for (const StoredThread& t : threads)
    if (thread_lifetime(t, end_time) > bound || t.run_time > bound) out.push_back(t);
  std::stable_sort(out.begin(), out.end(), [](const StoredThread& a, const StoredThread& b) {
    return a.created != b.created ? a.created < b.created : a.id < b.id;
  });
  return out;
}

std::string render_summary(const Summary& summary, SummaryGrouping by) {
  static constexpr const char* kGroupNames[] = {"label", "kind", "site"};
  std::string out;
  const auto line = [&](const SummaryRow& r) {
    char head[64];
    std::snprintf(head, sizeof head, "%6.2f %11.3f %8llu %8llu", r.percent_time,
                  static_cast<double>(r.run_time) / 1e6, static_cast<unsigned long long>(r.threads),
                  static_cast<unsigned long long>(r.failures));
    out += head;
    for (const DurationStats* s : {&r.lifetime, &r.run})
      for (double v : {s->min, s->avg, s->max, s->stddev}) out += " " + right(ms(v), 10);
    out += "  " + terminal_text(r.name) + "\n";
  };
  out +=
      "% time    total ms  threads failures   life min   life avg   life max life stddev   run min    run avg"
      "    run max run stddev  ";
  out += kGroupNames[static_cast<int>(by)];
  out += "\n";
  const auto dashes = [&] {
    out += "------ ----------- -------- --------";
    for (int i = 0; i < 8; ++i) out += " ----------";
    out += "  ----------------\n";
  };
  dashes();
  for (const SummaryRow& r : summary.rows) line(r);
  dashes();
  line(summary.total);
  out += "(times in ms; total: the group's run time; lifetime: created to resolved, or to the trace's end when pending)\n";
  return out;
}

std::string render_long_threads(const std::vector<StoredThread>& threads, TimeNs end_time) {
  std::string out = "    thread   created (ms)  lifetime (ms)       run (ms)  outcome  kind  label\n";
  for (const StoredThread& t : threads) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%10lld %14s %14s %14s  %-7s", static_cast<long long>(t.id),
                  ms(static_cast<double>(t.created)).c_str(),
                  ms(static_cast<double>(thread_lifetime(t, end_time))).c_str(),
                  ms(static_cast<double>(t.run_time)).c_str(),
                  t.outcome ? terminal_text(*t.outcome).c_str() : "pending");
    out += buf;
    out += "  " + (t.kind ? terminal_text(*t.kind) : std::string("-"));
    out += "  " + (t.label ? terminal_text(*t.label) : std::string("-"));
    out += "\n";
  }
  if (threads.empty()) out += "(none)\n";
  return out;
}

}  // namespace skein
