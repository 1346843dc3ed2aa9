// model_derivation_test.cpp — the derived model (model_derivation.hpp's
// rules 1 to 6) on small traces, against expectations computed by hand:
// merge chains and groups, failures, threads pending at the end, implicit
// threads, time going backwards, cycles of merges, activations with and
// without switches, the event block index, threads' labels.
#include <catch2/catch.hpp>

#include "recorder/format/byte_source.hpp"
#include "recorder/store/model_derivation.hpp"
#include "recorder/store/store_schema.hpp"
#include "recorder/format/trace_reader.hpp"

using namespace skein;

namespace {

struct Derived {
  DerivedModel model;
  std::vector<std::string> warnings;  // Diagnostic::to_string()
  std::uint64_t warning_count = 0;
};

// Derives the model of the records in `lines` (Skein format, no header).
Derived derive(const std::string& lines) {
  const std::string text = "(skein-trace 1)\n" + lines;
  TraceReader reader(memory_input(text, "d.sexp"), "d.sexp");
  ModelDerivation derivation([&reader] {
    return Diagnostic{Severity::warning, "d.sexp", reader.line(), 0, {}};
  });
  for (;;) {
    const auto step = reader.next();
    if (step == TraceReader::Step::end) break;
    REQUIRE(step == TraceReader::Step::record);
    derivation.add(reader.record());
  }
  Derived d;
  d.warning_count = derivation.warning_count();
  for (const auto& w : derivation.warnings()) d.warnings.push_back(w.diagnostic.to_string());
  d.model = derivation.finish();
  return d;
}

const ThreadRow& thread(const DerivedModel& m, ThreadId id) {
  for (const ThreadRow& t : m.threads)
    if (t.id == id) return t;
  FAIL("no thread " << id);
  static ThreadRow none;
  return none;
}

// "thread:start-end@event" per activation, in order.
std::string activations(const DerivedModel& m) {
  std::string out;
  for (const ActivationRow& a : m.activations)
    out += std::to_string(a.thread) + ":" + std::to_string(a.start) + "-" + std::to_string(a.end) + "@" +
           std::to_string(a.event) + " ";
  return out;
}

}  // namespace

TEST_CASE("derivation: a merge chain (Skein's runtime: A->B->C) settles with its last thread") {
  const Derived d = derive(
      "(spawn 10 1 0 bind)\n"       // 1
      "(spawn 20 2 1 task)\n"       // 2
      "(merge 30 1 2)\n"            // 3: 1 behaves as 2
      "(spawn 40 3 2 task)\n"       // 4
      "(merge 50 2 3)\n"            // 5: 2 behaves as 3
      "(resolve 60 3 3 fail \"E\")\n"  // 6
      "(end 70)\n");                // 7
  CHECK(d.warnings.empty());
  const DerivedModel& m = d.model;
  REQUIRE(m.threads.size() == 4);  // 0, 1, 2, 3
  for (ThreadId id : {1, 2, 3}) {
    INFO("thread " << id);
    CHECK(thread(m, id).resolved == 60);
    CHECK(thread(m, id).outcome == Outcome::fail);
    CHECK(m.text(thread(m, id).failure) == "E");
    CHECK(thread(m, id).resolve_event == 6);
  }
  CHECK(thread(m, 1).merged);
  CHECK(thread(m, 1).merged_into == 2);
  CHECK(thread(m, 2).merged_into == 3);
  CHECK_FALSE(thread(m, 3).merged);
  CHECK(thread(m, 1).resolved_by_group);
  CHECK_FALSE(thread(m, 3).resolved_by_group);
  CHECK(thread(m, 0).resolved == kNoTime);  // pending at the end
}

TEST_CASE("derivation: a loop absorbing its iterations (MirageOS: A->B1, A->B2) settles them with A") {
  const Derived d = derive(
      "(spawn 10 1 0 bind)\n"   // 1
      "(spawn 20 2 1 bind)\n"   // 2
      "(merge 21 1 2)\n"        // 3
      "(spawn 30 3 1 bind)\n"   // 4
      "(merge 31 1 3)\n"        // 5: merged again: legitimate, no warning
      "(resolve 40 1 1 ok)\n"   // 6
      "(spawn 50 4 0 task)\n"   // 7: not merged: stays pending
      );
  CHECK(d.warnings.empty());
  const DerivedModel& m = d.model;
  CHECK(thread(m, 1).merged_into == 3);  // the latest merge
  for (ThreadId id : {1, 2, 3}) {
    INFO("thread " << id);
    CHECK(thread(m, id).resolved == 40);
    CHECK(thread(m, id).outcome == Outcome::ok);
  }
  CHECK(thread(m, 4).resolved == kNoTime);
  CHECK(m.end_time == 50);
  CHECK_FALSE(m.ended);
}

