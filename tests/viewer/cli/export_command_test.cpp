// export_command_test.cpp — `skein export DB|TRACE --format chrome|folded|sexp
// [-o FILE]`. Chrome: the JSON parses, every flow start has its finish (same
// id, cat and name; "bp":"e" on the finish) and every flow event sits at
// exactly the start of a slice on its own track (pid and tid), activations
// nest in their thread's slice, tracks carry the labels, counters are "C"
// events; on a small trace with known figures and on a generated one.
// Folded: the exact lines of a trace whose run times are known, and the
// stack walk on cycles and deep chains. Sexp through the command: standard
// output, -o with gzip, the atomic output file, the input never overwritten.
// Usage errors. Thread ids too big for a tid; the JSON stream's escaping and
// exact microseconds.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "recorder/format/trace_writer.hpp"
#include "samples/synthetic/synthetic_trace.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"
#include "recorder/export/chrome_trace_export.hpp"
#include "recorder/export/folded_stacks_export.hpp"
#include "recorder/export/json_stream.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Threads 0 "main", 1 "server" (spawned by 0), 2 an unlabelled bind
// (spawned by 1), 3 "conn;1" (spawned by 2), 4 unlabelled (spawned by the
// scheduler). They run 1, 2, 4, 8 and 1 µs.
const std::string kTrace =
    "(skein-trace 1 (process \"demo\") (pid 4242))\n"
    "(label 0 0 \"main\")\n"
    "(spawn 0 1 0 task)\n"
    "(label 0 1 \"server\")\n"
    "(switch 1000 1)\n"
    "(spawn 1000 2 1 bind)\n"
    "(switch 3000 2)\n"
    "(wait 3000 2 1)\n"
    "(spawn 3000 3 2 task)\n"
    "(label 3000 3 \"conn;1\")\n"
    "(counter 3500 \"queue\" 4)\n"
    "(switch 7000 3)\n"
    "(resolve 7500 3 3 ok)\n"
    "(read 8000 3 1)\n"
    "(switch 15000 -1)\n"
    "(idle 15100)\n"
    "(notify 15500 -1 1 io)\n"
    "(spawn 15500 4 -1 task)\n"
    "(switch 16000 4)\n"
    "(counter 16200 \"queue\" 2)\n"
    "(resolve 16500 4 4 ok)\n"
    "(switch 17000 -1)\n"
    "(gc 18000 300)\n"
    "(end 20000)\n";

// kTrace with the lost wake-ups before its end: thread 1 signals primitive
// 5 (no thread 5) while the loop runs nobody (event 23), thread 4 drops
// thread 1 (24), thread 2 joins primitive 5's queue (25).
std::string with_lost_wakeups(const std::string& trace) {
  const std::string end = "(end 20000)\n";
  const auto at = trace.rfind(end);
  REQUIRE(at != std::string::npos);
  return trace.substr(0, at) +
         "(no-waiter 18100 1 5 x/y<z>&q)\n"
         "(drop 18200 1 4)\n"
         "(queued 18300 2 5)\n" +
         end;
}

QJsonArray parse_chrome(const std::string& text) {
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
  INFO(error.errorString().toStdString());
  REQUIRE(error.error == QJsonParseError::NoError);
  REQUIRE(doc.isObject());
  CHECK(doc.object().value("displayTimeUnit").toString() == "ns");
  REQUIRE(doc.object().value("traceEvents").isArray());
  return doc.object().value("traceEvents").toArray();
}

using TrackKey = std::pair<qint64, qint64>;  // pid, tid

TrackKey track_of(const QJsonObject& e) {
  return {e.value("pid").toInteger(-1), e.value("tid").toInteger(-1)};
}

