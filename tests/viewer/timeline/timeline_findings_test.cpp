// timeline_findings_test.cpp — the lints' findings as the loaded timeline
// holds them (viewer/timeline/timeline_findings.hpp), on a small trace
// imported for real: thread ids become indexes (-1 for none or an unknown
// id), the record and the names carry over, the stored findings come
// first as given, and a lint run now is sorted by time with them, stably;
// the tally the status bar shows, and the severity a finding is drawn with.
#include <catch2/catch.hpp>

#include "tests/viewer/loaded_timeline.hpp"
#include "viewer/timeline/timeline_data.hpp"
#include "viewer/timeline/timeline_findings.hpp"

using namespace skein;

namespace {

const char* const kTrace = R"((skein-trace 1 (process "t"))
(spawn 1000 1 0 task)
(label 1001 1 "server")
(spawn 1100 2 1 task)
(switch 1600 1)
(resolve 1700 1 1 ok)
(switch 1900 2)
(resolve 2000 2 2 ok)
(end 3000)
)";

// The trace, imported and loaded.
struct Loaded : test::LoadedTimeline {
  Loaded() : LoadedTimeline(kTrace, "findings") {}
};

LintFinding finding(TimeNs time, ThreadId thread, std::uint32_t number) {
  LintFinding f;
  f.rule = LintRuleId::missing_notification;
  f.severity = LintSeverity::error;
  f.time = time;
  f.thread = thread;
  f.number = number;
  f.message = "m" + std::to_string(number);
  return f;
}

}  // namespace

TEST_CASE("findings: ids become the trace's indexes, unknown or none -1", "[timeline][findings]") {
  Loaded t;
  LintFinding f = finding(1700, 2, 3);
  f.from = 1;
  f.suspect = 99;  // not in the trace
  f.event = 17;
  f.group = "created by thread 0: 1 promise pending";
  const std::vector<TimelineAnomaly> out = timeline_findings(t.data, {}, {f, finding(1200, 1, 4)}, false);
  REQUIRE(out.size() == 2);
  CHECK(out[0].time == 1700);
  CHECK(out[0].thread == std::int32_t(t.index(2)));
  CHECK(out[0].from == std::int32_t(t.index(1)));
  CHECK(out[0].suspect == -1);
  CHECK(out[0].event == 17);
  CHECK(out[0].rule() == "missing-notification");
  CHECK(out[0].severity() == "error");
  CHECK(out[0].message() == "m3");
  CHECK(out[0].number == 3);
  CHECK(out[0].group() == "created by thread 0: 1 promise pending");
  CHECK(out[1].group().empty());
  CHECK(out[1].from == -1);  // none
  CHECK(out[1].event == -1);
  // Not run now: the order as given.
  CHECK(out[1].time == 1200);
}

TEST_CASE("findings: the stored ones first, a lint run now sorted by time with them", "[timeline][findings]") {
  Loaded t;
  TimelineAnomaly stored;
  stored.time = 1500;
  stored.thread = std::int32_t(t.index(1));
  stored.number = 1;
  const std::vector<TimelineAnomaly> kept = timeline_findings(t.data, {stored}, {finding(1000, 1, 2)}, false);
  REQUIRE(kept.size() == 2);
  CHECK(kept[0].number == 1);
  CHECK(kept[1].number == 2);
  // Run now: by time, equal times in the order they came.
  const std::vector<TimelineAnomaly> ran =
      timeline_findings(t.data, {stored}, {finding(1800, 2, 2), finding(1000, 1, 3), finding(1800, 1, 4)}, true);
  REQUIRE(ran.size() == 4);
  CHECK(ran[0].number == 3);
  CHECK(ran[1].number == 1);
  CHECK(ran[2].number == 2);
  CHECK(ran[3].number == 4);
}

TEST_CASE("findings: the tally counts them by severity, most severe first, nouns agreeing", "[timeline][findings]") {
  const auto of = [](std::vector<std::string> severities) {
    std::vector<TimelineAnomaly> out;
    for (std::string& s : severities) {
      TimelineAnomaly a;
      a.set_text("", s, "");
      out.push_back(std::move(a));
    }
    return out;
  };
  CHECK(finding_tally({}) == "No findings");
  CHECK(finding_tally(of({"note"})) == "1 finding: 1 note");
  CHECK(finding_tally(of(std::vector<std::string>(16, "note"))) == "16 findings: 16 notes");
  CHECK(finding_tally(of({"note", "warning", "error", "warning"})) == "4 findings: 1 error, 2 warnings, 1 note");
  // An older table's findings have no severity: counted, not named.
  CHECK(finding_tally(of({"", "error"})) == "2 findings: 1 error");
  CHECK(finding_tally(of({""})) == "1 finding");
  CHECK(finding_tally(of(std::vector<std::string>(1234, "warning"))) == "1,234 findings: 1,234 warnings");
}

TEST_CASE("findings: drawn with their own severity, else their rule's", "[timeline][findings]") {
  TimelineAnomaly a;
  a.set_text("pending-at-end", "note", "");
  CHECK(finding_severity(a) == "note");
  a.set_text("pending-at-end", "", "");
  CHECK(finding_severity(a).empty());
  a.set_text("missing-notification", "", "");
  CHECK(finding_severity(a) == "error");
  a.set_text("missing-notification", "warning", "");
  CHECK(finding_severity(a) == "warning");
}