TEST_CASE("derivation: a cycle of merges is broken with a warning") {
  const Derived d = derive(
      "(spawn 10 1 0 task)\n"  // 1
      "(spawn 11 2 0 task)\n"  // 2
      "(spawn 12 3 0 task)\n"  // 3
      "(merge 20 1 2)\n"       // 4
      "(merge 21 2 3)\n"       // 5
      "(merge 22 3 1)\n"       // 6: 3 -> 1 closes 1 -> 2 -> 3 -> 1
      "(merge 23 1 1)\n"       // 7: into itself
      "(merge 24 1 2)\n"       // 8: the same merge again
      "(resolve 30 3 0 cancel)\n");
  REQUIRE(d.warning_count == 3);
  CHECK(d.warnings[0] ==
        "d.sexp:7: warning: event 6: merging thread 3 into 1 would close a cycle of merges (they are merged "
        "already): ignored");
  CHECK_THAT(d.warnings[1], Catch::StartsWith("d.sexp:8: warning: event 7: merging thread 1 into 1"));
  CHECK_THAT(d.warnings[2], Catch::StartsWith("d.sexp:9: warning: event 8: merging thread 1 into 2"));
  CHECK(d.model.warning_counts[static_cast<std::size_t>(DerivationWarning::merge_cycle)] == 3);
  CHECK_FALSE(thread(d.model, 3).merged);
  CHECK(thread(d.model, 1).merged_into == 2);
  for (ThreadId id : {1, 2, 3}) CHECK(thread(d.model, id).outcome == Outcome::cancel);
}

TEST_CASE("derivation: failures, cancels and threads pending at the end") {
  const Derived d = derive(
      "(spawn 10 1 0 task)\n"
      "(spawn 11 2 0 task)\n"
      "(spawn 12 3 0 task)\n"
      "(resolve 20 1 -1 fail \"Not_found\")\n"
      "(resolve 21 2 -1 cancel)\n"
      "(counter 25 \"queue\" 3)\n");
  const DerivedModel& m = d.model;
  CHECK(thread(m, 1).outcome == Outcome::fail);
  CHECK(m.text(thread(m, 1).failure) == "Not_found");
  CHECK(thread(m, 2).outcome == Outcome::cancel);
  CHECK(thread(m, 2).failure == kNoText);
  CHECK(thread(m, 3).resolved == kNoTime);
  CHECK(m.end_time == 25);
  // 0 ran from 10 until the scheduler resolved 1 at 20; nobody ran after.
  CHECK(activations(m) == "0:10-20@1 ");
  CHECK(thread(m, 0).run_time == 10);
}

TEST_CASE("derivation: threads named before any spawn are created implicitly") {
  const Derived d = derive(
      "(wait 10 5 6)\n"         // 1: 5 and 6 implicit
      "(label 12 0 \"main\")\n" // 2: 0, the main thread: implicit, no warning
      "(spawn 20 6 5 bind 3)\n" // 3: 6's spawn comes late: fills it in
      "(spawn 30 6 0 map)\n");  // 4: a second spawn: ignored
  REQUIRE(d.warning_count == 3);
  CHECK(d.warnings[0] ==
        "d.sexp:2: warning: event 1: thread 5 is named before any spawn created it: created implicitly");
  CHECK(d.warnings[1] ==
        "d.sexp:2: warning: event 1: thread 6 is named before any spawn created it: created implicitly");
  CHECK(d.warnings[2] ==
        "d.sexp:5: warning: event 4: thread 6 spawned again: the first spawn is kept");
  const DerivedModel& m = d.model;
  CHECK(thread(m, 0).implicit);
  CHECK(m.text(thread(m, 0).label) == "main");
  CHECK(thread(m, 0).created == 12);
  CHECK(thread(m, 5).implicit);
  CHECK_FALSE(thread(m, 5).has_parent);
  CHECK(thread(m, 6).implicit);
  CHECK(thread(m, 6).created == 10);
  CHECK(thread(m, 6).parent == 5);
  CHECK(m.text(thread(m, 6).kind) == "bind");
  CHECK(thread(m, 6).site == 3);
  CHECK(thread(m, 6).first_event == 1);
  CHECK(thread(m, 6).last_event == 4);
}

