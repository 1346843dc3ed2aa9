// finding_spool_test.cpp — FindingSpool: every field of a finding comes back
// as it was added, whether its segment went to the file or stayed in
// memory; a sentence is given back byte for byte (digits with leading
// zeros, '%', numbers too long for a template, control bytes); more
// distinct sentences and groups than it interns are kept whole; a spool
// with no usable temporary folder keeps everything in memory; and a walk
// can stop early. The oracle is the findings the test made.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>
#include <vector>

#include "viewer/analysis/finding_spool.hpp"

using namespace skein;
using namespace std::string_literals;

namespace {

std::vector<LintFinding> read_back(const FindingSpool& spool) {
  std::vector<LintFinding> out;
  const Status s = spool.for_each([&](LintFinding& f) {
    out.push_back(f);
    return true;
  });
  REQUIRE(s.ok());
  return out;
}

// Findings that take each field to its edges.
std::vector<LintFinding> edge_findings() {
  std::vector<LintFinding> v;
  LintFinding plain;
  plain.message = "thread 12 took control from thread 3 at its resolve of thread 12";
  v.push_back(plain);

  LintFinding full;
  full.rule = LintRuleId::pending_at_end;
  full.severity = LintSeverity::note;
  full.time = INT64_MAX;
  full.thread = INT64_MIN;
  full.from = -1;
  full.suspect = INT64_MAX;
  full.event = 0;
  full.group = "main.ml:12 (in \"loop\"): 3 promises pending since 0.000001 ms";
  full.related = {INT64_MIN, -1, 0, 7, INT64_MAX};
  full.gap = -5;
  full.message = "007 and 05 and 0 and 100% of 1234567890123456789012 then 1 2 3 4 5 6";
  v.push_back(full);

  LintFinding odd;
  odd.rule = LintRuleId::lost_records;
  odd.severity = LintSeverity::warning;
  odd.time = -3;
  odd.thread = -1;
  odd.message = "label \x1b[31mred\x1b[0m, a NUL \0 and %d %s %%"s;
  odd.group = std::string("\0", 1);
  v.push_back(odd);

  LintFinding empty_sentence;
  empty_sentence.rule = LintRuleId::self_wake;
  empty_sentence.message = "";
  v.push_back(empty_sentence);
  return v;
}

}  // namespace

TEST_CASE("finding spool: every field at its edges comes back as added, in memory and from the file") {
  const std::vector<LintFinding> added = edge_findings();
  for (const std::size_t segment : {std::size_t{1}, std::size_t{40}, kSpoolSegmentBytes}) {
    INFO("segment " << segment);
    FindingSpool spool(segment);
    for (int round = 0; round < 50; ++round)
      for (const LintFinding& f : added) spool.add(f);
    REQUIRE(spool.size() == 50 * added.size());
    if (segment == kSpoolSegmentBytes) {
      CHECK(spool.bytes_spilled() == 0);
    } else {
      CHECK(spool.bytes_spilled() > 0);
      CHECK(spool.bytes_in_memory() <= segment + 256);
    }
    const std::vector<LintFinding> back = read_back(spool);
    REQUIRE(back.size() == 50 * added.size());
    for (std::size_t i = 0; i < back.size(); ++i) REQUIRE(back[i] == added[i % added.size()]);
  }
}

TEST_CASE("finding spool: a finding takes a few bytes, its sentence's words once") {
  FindingSpool spool(SIZE_MAX);
  LintFinding f;
  f.from = 3;
  f.suspect = 4;
  for (std::int64_t i = 0; i < 10000; ++i) {
    f.time = i * 1000;
    f.thread = i;
    f.event = i * 7;
    f.message = "thread " + std::to_string(i) + " took control from thread 3 at its resolve of thread " +
                std::to_string(i) + ": it was not notified since it last ran";
    spool.add(f);
  }
  // Each at most: two bytes of rule and severity, the time (4), thread (3),
  // a flags byte, from and suspect (1 each), the event (3), the template's
  // index (1), a byte saying which numbers, and its three numbers (3, 1,
  // 3): 24 bytes, against the sentence's hundred or so.
  CHECK(spool.bytes_in_memory() <= 10000 * 24);
  const auto back = read_back(spool);
  REQUIRE(back.size() == 10000);
  CHECK(back[9999].message ==
        "thread 9999 took control from thread 3 at its resolve of thread 9999: it was not notified since it last ran");
}

TEST_CASE("finding spool: sentences and groups past what it interns are kept whole") {
  FindingSpool spool(4096);
  std::vector<LintFinding> added;
  for (std::size_t i = 0; i < kSpoolTemplates + 300; ++i) {
    LintFinding f;
    // Distinct words, not digits, so each sentence is a template of its own.
    std::string word;
    for (std::size_t k = i; k > 0 || word.empty(); k /= 26) word += static_cast<char>('a' + k % 26);
    f.message = "blocked in " + word + " for 12 ms";
    f.group = "site " + word;
    added.push_back(f);
    spool.add(f);
  }
  CHECK(spool.bytes_spilled() > 0);
  CHECK(read_back(spool) == added);
}

TEST_CASE("finding spool: with no usable temporary folder, nothing is lost") {
  const char* before = std::getenv("TMPDIR");
  const std::string saved = before != nullptr ? before : "";
  REQUIRE(setenv("TMPDIR", "/nonexistent/skein-no-such-folder", 1) == 0);
  FindingSpool spool(16);
  const std::vector<LintFinding> added = edge_findings();
  for (const LintFinding& f : added) spool.add(f);
  if (before != nullptr) setenv("TMPDIR", saved.c_str(), 1);
  else unsetenv("TMPDIR");
  CHECK(spool.bytes_spilled() == 0);
  CHECK(spool.bytes_in_memory() > 0);
  CHECK(read_back(spool) == added);
}

TEST_CASE("finding spool: a walk stops when asked, and a moved spool keeps its findings") {
  FindingSpool spool(32);
  const std::vector<LintFinding> added = edge_findings();
  for (int round = 0; round < 10; ++round)
    for (const LintFinding& f : added) spool.add(f);
  std::size_t seen = 0;
  const Status s = spool.for_each([&](LintFinding&) { return ++seen < 7; });
  CHECK(s.ok());
  CHECK(seen == 7);
  FindingSpool moved(std::move(spool));
  CHECK(moved.size() == 10 * added.size());
  const auto back = read_back(moved);
  REQUIRE(back.size() == 10 * added.size());
  CHECK(back.back() == added.back());
  FindingSpool assigned;
  assigned = std::move(moved);
  CHECK(read_back(assigned) == back);
}
