// thread_details_test.cpp — the "Thread details" facts on a hand-built
// trace whose every value is worked out in its comments
// (inspection_traces.hpp): parent chain,
// children, waits-on, read-by, resolved-by, notified-by, the times, the
// edges and the exact "Copy details" text. Also the summary over a
// timeline (timeline_summary.hpp): the same rows as summarize() over the
// store's threads, the members of each row, and the duration filter.
#include <catch2/catch.hpp>

#include "tests/viewer/inspection_traces.hpp"
#include "tests/viewer/timeline_from_text.hpp"
#include "viewer/timeline/thread_details.hpp"
#include "viewer/timeline/thread_search.hpp"
#include "viewer/timeline/timeline_summary.hpp"

using namespace skein;

namespace {

struct Loaded {
  test::TempDir dir;
  std::shared_ptr<const TimelineData> data;
  Loaded() {
    std::string error;
    data = test::timeline_from_text(test::kDetailsTrace, dir, &error);
    INFO(error);
    REQUIRE(data);
  }
  [[nodiscard]] std::uint32_t index(ThreadId id) const { return *data->thread_index(id); }
  [[nodiscard]] std::vector<ThreadId> ids(const std::vector<std::uint32_t>& indexes) const {
    std::vector<ThreadId> out;
    for (std::uint32_t i : indexes) out.push_back(data->threads[i].id);
    return out;
  }
  [[nodiscard]] std::string relations(const std::vector<ThreadRelation>& list) const {
    std::string out;
    for (const ThreadRelation& r : list)
      out += (r.thread < 0 ? std::string("-") : std::to_string(data->threads[static_cast<std::size_t>(r.thread)].id)) +
             "@" + std::to_string(r.first_time) + "x" + std::to_string(r.count) + " ";
    return out;
  }
};

}  // namespace

TEST_CASE("thread details: identity, site, outcome and times", "[details]") {
  Loaded l;
  REQUIRE(l.data->threads.size() == 6);
  const ThreadDetails d = thread_details(*l.data, l.index(1));
  CHECK(d.index == l.index(1));
  CHECK(d.id == 1);
  CHECK(d.label == "poll");
  CHECK(d.kind == "task");
  CHECK(d.has_site);
  CHECK(d.site_file == "src/poll.cpp");
  CHECK(d.site_line == 41);
  CHECK(d.site_function == "poll_loop");
  CHECK(d.parent == 0);
  CHECK(d.outcome == ThreadOutcome::fail);
  CHECK(d.failure == "boom");
  CHECK(d.merged_into == -1);
  // Record times, from the origin (FORMAT.md, "Times as Skein shows them"):
  // the trace's own TIMEs, not offsets from its first record at 1000.
  CHECK(d.created == 1000);
  CHECK(d.first_run == 1200);
  CHECK(d.resolved == 2000);
  CHECK(d.lifetime == 1000);
  CHECK(d.run_time == 500);

  const ThreadDetails four = thread_details(*l.data, l.index(4));
  CHECK_FALSE(four.has_site);
  CHECK(four.outcome == ThreadOutcome::pending);
  CHECK(four.merged_into == 5);
  CHECK(four.created == 2600);
  CHECK(four.first_run == 2680);
  CHECK_FALSE(four.resolved);
  CHECK(four.lifetime == 2400);  // to the trace's end, 5000
  CHECK(four.run_time == 20);
  CHECK_FALSE(thread_details(*l.data, l.index(5)).first_run);
}

TEST_CASE("thread details: parent chain root first, children by start", "[details]") {
  Loaded l;
  CHECK(l.ids(thread_details(*l.data, l.index(3)).parent_chain) == std::vector<ThreadId>{0, 1, 2});
  CHECK(l.ids(thread_details(*l.data, l.index(1)).parent_chain) == std::vector<ThreadId>{0});
  CHECK(thread_details(*l.data, l.index(0)).parent_chain.empty());
  CHECK(l.ids(thread_details(*l.data, l.index(0)).children) == std::vector<ThreadId>{1, 4, 5});
  CHECK(l.ids(thread_details(*l.data, l.index(1)).children) == std::vector<ThreadId>{2});
  CHECK(thread_details(*l.data, l.index(3)).children.empty());
}