TEST_CASE("derivation: time going backwards is kept, warned about, and never makes a negative activation") {
  const Derived d = derive(
      "(switch 100 1)\n"  // 1: 1 implicit
      "(read 90 2 1)\n"   // 2: backwards; 2 implicit
      "(switch 95 1)\n"); // 3
  REQUIRE(d.warning_count == 3);
  CHECK(d.warnings[1] == "d.sexp:3: warning: event 2: time goes backwards: 90 ns after 100 ns");
  // 1 ran from 100 until 2's read at 90: an empty activation, not -10.
  CHECK(activations(d.model) == "1:100-100@1 2:90-95@2 1:95-100@3 ");
  CHECK(thread(d.model, 1).run_time == 5);
  CHECK(d.model.first_time == 100);
  CHECK(d.model.end_time == 100);
}

TEST_CASE("derivation: activations follow switches, and the actors between them") {
  SECTION("switches; -1, idle and end mean nobody runs") {
    const Derived d = derive(
        "(switch 10 1)\n"       // 1
        "(switch 20 -1)\n"      // 2
        "(switch 30 2)\n"       // 3
        "(idle 40)\n"           // 4
        "(switch 50 2)\n"       // 5
        "(label 55 1 \"x\")\n"  // 6: labelling 1 does not run it
        "(counter 57 \"c\" 1)\n"// 7: no actor: no change
        "(end 60)\n");          // 8
    CHECK(activations(d.model) == "1:10-20@1 2:30-40@3 2:50-60@5 ");
    CHECK(thread(d.model, 2).run_time == 20);
    CHECK(thread(d.model, 2).first_run == 30);
    CHECK(thread(d.model, 1).first_run == 10);
  }
  SECTION("no switches: callbacks run inside resolvers, named as actors (the MirageOS traces)") {
    const Derived d = derive(
        "(spawn 10 1 0 bind)\n"   // 1: 0 runs
        "(spawn 11 2 0 bind)\n"   // 2
        "(resolve 20 1 1 ok)\n"   // 3: 1 runs
        "(read 25 2 1)\n"         // 4: 2 runs
        "(resolve 26 2 2 ok)\n"   // 5
        "(notify 30 -1 0)\n");    // 6: the scheduler: nobody
    CHECK(activations(d.model) == "0:10-20@1 1:20-25@3 2:25-30@4 ");
    CHECK(thread(d.model, 1).first_run == 20);
  }
  SECTION("a thread still running at the end runs until the trace's latest time") {
    const Derived d = derive("(switch 10 3)\n(gc 30 5)\n");
    CHECK(activations(d.model) == "3:10-30@1 ");
  }
}

TEST_CASE("derivation: the event block index spans kEventBlockSize events") {
  std::string lines = "(site 1 \"f.cpp\" 3 \"f\")\n";  // no time
  for (int i = 2; i <= 2500; ++i) lines += "(gc " + std::to_string(10 * i) + " 1)\n";
  lines += "(gc 5 1)\n";  // 2501: backwards, in the third block
  const Derived d = derive(lines);
  REQUIRE(d.model.blocks.size() == 3);
  const auto& b = d.model.blocks;
  CHECK(b[0].id == 1);
  CHECK(b[0].first_event == 1);
  CHECK(b[0].last_event == kEventBlockSize);
  CHECK(b[0].start == 20);
  CHECK(b[0].end == 10 * kEventBlockSize);
  CHECK(b[1].first_event == kEventBlockSize + 1);
  CHECK(b[1].last_event == 2 * kEventBlockSize);
  CHECK(b[1].start == 10 * (kEventBlockSize + 1));
  CHECK(b[2].first_event == 2 * kEventBlockSize + 1);
  CHECK(b[2].last_event == 2501);
  CHECK(b[2].start == 5);
  CHECK(b[2].end == 25000);
  REQUIRE(d.model.sites.size() == 1);
  CHECK(d.model.text(d.model.sites[0].file) == "f.cpp");
}

TEST_CASE("derivation: a site declared again with other contents keeps the first") {
  const Derived d = derive(
      "(site 1 \"a.cpp\" 3 \"f\")\n"
      "(site 1 \"a.cpp\" 3 \"f\")\n"    // the same: fine
      "(site 1 \"b.cpp\" 4 \"g\")\n");  // other contents
  REQUIRE(d.warning_count == 1);
  CHECK(d.warnings[0] ==
        "d.sexp:4: warning: event 3: site 1 declared again with other contents: the first is kept");
  CHECK(d.model.text(d.model.sites[0].file) == "a.cpp");
}

// "thread:position:label" per thread_labels row, in order.
std::string thread_labels(const DerivedModel& m) {
  std::string out;
  for (const ThreadLabelRow& r : m.thread_labels)
    out += std::to_string(r.thread) + ":" + std::to_string(r.position) + ":" + std::string(m.text(r.label)) + " ";
  return out;
}