// The structural rules every export must keep; returns the number of
// flows (start and finish pairs).
std::size_t check_chrome_structure(const QJsonArray& events) {
  std::map<TrackKey, std::set<double>> slice_starts;
  std::map<TrackKey, std::vector<std::pair<double, double>>> thread_slices;
  struct Flow {
    QJsonObject start, finish;
  };
  std::map<qint64, Flow> flows;
  for (const auto& value : events) {
    const QJsonObject e = value.toObject();
    const QString ph = e.value("ph").toString();
    REQUIRE(e.value("pid").isDouble());
    if (ph == "X") {
      REQUIRE(e.value("ts").isDouble());
      REQUIRE(e.value("dur").isDouble());
      CHECK(e.value("dur").toDouble() >= 0);
      slice_starts[track_of(e)].insert(e.value("ts").toDouble());
      if (e.value("cat").toString() == "thread")
        thread_slices[track_of(e)].emplace_back(e.value("ts").toDouble(),
                                                e.value("ts").toDouble() + e.value("dur").toDouble());
    } else if (ph == "s" || ph == "f") {
      // Ids as integers, never strings.
      REQUIRE(e.value("id").isDouble());
      const double id = e.value("id").toDouble();
      REQUIRE(id == static_cast<double>(static_cast<qint64>(id)));
      Flow& f = flows[static_cast<qint64>(id)];
      QJsonObject& slot = ph == "s" ? f.start : f.finish;
      CHECK(slot.isEmpty());  // one of each per id
      slot = e;
    }
  }
  for (const auto& [id, f] : flows) {
    INFO("flow " << id);
    REQUIRE_FALSE(f.start.isEmpty());
    REQUIRE_FALSE(f.finish.isEmpty());
    CHECK(f.start.value("cat") == f.finish.value("cat"));
    CHECK(f.start.value("name") == f.finish.value("name"));
    CHECK(f.finish.value("bp").toString() == "e");
    CHECK_FALSE(f.start.contains("bp"));
    for (const QJsonObject* e : {&f.start, &f.finish}) {
      const auto& starts = slice_starts[track_of(*e)];
      CHECK(starts.count(e->value("ts").toDouble()) == 1);
    }
  }
  // Every activation lies inside its thread's slice.
  for (const auto& value : events) {
    const QJsonObject e = value.toObject();
    if (e.value("ph").toString() != "X" || e.value("cat").toString() != "run") continue;
    const auto& outer = thread_slices[track_of(e)];
    REQUIRE(outer.size() == 1);
    const double start = e.value("ts").toDouble();
    CHECK(start >= outer[0].first);
    CHECK(start + e.value("dur").toDouble() <= outer[0].second + 1e-9);
  }
  return flows.size();
}

std::string write_trace(const std::vector<skein::Record>& records, const skein::TraceHeader& header) {
  std::string text;
  skein::TraceWriter writer(skein::string_output(text));
  writer.write_header(header);
  for (const auto& r : records) writer.write(r);
  REQUIRE(writer.finish().ok());
  return text;
}

}  // namespace

