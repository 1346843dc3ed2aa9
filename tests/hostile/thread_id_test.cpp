// thread_id_test.cpp — thread ids at the ends of the signed 64-bit range:
// valid ones (up to ±(2^63 - 1)) are imported, indexed and drawn by every
// command; the reserved id -2^63 is refused where it enters, with its
// place; the viewer's id index stays within the thread count whatever the
// ids and their order.
#include <catch2/catch.hpp>

#include "tests/hostile/hostile_inputs.hpp"
#include "tests/support/ctf_builder.hpp"

namespace skein::test {
namespace {

std::string reserved(const std::string& where) {
  return where + ": thread id -9223372036854775808 is reserved (thread ids are -9223372036854775807 to "
                 "9223372036854775807)";
}

}  // namespace

TEST_CASE("hostile: thread ids near ±2^63", "[hostile]") {
  limit_memory();
  TempDir dir;
  const std::string trace = copy_corpus(dir, "thread-ids-near-2p63.sexp");
  for (const CommandRun& run : run_every_command(trace, dir, kMax)) {
    INFO(run.command);
    CHECK(misbehaviour(run.result, trace) == "");
    if (run.command.rfind("check", 0) == 0 || run.command.rfind("import", 0) == 0 ||
        run.command.rfind("render", 0) == 0 || run.command.rfind("export", 0) == 0 ||
        run.command.rfind("info", 0) == 0 || run.command.rfind("summary", 0) == 0)
      CHECK(run.result.exit_code == 0);
  }
  CHECK(query(dir.file("imported.db"), "SELECT id FROM threads ORDER BY id") ==
        "-9223372036854775807\n0\n9223372036854775806\n9223372036854775807\n");

  auto store = TraceStore::open(dir.file("imported.db"));
  REQUIRE(store.ok());
  const CoreRun core = run_viewer_core(store.value());
  CHECK(core.error.empty());
  CHECK(core.threads == 4);
  // The ids span 2^64 - 2: no direct table, a binary search instead.
  CHECK(core.dense_index == 0);

  // The same ids from the 2014 MirageOS S-expressions and from CTF, whose
  // u64 ids 0x7fff... and 0x8000...01 read as 2^63 - 1 and -2^63 + 1.
  const ImportResult sexp =
      import_text(read_text(corpus_path("mirage_sexp/thread-ids-near-2p63.sexp")), dir.file("m.db"), {}, "m.sexp");
  REQUIRE(sexp.ok());
  CtfBuilder ctf;
  ctf.packet()
      .creates(1000, 0, 0x7fffffffffffffffull, 1)
      .creates(1100, 0, 0x8000000000000001ull, 2)
      .switch_(1200, 0x7fffffffffffffffull)
      .fulfills(1300, 0x7fffffffffffffffull, 0x8000000000000001ull)
      .switch_(1400, 0xffffffffffffffffull);
  const ImportResult from_ctf = import_text(ctf.bytes(), dir.file("c.db"), {}, "c.ctf");
  REQUIRE(from_ctf.ok());
  for (const std::string db : {"m.db", "c.db"}) {
    INFO(db);
    CHECK(query(dir.file(db), "SELECT min(id), max(id) FROM threads") ==
          "-9223372036854775807|9223372036854775807\n");
    auto opened = TraceStore::open(dir.file(db));
    REQUIRE(opened.ok());
    const CoreRun run = run_viewer_core(opened.value());
    CHECK(run.error.empty());
    CHECK(run.threads == 3);
  }
}

TEST_CASE("hostile: thread id -2^63 is refused where it enters", "[hostile]") {
  TempDir dir;
  // Skein's format: every record naming it is an error at the id's column.
  const std::string trace = copy_corpus(dir, "thread-id-int64-min.sexp");
  const ProcessResult check = run_skein({"check", trace});
  CHECK(check.exit_code == 1);
  CHECK(check.err.find(reserved(trace + ":3:11") + "\n") != std::string::npos);
  CHECK(check.err.find(reserved(trace + ":5:14") + "\n") != std::string::npos);
  const ProcessResult render = run_skein({"render", "-o", dir.file("x.png"), trace});
  CHECK(render.exit_code == 1);
  CHECK(render.err.find(reserved(trace + ":3:11") + "\n") != std::string::npos);

  // The 2014 MirageOS S-expressions: at the id's column too.
  const ImportResult sexp =
      import_text(read_text(corpus_path("mirage_sexp/thread-id-int64-min.sexp")), dir.file("m.db"), {}, "m.sexp");
  CHECK(sexp.failure == ImportResult::Failure::invalid);
  CHECK(sexp.error.to_string() == reserved("m.sexp:2:26"));

  // CTF: 0x8000000000000000 as an event's thread (byte 39 of the first
  // event, after the 30-byte packet header and timestamp and id) or as its
  // other thread (byte 47).
  for (const bool as_context : {true, false}) {
    CtfBuilder ctf;
    if (as_context) ctf.packet().switch_(1000, 0x8000000000000000ull);
    else ctf.packet().creates(1000, 0, 0x8000000000000000ull, 1);
    const ImportResult r = import_text(ctf.bytes(), dir.file("c.db"), {}, "c.ctf");
    CHECK(r.failure == ImportResult::Failure::invalid);
    CHECK(r.error.to_string() ==
          std::string("c.ctf: byte ") + (as_context ? "39" : "47") +
              ": thread id 0x8000000000000000 is reserved (read as signed it is -9223372036854775808, which no "
              "thread may have)");
  }
}

TEST_CASE("hostile: the thread index is sized by the thread count, never by the ids", "[hostile]") {
  const auto with_ids = [](const std::vector<ThreadId>& ids) {
    TimelineData d;
    for (const ThreadId id : ids) {
      TimelineThread t;
      t.id = id;
      d.threads.push_back(t);
    }
    index_threads(d);
    return d;
  };
  // Dense ids at the top of the range: a direct table of 4 slots.
  const TimelineData top = with_ids({kMax - 3, kMax - 1, kMax});
  CHECK(top.dense_index.size() == 4);
  CHECK(top.thread_index(kMax) == 2u);
  CHECK(top.thread_index(kMax - 3) == 0u);
  CHECK_FALSE(top.thread_index(kMax - 2));
  CHECK_FALSE(top.thread_index(kMin));
  CHECK_FALSE(top.thread_index(0));
  // At the bottom: ids far above dense_base are not in the table.
  const TimelineData bottom = with_ids({kMin + 1, kMin + 2});
  CHECK(bottom.dense_index.size() == 2);
  CHECK(bottom.thread_index(kMin + 2) == 1u);
  CHECK_FALSE(bottom.thread_index(kMax));
  CHECK_FALSE(bottom.thread_index(kMin));
  // Both ends: 2^64 - 2 apart, no table at all.
  const TimelineData both = with_ids({kMin + 1, -1, 0, kMax - 1, kMax});
  CHECK(both.dense_index.empty());
  for (std::uint32_t i = 0; i < both.threads.size(); ++i) CHECK(both.thread_index(both.threads[i].id) == i);
  // Ids out of order or repeated (a damaged database's B-tree): no table,
  // and nothing written outside one.
  for (const std::vector<ThreadId>& ids : std::vector<std::vector<ThreadId>>{
           {5, 3, 4}, {1, 2, 2, 3}, {kMax, kMin + 1}, {0, 1, 2, 3, -70, 4}, {3, 1000, 2}}) {
    const TimelineData d = with_ids(ids);
    CHECK(d.dense_index.empty());
  }
}

}  // namespace skein::test