TEST_CASE("derivation: a thread's distinct labels, in the order first given, for threads with two or more") {
  SECTION("one label, however often given: no row, the label is the thread's") {
    const Derived d = derive("(spawn 1 1 0 t)\n(label 2 1 \"a\")\n(label 3 1 \"a\")\n(label 4 1 \"a\")\n(end 5)\n");
    CHECK(d.model.thread_labels.empty());
    CHECK(d.model.text(thread(d.model, 1).label) == "a");
  }
  SECTION("two distinct: both, first first; a label given again keeps its first place") {
    const Derived d = derive(
        "(spawn 1 1 0 t)\n(label 2 1 \"a\")\n(label 3 1 \"b\")\n(label 4 1 \"a\")\n(label 5 1 \"c\")\n"
        "(label 6 1 \"b\")\n(end 7)\n");
    CHECK(thread_labels(d.model) == "1:0:a 1:1:b 1:2:c ");
    CHECK(d.model.text(thread(d.model, 1).label) == "a");
  }
  SECTION("texts compared exactly: the empty label is one, case matters") {
    const Derived d =
        derive("(spawn 1 1 0 t)\n(label 2 1 \"\")\n(label 3 1 \"a\")\n(label 4 1 \"A\")\n(label 5 1 \"\")\n(end 6)\n");
    CHECK(thread_labels(d.model) == "1:0: 1:1:a 1:2:A ");
  }
  SECTION("threads interleaved, listed by id whatever the order they were labelled in") {
    const Derived d = derive(
        "(spawn 1 9 0 t)\n(spawn 2 3 0 t)\n(label 3 9 \"x\")\n(label 4 3 \"p\")\n(label 5 9 \"y\")\n"
        "(label 6 3 \"x\")\n(label 7 9 \"x\")\n(label 8 -1 \"nobody\")\n(end 9)\n");
    // The same text on two threads is a label of each; the scheduler is
    // no thread (rule 1).
    CHECK(thread_labels(d.model) == "3:0:p 3:1:x 9:0:x 9:1:y ");
  }
}

TEST_CASE("bounded memory: the derivation keeps nothing per record: redeclared sites and counters add no text") {
  std::string lines = "(site 1 \"a.cpp\" 3 \"f\")\n";
  for (int i = 0; i < 200; ++i) {
    const std::string n = std::to_string(i);
    lines += "(site 1 \"other" + n + ".cpp\" 4 \"g" + n + "\")\n";  // declared again: warned, not kept
    lines += "(counter " + n + " \"c" + n + "\" " + n + ")\n";       // a counter of its own name
  }
  const Derived d = derive(lines);
  CHECK(d.warning_count == 200);
  // "a.cpp" and "f": the first declaration's texts, and nothing else.
  CHECK(d.model.texts.size() == 2);
  CHECK(d.model.records_per_head[static_cast<std::size_t>(RecordHead::counter)] == 200);
}

TEST_CASE("bounded memory: take_blocks hands over each event block as it completes") {
  ModelDerivation derivation;
  std::vector<EventBlockRow> taken;
  for (int i = 1; i <= 3 * kEventBlockSize + 5; ++i) {
    derivation.add(Record{GcRecord{10 * i, 1}});
    if (i % 1000 == 0) derivation.take_blocks(taken);
  }
  derivation.take_blocks(taken);
  // Three complete blocks taken; the fourth, still open, comes with finish().
  REQUIRE(taken.size() == 3);
  for (std::size_t k = 0; k < taken.size(); ++k) {
    CHECK(taken[k].id == static_cast<std::int64_t>(k + 1));
    CHECK(taken[k].first_event == static_cast<EventId>(k * kEventBlockSize + 1));
    CHECK(taken[k].last_event == static_cast<EventId>((k + 1) * kEventBlockSize));
  }
  const DerivedModel m = derivation.finish();
  REQUIRE(m.blocks.size() == 1);
  CHECK(m.blocks[0].id == 4);
  CHECK(m.blocks[0].last_event == 3 * kEventBlockSize + 5);
}

TEST_CASE("derivation: the scheduler is never a thread, and counts add up") {
  const Derived d = derive(
      "(notify 1 -1 -1)\n"
      "(resolve 2 -1 -1 ok)\n"
      "(merge 3 -1 -1)\n"
      "(lost 4 7)\n"
      "(lost 5 3)\n");
  CHECK(d.model.threads.empty());
  CHECK(d.warnings.empty());
  CHECK(d.model.records == 5);
  CHECK(d.model.records_per_head[static_cast<std::size_t>(RecordHead::lost)] == 2);
  CHECK(d.model.lost_records == 10);
}