TEST_CASE("thread details: waits on, read by, resolved by, notified by", "[details]") {
  Loaded l;
  const ThreadDetails one = thread_details(*l.data, l.index(1));
  CHECK(l.relations(one.waits_on).empty());
  CHECK(l.relations(one.read_by) == "2@2100x1 3@2200x1 ");
  CHECK(l.relations(one.resolved_by) == "1@2000x1 ");
  CHECK(l.relations(one.notified_by) == "-@1700x1 ");
  const ThreadDetails two = thread_details(*l.data, l.index(2));
  CHECK(l.relations(two.waits_on) == "1@1500x1 ");
  CHECK(two.read_by.empty());
  CHECK(two.resolved_by.empty());
  CHECK(l.relations(thread_details(*l.data, l.index(3)).resolved_by) == "3@2300x1 ");
}

TEST_CASE("thread details: its edges, in time order, seen from the thread", "[details]") {
  Loaded l;
  const ThreadDetails d = thread_details(*l.data, l.index(1));
  std::string listed;
  for (const ThreadEdgeItem& e : d.edges)
    listed += std::to_string(e.time) + " " + std::string(edge_kind_name(e.kind)) + (e.outgoing ? " out " : " in ") +
              describe_thread_edge(*l.data, e) + "\n";
  CHECK(listed ==
        "1000 spawn in created by thread 0\n"
        "1300 spawn out created thread 2 (reader)\n"
        "1500 wait in waited on by thread 2 (reader)\n"
        "1700 notify in notified by the scheduler (io)\n"
        "2000 resolve in resolved by thread 1 (poll)\n"
        "2100 read in read by thread 2 (reader)\n"
        "2200 read in read by thread 3\n");
  CHECK(d.edges[3].reason == "io");
  CHECK(d.edges[3].other == -1);
  CHECK(d.edges[1].other == static_cast<std::int32_t>(l.index(2)));
}

TEST_CASE("thread details: the copied text", "[details]") {
  Loaded l;
  CHECK(thread_details_text(*l.data, l.index(1)) ==
        "thread 1 (poll)\n"
        "  kind: task\n"
        "  site: src/poll.cpp:41 (poll_loop)\n"
        "  outcome: fail: boom\n"
        "  created: 1.00 µs\n"
        "  first run: 1.20 µs\n"
        "  resolved: 2.00 µs\n"
        "  lifetime: 1.00 µs\n"
        "  run time: 500 ns\n"
        "Parent chain: thread 0\n"
        "Children: thread 2 (reader)\n"
        "Waits on: (none)\n"
        "Read by:\n"
        "  thread 2 (reader) at 2.10 µs\n"
        "  thread 3 at 2.20 µs\n"
        "Resolved by:\n"
        "  thread 1 (poll) at 2.00 µs\n"
        "Notified by:\n"
        "  the scheduler at 1.70 µs\n"
        "Edges:\n"
        "  1.00 µs  spawn  created by thread 0\n"
        "  1.30 µs  spawn  created thread 2 (reader)\n"
        "  1.50 µs  wait  waited on by thread 2 (reader)\n"
        "  1.70 µs  notify  notified by the scheduler (io)\n"
        "  2.00 µs  resolve  resolved by thread 1 (poll)\n"
        "  2.10 µs  read  read by thread 2 (reader)\n"
        "  2.20 µs  read  read by thread 3\n");
  CHECK(thread_details_text(*l.data, l.index(4)) ==
        "thread 4\n"
        "  kind: task\n"
        "  site: -\n"
        "  outcome: pending\n"
        "  merged into: thread 5\n"
        "  created: 2.60 µs\n"
        "  first run: 2.68 µs\n"
        "  resolved: pending at the end\n"
        "  lifetime: 2.40 µs\n"
        "  run time: 20 ns\n"
        "Parent chain: thread 0\n"
        "Children: (none)\n"
        "Waits on: (none)\n"
        "Read by: (none)\n"
        "Resolved by: (none)\n"
        "Notified by: (none)\n"
        "Edges:\n"
        "  2.60 µs  spawn  created by thread 0\n");
  CHECK(thread_details_text(*l.data, l.index(3)).find("Parent chain: thread 0 > thread 1 (poll) > thread 2 (reader)\n") !=
        std::string::npos);
  // Out of range: nothing, not a crash.
  CHECK(thread_details_text(*l.data, 99).empty());
}

