// trace_check_test.cpp — what `skein check` reports: counts, threads, span,
// and the warnings beyond the grammar.
#include <catch2/catch.hpp>

#include "recorder/format/trace_check.hpp"
#include "tests/support/record_text.hpp"

using namespace skein;

namespace {

TraceCheckReport check_text(const std::string& text) {
  TraceReader reader(memory_input(text, "c.sexp"), "c.sexp");
  return check_trace(reader);
}

std::vector<std::string> warning_texts(const TraceCheckReport& r) {
  std::vector<std::string> out;
  for (const auto& w : r.warnings) out.push_back(w.to_string());
  return out;
}

}  // namespace

TEST_CASE("check counts records per head, threads and the time span") {
  const auto r = check_text(std::string(test::kHeaderLine) +
                            "(site 0 \"a.cpp\" 1 \"f\")\n"
                            "(spawn 100 1 0 task 0)\n"
                            "(spawn 150 2 1 bind)\n"
                            "(wait 160 2 1)\n"
                            "(notify 200 -1 1 timer)\n"
                            "(resolve 300 1 -1 ok)\n"
                            "(read 310 2 1)\n"
                            "(end 400)\n");
  CHECK(r.valid());
  CHECK(r.records == 8);
  CHECK(r.records_per_head[static_cast<std::size_t>(RecordHead::spawn)] == 2);
  CHECK(r.records_per_head[static_cast<std::size_t>(RecordHead::site)] == 1);
  CHECK(r.records_per_head[static_cast<std::size_t>(RecordHead::end)] == 1);
  CHECK(r.threads == 3);  // 0, 1, 2; the scheduler is not a thread
  CHECK(r.first_time == 100);
  CHECK(r.last_time == 400);
  CHECK(r.ended_cleanly);
  CHECK(r.warning_count == 0);
  REQUIRE(r.header.has_value());
  CHECK(*r.header->option("process") == "t");
}

TEST_CASE("check warns about time going backwards, undeclared sites, records after end") {
  const auto r = check_text(std::string(test::kHeaderLine) +
                            "(spawn 100 1 0 task 7)\n"
                            "(idle 50)\n"
                            "(site 7 \"a.cpp\" 1 \"f\")\n"
                            "(site 7 \"a.cpp\" 1 \"f\")\n"
                            "(end 200)\n"
                            "(idle 300)\n");
  CHECK(r.valid());
  CHECK(warning_texts(r) == std::vector<std::string>{
                                "c.sexp:2: warning: spawn names site 7 before any (site 7 ...) record",
                                "c.sexp:3: warning: time goes backwards: 50 ns after 100 ns",
                                "c.sexp:5: warning: site 7 is declared twice",
                                "c.sexp:7: warning: records after (end): the first is here"});
}

TEST_CASE("check reports a trace without (end) and counts errors") {
  const auto r = check_text(std::string(test::kHeaderLine) + "(idle 1)\n(idle x)\n(wait 2)\n");
  CHECK_FALSE(r.valid());
  CHECK(r.error_count == 2);
  CHECK_FALSE(r.ended_cleanly);
  CHECK(r.records == 1);

  const auto clean = check_text(std::string(test::kHeaderLine) + "(idle 1)\n");
  CHECK(clean.valid());
  CHECK(warning_texts(clean) == std::vector<std::string>{
                                    "c.sexp: warning: no (end) record: the program stopped without closing the trace"});
}
