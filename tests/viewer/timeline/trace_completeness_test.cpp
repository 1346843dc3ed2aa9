// trace_completeness_test.cpp — what skein-view's notice bar says about a
// trace (viewer/timeline/trace_completeness.hpp), from traces imported for
// real: a clean one says nothing; one with no (end), a (snapshot), a file
// cut mid-line, (lost COUNT) records and a ring-mode header each get their
// exact sentence.
#include <catch2/catch.hpp>

#include "tests/support/store_query.hpp"
#include "viewer/timeline/trace_completeness.hpp"

using namespace skein;
using namespace skein::test;

namespace {

TraceCompleteness completeness_of(const std::string& trace, bool complete_lines = true) {
  TempDir dir;
  const std::string db = dir.file("t.db");
  const ImportResult imported = import_text(complete_lines ? trace : trace.substr(0, trace.size() - 1), db);
  REQUIRE(imported.ok());
  auto opened = TraceStore::open(db);
  REQUIRE(opened.ok());
  auto read = read_trace_completeness(*opened.value().owner());
  REQUIRE(read.ok());
  return read.value();
}

const std::string kBody = "(spawn 0 1 0 task)\n(switch 10 1)\n(switch 20 -1)\n";

}  // namespace

TEST_CASE("trace completeness: a clean trace has no notice", "[notice]") {
  const TraceCompleteness c = completeness_of("(skein-trace 1)\n" + kBody + "(end 30)\n");
  CHECK(c.ended);
  CHECK(c.complete());
  CHECK(trace_completeness_notice(c).empty());
}

TEST_CASE("trace completeness: no (end) record, and a snapshot", "[notice]") {
  const TraceCompleteness cut = completeness_of("(skein-trace 1)\n" + kBody);
  CHECK_FALSE(cut.ended);
  CHECK_FALSE(cut.snapshot);
  CHECK(trace_completeness_notice(cut) ==
        "This trace has no end record: it was cut short (the program was stopped, crashed or is still running), "
        "so threads pending at its end may still have been waiting.");
  const TraceCompleteness snapshot = completeness_of("(skein-trace 1)\n" + kBody + "(snapshot 30)\n");
  CHECK_FALSE(snapshot.ended);
  CHECK(snapshot.snapshot);
  CHECK(trace_completeness_notice(snapshot) ==
        "This trace has no end record: it is a snapshot of a running program, so threads pending at its end may "
        "still have been waiting, and may have settled later.");
}

TEST_CASE("trace completeness: a file cut inside its last record", "[notice]") {
  const TraceCompleteness c = completeness_of("(skein-trace 1)\n" + kBody + "(spawn 25 2 0 ta", false);
  CHECK(c.truncated);
  CHECK(trace_completeness_notice(c).find("The trace file stops inside a record") != std::string::npos);
}

TEST_CASE("trace completeness: records the recorder dropped, in a ring-mode trace", "[notice]") {
  const TraceCompleteness c =
      completeness_of("(skein-trace 1 (mode ring))\n" + kBody + "(lost 22 1000)\n(lost 24 234)\n(end 30)\n");
  CHECK(c.ended);
  CHECK(c.ring);
  CHECK(c.lost_records == 1234);
  CHECK(trace_completeness_notice(c) ==
        "It was recorded in ring mode: only the newest records were kept, so the start of the run is missing.  "
        "The recorder dropped 1,234 records: causes and effects around the gaps may be missing.");
  TraceCompleteness one;
  one.lost_records = 1;
  CHECK(trace_completeness_notice(one) ==
        "The recorder dropped 1 record: causes and effects around the gaps may be missing.");
}

TEST_CASE("trace completeness: lost records whose sum saturates are dropped at least so many", "[notice]") {
  const TraceCompleteness c = completeness_of(
      "(skein-trace 1)\n" + kBody +
      "(lost 22 9223372036854775807)\n(lost 23 9223372036854775807)\n(lost 24 9223372036854775807)\n(end 30)\n");
  CHECK(c.lost_records == INT64_MAX);
  CHECK(c.lost_records_saturated);
  CHECK(trace_completeness_notice(c) ==
        "The recorder dropped at least 9,223,372,036,854,775,807 records: causes and effects around the gaps may be "
        "missing.");
  const TraceCompleteness exact =
      completeness_of("(skein-trace 1)\n" + kBody + "(lost 22 9223372036854775807)\n(end 30)\n");
  CHECK_FALSE(exact.lost_records_saturated);
  CHECK(trace_completeness_notice(exact) ==
        "The recorder dropped 9,223,372,036,854,775,807 records: causes and effects around the gaps may be missing.");
}