namespace {

bool same_stats(const DurationStats& a, const DurationStats& b) {
  return a.min == b.min && a.avg == b.avg && a.max == b.max && a.stddev == b.stddev;
}

bool same_row(const SummaryRow& a, const SummaryRow& b) {
  return a.name == b.name && a.percent_time == b.percent_time && a.run_time == b.run_time &&
         a.threads == b.threads && a.failures == b.failures && same_stats(a.lifetime, b.lifetime) &&
         same_stats(a.run, b.run);
}

// summarize_timeline() against summarize() over the store's threads: every
// field of every row equal (not close: the same additions in the same order).
void check_against_summarize(const std::string& trace) {
  test::TempDir dir;
  std::string error;
  const auto data = test::timeline_from_text(trace, dir, &error);
  INFO(error);
  REQUIRE(data);
  auto store = TraceStore::open(dir.file("t.db"));
  REQUIRE(store.ok());
  auto stored = store.value().threads();
  REQUIRE(stored.ok());
  for (SummaryGrouping by : {SummaryGrouping::label, SummaryGrouping::kind, SummaryGrouping::site}) {
    const TimelineSummary s = summarize_timeline(*data, by);
    const Summary expected = summarize(stored.value(), data->sites, data->end_time, by);
    CHECK(render_summary(s.summary, by) == render_summary(expected, by));
    REQUIRE(s.summary.rows.size() == expected.rows.size());
    for (std::size_t r = 0; r < expected.rows.size(); ++r) {
      INFO("row " << r << " " << expected.rows[r].name);
      CHECK(same_row(s.summary.rows[r], expected.rows[r]));
      CHECK(s.members[r].size() == expected.rows[r].threads);
    }
    CHECK(same_row(s.summary.total, expected.total));
  }
}

}  // namespace

TEST_CASE("timeline summary: summarize()'s rows exactly, each with its threads", "[details][summary]") {
  // Labels are one a thread in both traces, so the label grouping agrees
  // with the store's (first) labels too.
  check_against_summarize(test::kDetailsTrace);
  check_against_summarize(test::groups_trace());
  Loaded l;
  const TimelineSummary by_kind = summarize_timeline(*l.data, SummaryGrouping::kind);
  // Rows by run time: task (1: 500, 4: 20), map (3: 300), bind (2: 300, 5: 0), (no kind) (0: 280).
  std::vector<std::string> names;
  for (const SummaryRow& r : by_kind.summary.rows) names.push_back(r.name);
  CHECK(names == std::vector<std::string>{"task", "bind", "map", "(no kind)"});
  CHECK(l.ids(by_kind.members[0]) == std::vector<ThreadId>{1, 4});
  CHECK(l.ids(by_kind.members[1]) == std::vector<ThreadId>{2, 5});
  CHECK(l.ids(by_kind.members[2]) == std::vector<ThreadId>{3});
  CHECK(l.ids(by_kind.members[3]) == std::vector<ThreadId>{0});
  CHECK(by_kind.hidden == 0);
}