TEST_CASE("skein export chrome: tracks, slices, flows and counters of a small trace") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "export", trace, "--format", "chrome", "-o", dir.file("t.json")});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.empty());
  const QJsonArray events = parse_chrome(read_file(dir.file("t.json")));

  // wait 2->1, spawn 1->2, spawn 0->1, spawn 2->3, read 3->1, notify -1->1,
  // spawn -1->4: seven flows; the two self-resolves have none.
  CHECK(check_chrome_structure(events) == 7);

  std::map<qint64, QString> names;
  std::vector<QJsonObject> threads, runs, counters, flows_from_scheduler, self_edges;
  for (const auto& value : events) {
    const QJsonObject e = value.toObject();
    CHECK(e.value("pid").toInteger() == 4242);
    const QString ph = e.value("ph").toString();
    if (ph == "M" && e.value("name").toString() == "thread_name")
      names[e.value("tid").toInteger()] = e.value("args").toObject().value("name").toString();
    if (ph == "M" && e.value("name").toString() == "process_name")
      CHECK(e.value("args").toObject().value("name").toString() == "demo");
    if (ph == "X" && e.value("cat").toString() == "thread") threads.push_back(e);
    if (ph == "X" && e.value("cat").toString() == "run") runs.push_back(e);
    if (ph == "C") counters.push_back(e);
    if (ph == "s" && e.value("tid").toInteger() == skein::kChromeSchedulerTid) flows_from_scheduler.push_back(e);
    if (ph == "X" && e.value("name").toString().endsWith("(self)")) self_edges.push_back(e);
  }
  CHECK(names[0] == "main");
  CHECK(names[1] == "server");
  CHECK(names[2] == "bind 2");
  CHECK(names[3] == "conn;1");
  CHECK(names[4] == "task 4");
  CHECK(names[skein::kChromeSchedulerTid] == "scheduler");
  CHECK(names[skein::kChromeGcTid] == "gc");

  REQUIRE(threads.size() == 5);
  std::map<qint64, QJsonObject> by_tid;
  for (const auto& t : threads) by_tid[t.value("tid").toInteger()] = t;
  // Thread 3: created at 3 µs, resolved at 7.5 µs, but runs on to 15 µs:
  // its slice widens to enclose the activation; the exact times are in args.
  CHECK(by_tid[3].value("ts").toDouble() == 3.0);
  CHECK(by_tid[3].value("dur").toDouble() == 12.0);
  const QJsonObject args3 = by_tid[3].value("args").toObject();
  CHECK(args3.value("label").toString() == "conn;1");
  CHECK(args3.value("kind").toString() == "task");
  CHECK(args3.value("parent").toInteger() == 2);
  CHECK(args3.value("resolved_ns").toInteger() == 7500);
  CHECK(args3.value("outcome").toString() == "ok");
  CHECK(args3.value("run_time_ns").toInteger() == 8000);
  // Thread 1 is pending: its slice runs to the trace's end.
  CHECK(by_tid[1].value("ts").toDouble() == 0.0);
  CHECK(by_tid[1].value("dur").toDouble() == 20.0);
  CHECK(by_tid[1].value("args").toObject().value("outcome").toString() == "pending");

  // Activations: 0 [0,1], 1 [1,3], 2 [3,7], 3 [7,15], 4 [16,17].
  REQUIRE(runs.size() == 5);
  CHECK(runs[3].value("tid").toInteger() == 3);
  CHECK(runs[3].value("ts").toDouble() == 7.0);
  CHECK(runs[3].value("dur").toDouble() == 8.0);

  REQUIRE(counters.size() == 2);
  CHECK(counters[0].value("name").toString() == "queue");
  CHECK(counters[0].value("ts").toDouble() == 3.5);
  CHECK(counters[0].value("args").toObject().value("value").toInteger() == 4);

  REQUIRE(flows_from_scheduler.size() == 2);
  CHECK(flows_from_scheduler[0].value("name").toString() == "notify");
  CHECK(flows_from_scheduler[0].value("ts").toDouble() == 15.5);
  CHECK(flows_from_scheduler[0].value("id").toInteger() == 16);  // the event id
  CHECK(self_edges.size() == 2);

  // The edge slices are named after the threads at both ends.
  bool named = false;
  for (const auto& value : events) {
    const QJsonObject e = value.toObject();
    if (e.value("name").toString() == QString::fromUtf8("spawn \u2192 conn;1") && e.value("tid").toInteger() == 2)
      named = true;
  }
  CHECK(named);
}

TEST_CASE("skein export chrome: drop and no-waiter are instants on the dropped and the signalling thread's tracks") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, with_lost_wakeups(kTrace));
  const auto r = run_process({kSkein, "export", trace, "--format", "chrome"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const QJsonArray events = parse_chrome(r.out);  // whole JSON: every string escaped
  CHECK(check_chrome_structure(events) == 7);     // no flows of their own
  std::vector<QJsonObject> lost;
  std::set<qint64> tracks;
  std::size_t runs = 0;
  for (const auto& value : events) {
    const QJsonObject e = value.toObject();
    if (e.value("ph").toString() == "M" && e.value("name").toString() == "thread_name")
      tracks.insert(e.value("tid").toInteger());
    if (e.value("cat").toString() == "lost-wakeup") lost.push_back(e);
    if (e.value("cat").toString() == "run") ++runs;
    CHECK(e.value("args").toObject().value("event").toInteger() != 25);  // queued is not drawn
  }
  REQUIRE(lost.size() == 2);
  const QJsonObject& no_waiter = lost[0];
  CHECK(no_waiter.value("ph").toString() == "i");
  CHECK(no_waiter.value("s").toString() == "t");
  CHECK(no_waiter.value("name").toString() == "no-waiter");
  CHECK(no_waiter.value("tid").toInteger() == 1);  // the signalling thread
  CHECK(no_waiter.value("ts").toDouble() == 18.1);
  const QJsonObject nw_args = no_waiter.value("args").toObject();
  CHECK(nw_args.value("event").toInteger() == 23);
  CHECK(nw_args.value("object").toInteger() == 5);
  CHECK(nw_args.value("reason").toString() == "x/y<z>&q");
  const QJsonObject& drop = lost[1];
  CHECK(drop.value("ph").toString() == "i");
  CHECK(drop.value("name").toString() == "drop");
  CHECK(drop.value("tid").toInteger() == 1);  // the dropped thread
  CHECK(drop.value("ts").toDouble() == 18.2);
  CHECK(drop.value("args").toObject().value("event").toInteger() == 24);
  CHECK(drop.value("args").toObject().value("by").toInteger() == 4);
  // An object is no thread: no track 5; and neither record ran anyone.
  CHECK(tracks.count(5) == 0);
  CHECK(runs == 5);
}

TEST_CASE("skein export chrome: a generated trace keeps every flow paired and placed") {
  skein::samples::SyntheticOptions options;
  options.records = 20'000;
  options.seed = 7;
  TempDir dir;
  const std::string trace = dir.file("g.sexp");
  skein::test::write_file(trace, write_trace(skein::samples::synthetic_trace(options),
                                             skein::samples::synthetic_header(options)));
  const auto r = run_process({kSkein, "export", trace, "--format", "chrome"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::size_t flows = check_chrome_structure(parse_chrome(r.out));
  // Every edge between two threads is a flow.
  const std::string db = dir.file("g.sexp.skein.db");
  CHECK(std::to_string(flows) + "\n" == skein::test::query(db, "SELECT count(*) FROM events WHERE head IN (1, 4, 5, 6, 7, 8) AND actor <> target"));
  CHECK(flows > 1000);
}

TEST_CASE("skein export folded: label ancestry and run time in microseconds") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto r = run_process({kSkein, "export", "--format", "folded", trace});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // 2 (unlabelled) counts toward "server"; 4 has no labelled creator.
  CHECK(r.out ==
        "(no label) 1\n"
        "main 1\n"
        "main;server 6\n"
        "main;server;conn:1 8\n");
}

TEST_CASE("skein export folded: drop, no-waiter and queued change no stack") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, with_lost_wakeups(kTrace));
  const auto r = run_process({kSkein, "export", "--format", "folded", trace});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out ==
        "(no label) 1\n"
        "main 1\n"
        "main;server 6\n"
        "main;server;conn:1 8\n");
}

