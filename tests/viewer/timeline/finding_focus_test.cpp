// finding_focus_test.cpp — the window, turn, edges and row names a finding
// is shown with (finding_focus.hpp), on hand-built traces whose times are
// chosen so each rule of the header gives a value worked out here.
#include <catch2/catch.hpp>

#include "tests/viewer/timeline_from_text.hpp"
#include "viewer/timeline/finding_focus.hpp"

using namespace skein;

namespace {

// The backend (1) runs 100–105 µs (or 60–65 µs), the poll thread (2) runs
// 110–112 µs, resolves B.read (3) at 111 µs and notifies the backend at
// 111.5 µs; at 150 µs a timer notifies the poll thread, after the turn.
std::string trace(TimeNs backend_from, TimeNs backend_to) {
  return R"((skein-trace 1 (process "focus"))
(spawn 1000 1 0 fiber)
(label 1000 1 "backend")
(spawn 1000 2 0 task)
(label 1000 2 "poll")
(spawn 1000 3 0 task)
(label 1000 3 "B.read")
(switch )" + std::to_string(backend_from) + R"( 1)
(switch )" + std::to_string(backend_to) + R"( -1)
(switch 110000 2)
(resolve 111000 3 2 ok)
(notify 111500 2 1 external)
(switch 112000 -1)
(notify 150000 -1 2 timer)
(end 200000)
)";
}

struct Loaded {
  test::TempDir dir;
  std::shared_ptr<const TimelineData> data;
  explicit Loaded(const std::string& text) {
    std::string error;
    data = test::timeline_from_text(text, dir, &error);
    INFO(error);
    REQUIRE(data);
  }
  [[nodiscard]] std::int32_t index(ThreadId id) const { return static_cast<std::int32_t>(*data->thread_index(id)); }
  [[nodiscard]] TimelineAnomaly finding(TimeNs time, ThreadId thread, std::optional<ThreadId> suspect) const {
    TimelineAnomaly a;
    a.time = time;
    a.thread = index(thread);
    a.suspect = suspect ? index(*suspect) : -1;
    a.set_text("missing-notification", "", "");
    a.number = 1;
    return a;
  }
};

}  // namespace

TEST_CASE("finding focus: a short turn is centred in a 40 µs window, with only its own edges", "[focus]") {
  Loaded l(trace(100000, 105000));
  const auto f = focus_on_finding(*l.data, l.finding(111000, 2, 1));
  REQUIRE(f);
  CHECK(f->thread == static_cast<std::uint32_t>(l.index(2)));
  REQUIRE(f->activation);
  CHECK(f->activation->start == 110000);
  CHECK(f->activation->end == 112000);
  // Centre 111 µs, ± 20 µs; the backend's turn (100–105 µs) is inside.
  CHECK(f->window.from == Approx(91000));
  CHECK(f->window.to == Approx(131000));
  // The resolve at 111 µs and the notify at 111.5 µs, both inside the
  // turn; not the spawns at 1 µs, nor the poll's timer at 150 µs.
  REQUIRE(f->edges.size() == 2);
  const TimelineEdge& e = l.data->edges[f->edges[0]];
  CHECK(e.kind == EdgeKind::resolve);
  CHECK(e.time == 111000);
  CHECK(e.src == l.index(2));
  CHECK(e.dst == l.index(3));
  const TimelineEdge& r = l.data->edges[f->edges[1]];
  CHECK(r.kind == EdgeKind::notify);
  CHECK(r.time == 111500);
  CHECK(r.dst == l.index(1));
  REQUIRE(f->labels.size() == 2);
  // A table with no severity: a missing notification is its rule's, an error.
  CHECK(f->labels[0].text == "error #1: poll #2");
  CHECK(f->labels[0].severity == "error");
  CHECK(f->labels[0].thread == static_cast<std::uint32_t>(l.index(2)));
  CHECK(f->labels[1].text == "suspect: backend #1");
  CHECK(f->labels[1].severity == "error");
  CHECK(f->labels[1].thread == static_cast<std::uint32_t>(l.index(1)));
}

TEST_CASE("finding focus: the suspect's last turn, when near, widens the window to the left", "[focus]") {
  Loaded l(trace(60000, 65000));
  const auto f = focus_on_finding(*l.data, l.finding(111000, 2, 1));
  REQUIRE(f);
  // The turn's window starts at 91 µs; the backend ended 26 µs before
  // that (within 60 µs): from its start, 60 µs, less a tenth of the
  // widened window (131 - 60 = 71 µs): 52.9 µs.
  CHECK(f->window.from == Approx(52900));
  CHECK(f->window.to == Approx(131000));
}

TEST_CASE("finding focus: a suspect far back leaves the window as it is", "[focus]") {
  // The backend ran 5–10 µs: it ended 81 µs before the window's start.
  Loaded l(trace(5000, 10000));
  const auto f = focus_on_finding(*l.data, l.finding(111000, 2, 1));
  REQUIRE(f);
  CHECK(f->window.from == Approx(91000));
  CHECK(f->window.to == Approx(131000));
}

TEST_CASE("finding focus: a finding outside any turn is centred on its time, with no edges", "[focus]") {
  Loaded l(trace(100000, 105000));
  const auto f = focus_on_finding(*l.data, l.finding(150000, 2, std::nullopt));
  REQUIRE(f);
  CHECK_FALSE(f->activation);
  CHECK(f->edges.empty());
  CHECK(f->window.from == Approx(130000));
  CHECK(f->window.to == Approx(170000));
  REQUIRE(f->labels.size() == 1);
  CHECK(f->labels[0].text == "error #1: poll #2");
}

TEST_CASE("finding focus: the tags say what the finding is, by its severity", "[focus]") {
  Loaded l(trace(100000, 105000));
  for (const std::string severity : {"error", "warning", "note"}) {
    TimelineAnomaly a = l.finding(111000, 2, 1);
    a.set_text("pending-at-end", severity, "");
    a.number = 7;
    const auto f = focus_on_finding(*l.data, a);
    REQUIRE(f);
    REQUIRE(f->labels.size() == 2);
    CHECK(f->labels[0].text == severity + " #7: poll #2");
    CHECK(f->labels[0].severity == severity);
    CHECK(f->labels[1].text == "suspect: backend #1");
    CHECK(f->labels[1].severity == severity);
  }
  // No severity recorded, nor a rule that has one: a finding, unnumbered.
  TimelineAnomaly old = l.finding(111000, 2, std::nullopt);
  old.set_text("self-wake", "", "");
  old.number = 0;
  const auto f = focus_on_finding(*l.data, old);
  REQUIRE(f);
  CHECK(f->labels[0].text == "finding: poll #2");
  CHECK(f->labels[0].severity.empty());
}

TEST_CASE("finding focus: the window stays within the fitted trace", "[focus]") {
  Loaded l(trace(100000, 105000));
  // At 199 µs: ± 20 µs would reach 219 µs; the fitted window ends at the
  // trace's end plus 1% of its length (200 + 1.99 = 201.99 µs).
  const auto f = focus_on_finding(*l.data, l.finding(199000, 2, std::nullopt));
  REQUIRE(f);
  CHECK(f->window.from == Approx(179000));
  CHECK(f->window.to == Approx(201990));
}

TEST_CASE("finding focus: names, and a finding with no thread", "[focus]") {
  Loaded l(trace(100000, 105000));
  CHECK(focus_thread_name(*l.data, l.index(1)) == "backend #1");
  CHECK(focus_thread_name(*l.data, -1) == "the scheduler");
  TimelineAnomaly none;
  none.thread = -1;
  CHECK_FALSE(focus_on_finding(*l.data, none));
}