TEST_CASE("timeline summary: the duration filter hides threads shorter than the bound", "[details][summary]") {
  Loaded l;
  // Lifetimes: 0: 4000 (pending), 1: 1000, 2: 3700 (pending), 3: 900, 4: 2400, 5: 2350.
  const auto hidden_ids = [&](TimeNs bound) {
    std::vector<ThreadId> out;
    const std::vector<bool> hidden = threads_hidden_by_duration(*l.data, bound);
    for (std::size_t i = 0; i < hidden.size(); ++i)
      if (hidden[i]) out.push_back(l.data->threads[i].id);
    return out;
  };
  CHECK(hidden_ids(0).empty());
  CHECK(hidden_ids(900).empty());  // strictly shorter only
  CHECK(hidden_ids(901) == std::vector<ThreadId>{3});
  CHECK(hidden_ids(2400) == std::vector<ThreadId>{1, 3, 5});
  const TimelineSummary s = summarize_timeline(*l.data, SummaryGrouping::kind, 2400);
  CHECK(s.hidden == 3);
  CHECK(s.summary.total.threads == 3);
  std::vector<std::string> names;
  for (const SummaryRow& r : s.summary.rows) names.push_back(r.name);
  CHECK(names == std::vector<std::string>{"bind", "(no kind)", "task"});
  CHECK(l.ids(s.members[0]) == std::vector<ThreadId>{2});
  CHECK(l.ids(s.members[2]) == std::vector<ThreadId>{4});
}

TEST_CASE("many labels: a thread with 20,000 distinct labels gets a bounded row text, the full list in order on demand",
          "[details]") {
  // Thread 1 is labelled l0 .. l19999, each twice (the second round in the
  // same order), with a repeat of l0 between: 20,000 distinct labels.
  constexpr int kLabels = 20000;
  std::string trace = "(skein-trace 1)\n(spawn 10 1 0 task)\n";
  for (int round = 0; round < 2; ++round)
    for (int i = 0; i < kLabels; ++i) {
      trace += "(label " + std::to_string(20 + round) + " 1 \"l" + std::to_string(i) + "\")\n";
      if (i == kLabels / 2) trace += "(label 20 1 \"l0\")\n";
    }
  trace += "(spawn 30 2 0 task)\n(label 30 2 \"only\")\n(end 40)\n";
  test::TempDir dir;
  std::string error;
  const auto data = test::timeline_from_text(trace, dir, &error);
  INFO(error);
  REQUIRE(data);
  const std::uint32_t one = *data->thread_index(1);
  const std::uint32_t two = *data->thread_index(2);

  // The row shows the first kRowLabelsShown, then how many more.
  CHECK(data->text(data->threads[one].label) ==
        "l0 · l1 · l2 · +" + std::to_string(kLabels - kRowLabelsShown) + " more");
  CHECK(data->text(data->threads[two].label) == "only");

  // Every distinct label, in the order first given.
  const std::vector<std::string> labels = data->labels_of(one);
  REQUIRE(labels.size() == static_cast<std::size_t>(kLabels));
  CHECK(data->label_count(one) == labels.size());
  bool in_order = true;
  for (int i = 0; i < kLabels; ++i) in_order = in_order && labels[i] == "l" + std::to_string(i);
  CHECK(in_order);
  CHECK(data->labels_of(two).size() == 1);

  // Thread details list them all, and so does Copy details.
  const ThreadDetails d = thread_details(*data, one);
  REQUIRE(d.labels.size() == static_cast<std::size_t>(kLabels));
  CHECK(d.labels.front() == "l0");
  CHECK(d.labels.back() == "l19999");
  const std::string text = thread_details_text(*data, one);
  CHECK(text.find("  labels (20000):\n    l0\n    l1\n") != std::string::npos);
  CHECK(text.find("    l19999\n") != std::string::npos);

  // Search finds the thread by a label its row does not show.
  const ThreadSearchIndex search(*data);
  ThreadSearchQuery q;
  q.text = "l19999";
  CHECK(search.search(q).matches == std::vector<std::uint32_t>{one});
}