TEST_CASE("folded stacks: cycles end, deep chains need no recursion, names are cleaned") {
  using skein::StoredThread;
  std::vector<StoredThread> threads(3);
  threads[0].id = 1;
  threads[0].parent = 2;
  threads[0].label = "a";
  threads[0].run_time = 1000;
  threads[1].id = 2;
  threads[1].parent = 1;
  threads[1].label = "b";
  threads[1].run_time = 2000;
  threads[2].id = 3;
  threads[2].parent = 2;
  threads[2].label = "c\nd";
  threads[2].run_time = 4000;
  const auto stacks = skein::folded_stacks(threads);
  REQUIRE(stacks.size() == 3);
  // Walking from 1: 1 -> 2 -> (1 again: the chain closes) so 2 is the root.
  CHECK(stacks[0].frames == "b");
  CHECK(stacks[0].run_time == 2000);
  CHECK(stacks[1].frames == "b;a");
  CHECK(stacks[2].frames == "b;c d");

  std::vector<StoredThread> chain(200'000);
  for (std::size_t i = 0; i < chain.size(); ++i) {
    chain[i].id = static_cast<skein::ThreadId>(i);
    if (i > 0) chain[i].parent = static_cast<skein::ThreadId>(i - 1);
    chain[i].run_time = 1;
  }
  chain[0].label = "root";
  chain.back().label = "leaf";
  // Reversed, so the first walk is the deepest.
  std::reverse(chain.begin(), chain.end());
  const auto deep = skein::folded_stacks(chain);
  REQUIRE(deep.size() == 2);
  CHECK(deep[0].frames == "root");
  CHECK(deep[0].run_time == 199'999);
  CHECK(deep[1].frames == "root;leaf");
  CHECK(skein::folded_frame_name("") == "(empty label)");
  CHECK(skein::folded_frame_name("x;y\tz") == "x:y z");
}

TEST_CASE("skein export sexp: standard output, a gzip file, and the database as input") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto out = run_process({kSkein, "export", trace, "--format", "sexp"});
  INFO(out.err);
  REQUIRE(out.exit_code == 0);
  // The header's options in key order; every record line as it was.
  CHECK(out.out == "(skein-trace 1 (pid 4242) (process \"demo\"))\n" + kTrace.substr(kTrace.find('\n') + 1));

  const auto gz = run_process({kSkein, "export", dir.file("t.sexp.skein.db"), "-f", "sexp", "-o", dir.file("e.sexp.gz")});
  INFO(gz.err);
  REQUIRE(gz.exit_code == 0);
  const std::string compressed = read_file(dir.file("e.sexp.gz"));
  REQUIRE(compressed.size() > 2);
  CHECK(static_cast<unsigned char>(compressed[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(compressed[1]) == 0x8b);
  // skein check reads it back: the same records.
  const auto check = run_process({kSkein, "check", dir.file("e.sexp.gz")});
  CHECK(check.exit_code == 0);
  // Only the output file was made: no temporary file is left.
  CHECK(dir.entries() == std::vector<std::string>{"e.sexp.gz", "t.sexp", "t.sexp.skein.db"});
}

TEST_CASE("skein export: usage errors exit 2, a bad trace 1, and no output file is left") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const auto none = run_process({kSkein, "export", trace});
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::StartsWith("skein export: missing --format chrome|folded|sexp"));
  const auto bad = run_process({kSkein, "export", trace, "--format", "svg"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::StartsWith("skein export: --format takes chrome, folded or sexp, not 'svg'"));
  CHECK(run_process({kSkein, "export", "--format", "sexp"}).exit_code == 2);
  CHECK(run_process({kSkein, "export", dir.file("missing.sexp"), "--format", "sexp"}).exit_code == 2);
  const std::string broken = dir.file("broken.sexp");
  skein::test::write_file(broken, "(skein-trace 1)\n(spawn x)\n");
  const auto invalid = run_process({kSkein, "export", broken, "--format", "sexp", "-o", dir.file("out.sexp")});
  CHECK(invalid.exit_code == 1);
  CHECK_THAT(invalid.err, Catch::Contains("broken.sexp:2:"));
  CHECK_FALSE(skein::test::file_exists(dir.file("out.sexp")));
  const auto unwritable = run_process({kSkein, "export", trace, "--format", "sexp", "-o", dir.file("no/such/dir/x")});
  CHECK(unwritable.exit_code == 2);
  // The input is never overwritten.
  const auto self = run_process({kSkein, "export", trace, "--format", "sexp", "-o", trace});
  CHECK(self.exit_code == 2);
  CHECK(self.err == trace + ": is the input " + trace + " itself (the same file); choose another output\n");
  CHECK(read_file(trace) == kTrace);
}

TEST_CASE("json stream: escapes, invalid UTF-8 and exact microseconds") {
  std::string escaped;
  skein::append_json_string_contents(escaped, "a\"b\\c\x01\x7f\n\xff\xe2\x82\xac\xed\xa0\x80z");
  // Control characters as \u00XX, each byte that is not UTF-8 (a lone 0xff,
  // an encoded surrogate) as U+FFFD, valid sequences kept.
  CHECK(escaped == "a\\\"b\\\\c\\u0001\\u007f\\u000a\xef\xbf\xbd\xe2\x82\xac\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
  std::string out;
  skein::JsonStream json(skein::string_output(out));
  for (const std::int64_t ns : {std::int64_t{1234567}, std::int64_t{1000}, std::int64_t{5}, std::int64_t{0},
                                std::int64_t{-1500}}) {
    json.microseconds(ns);
    json.raw(" ");
  }
  json.string("x\ty");
  REQUIRE(json.finish().ok());
  CHECK(out == "1234.567 1 0.005 0 -1.500 \"x\\u0009y\"");
}

TEST_CASE("skein export chrome: thread ids beyond 31 bits get tids 1, 2... in id order") {
  TempDir dir;
  const std::string trace = dir.file("big-ids.sexp");
  skein::test::write_file(trace,
                          "(skein-trace 1)\n"
                          "(spawn 10 5000000000 0 task)\n"
                          "(label 10 5000000000 \"far\")\n"
                          "(switch 20 5000000000)\n"
                          "(notify 30 5000000000 0)\n"
                          "(end 40)\n");
  const auto r = run_process({kSkein, "export", trace, "--format", "chrome"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const QJsonArray events = parse_chrome(r.out);
  CHECK(check_chrome_structure(events) == 2);
  std::map<qint64, QString> names;
  for (const auto& value : events) {
    const QJsonObject e = value.toObject();
    if (e.value("ph").toString() == "M" && e.value("name").toString() == "thread_name")
      names[e.value("tid").toInteger()] = e.value("args").toObject().value("name").toString();
  }
  CHECK(names.size() == 4);
  CHECK(names[1] == "thread 0");
  CHECK(names[2] == "far");
  CHECK(names[skein::kChromeSchedulerTid] == "scheduler");
}