// The sum of (lost COUNT) records is held at INT64_MAX, the largest a meta
// value holds, and marked as saturated once the true sum passes it; a sum
// that lands on INT64_MAX exactly is not.
TEST_CASE("derivation: lost counts that sum past INT64_MAX are held there and marked saturated") {
  const Derived exact = derive("(lost 1 9223372036854775806)\n(lost 2 1)\n");
  CHECK(exact.model.lost_records == 9223372036854775807ull);
  CHECK_FALSE(exact.model.lost_records_saturated);
  const Derived past = derive(
      "(lost 1 9223372036854775807)\n(lost 2 9223372036854775807)\n(lost 3 9223372036854775807)\n(lost 4 0)\n");
  CHECK(past.model.lost_records == 9223372036854775807ull);
  CHECK(past.model.lost_records_saturated);
  CHECK(past.model.records_per_head[static_cast<std::size_t>(RecordHead::lost)] == 4);
  const Derived small = derive("(lost 1 7)\n(lost 2 3)\n");
  CHECK_FALSE(small.model.lost_records_saturated);
}

TEST_CASE("derivation: only the first warnings are kept, all are counted") {
  std::string lines;
  for (int i = 1; i <= 150; ++i) lines += "(switch " + std::to_string(i) + " " + std::to_string(i) + ")\n";
  const Derived d = derive(lines);
  CHECK(d.warning_count == 150);
  CHECK(d.warnings.size() == ModelDerivation::kMaxKeptWarnings);
}

TEST_CASE("derivation: thread ids of any size: negative, sparse, or first seen beyond the dense range") {
  std::string lines =
      "(spawn 1 20000 0 task)\n"           // far beyond the thread count: hashed
      "(spawn 2 -7 0 task)\n"              // negative: hashed
      "(spawn 3 1099511627776 0 task)\n";  // 2^40
  // Dense ids: 30,000 threads grow the vector over 20000's slot.
  for (int i = 1; i <= 30000; ++i)
    if (i != 20000) lines += "(spawn " + std::to_string(10 + i) + " " + std::to_string(i) + " 0 task)\n";
  lines += "(resolve 90001 20000 20000 ok)\n(resolve 90002 -7 -7 ok)\n(resolve 90003 1099511627776 0 ok)\n";
  const Derived d = derive(lines);
  CHECK(d.warnings.empty());  // each was found again, not created twice
  CHECK(thread(d.model, 20000).resolved == 90001);
  CHECK(thread(d.model, -7).resolved == 90002);
  CHECK(thread(d.model, 1099511627776).resolved == 90003);
  CHECK(thread(d.model, 2999).created == 3009);
  CHECK(d.model.threads.front().id == -7);  // sorted by id
}

TEST_CASE("derivation: the threads are final before they are placed, and placing them changes nothing else") {
  const std::string text =
      "(skein-trace 1)\n(spawn 1 1 0 task)\n(switch 2 1)\n(spawn 3 2 1 bind)\n(merge 4 1 2)\n"
      "(resolve 5 2 2 ok)\n(spawn 6 3 0 task)\n(label 7 3 \"worker\")\n(end 9)\n";
  TraceReader reader(memory_input(text, "d.sexp"), "d.sexp");
  ModelDerivation derivation;
  while (reader.next() == TraceReader::Step::record) derivation.add(reader.record());
  DerivedModel m = derivation.finish_threads();
  REQUIRE(m.threads.size() == 4);  // 0 (implicit), 1, 2, 3
  CHECK(m.layout_rows.empty());
  CHECK(m.thread_spans.rowids.empty());
  // What the writer reads meanwhile, before and after.
  const auto fields = [](const DerivedModel& d) {
    std::string out;
    for (const ThreadRow& t : d.threads)
      out += std::to_string(t.id) + ":" + std::to_string(t.created) + "-" + std::to_string(t.resolved) + "/" +
             std::to_string(t.merged_into) + "/" + std::string(d.text(t.label)) + " ";
    return out + std::to_string(d.activations.size()) + " " + std::to_string(d.blocks.size());
  };
  const std::string before = fields(m);
  place_threads(m, rtree_node_bytes(kStorePageSize));
  CHECK(fields(m) == before);
  REQUIRE(m.layout_rows.size() == 4);
  // 1 merged into 2: one chain, one row.
  CHECK(m.layout_rows[1] == m.layout_rows[2]);
  CHECK(m.thread_spans.rowids.size() == 4);
}
