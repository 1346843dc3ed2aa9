// transfer_table_test.cpp — Why?'s stored causes: the verdicts packed by
// transfer_block_codec come back as they went in, and as the tests' own
// decoder of SCHEMA.md's encoding reads them (tests/support/
// packed_transfers.hpp, the oracle that is not the code under test); the
// exact bytes of a small case; each refusal of the decoder beside the
// accepted value across its boundary; and TransferLookup's three questions
// answered as a brute-force search of the same verdicts answers them, over
// groups that span several blocks.
#include <catch2/catch.hpp>
#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "tests/support/packed_transfers.hpp"
#include "tests/support/store_query.hpp"
#include "viewer/analysis/transfer_table.hpp"

using namespace skein;
namespace test = skein::test;

namespace {

// Verdicts in strictly increasing key order: `groups` groups (the
// scheduler's, -1, first), each with records at random gaps, some records
// with two or three kinds, fields present or not at random.
std::vector<StoredTransfer> random_verdicts(std::mt19937_64& rng, int groups) {
  std::vector<StoredTransfer> out;
  ThreadId grp = -1;
  for (int g = 0; g < groups; ++g) {
    const int records = 1 + static_cast<int>(rng() % (g % 7 == 0 ? 300 : 5));
    std::int64_t event = 1 + static_cast<std::int64_t>(rng() % 1000);
    for (int r = 0; r < records; ++r) {
      event += 1 + static_cast<std::int64_t>(rng() % (rng() % 4 == 0 ? 100000 : 10));
      const int kinds = rng() % 5 == 0 ? 2 : 1;
      for (int k = 0; k < kinds; ++k) {
        StoredTransfer t;
        t.grp = grp;
        t.event = event;
        t.kind = static_cast<TransferKind>(kinds == 1 ? rng() % 3 : k * 2);
        t.thread = grp + static_cast<ThreadId>(rng() % 4);
        if (rng() % 3 != 0) t.from = static_cast<ThreadId>(rng() % 200000) - 1;
        if (rng() % 2 == 0) t.input = static_cast<ThreadId>(rng() % 200000);
        t.cause = static_cast<ControlCause>(rng() % kControlCauseCount);
        if (rng() % 2 == 0) t.cause_event = 1 + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(event));
        if (rng() % 4 == 0) t.suspect = static_cast<ThreadId>(rng() % 200000);
        out.push_back(t);
      }
    }
    grp += 1 + static_cast<ThreadId>(rng() % 50);
  }
  return out;
}

std::string encode(const std::vector<StoredTransfer>& verdicts) {
  TransferBlockEncoder e;
  for (const StoredTransfer& t : verdicts) e.add(t);
  return e.take();
}

std::optional<std::int64_t> present(ThreadId t) { return t == kNoThread ? std::nullopt : std::optional(t); }

std::string decode_error(const std::string& blob, ThreadId grp = 5, std::int64_t first = 10) {
  std::vector<StoredTransfer> out;
  const Status s = decode_transfer_block(blob, TransferBlockPlace{"t.db", grp, first}, out);
  return s.ok() ? "ok" : s.error().to_string();
}

std::string bytes(std::initializer_list<int> b) {
  std::string out;
  for (int v : b) out.push_back(static_cast<char>(v));
  return out;
}

}  // namespace

TEST_CASE("transfer blocks: verdicts come back as they went in, and as SCHEMA.md's encoding reads") {
  std::mt19937_64 rng(20141018);
  for (int round = 0; round < 40; ++round) {
    const std::vector<StoredTransfer> all = random_verdicts(rng, 30);
    // Extremes: ids at both ends of 64 bits (the reserved one aside).
    std::vector<StoredTransfer> verdicts(all.begin(), all.begin() + std::min<std::size_t>(all.size(), 200));
    verdicts.back().from = std::numeric_limits<std::int64_t>::max();
    verdicts.back().suspect = std::numeric_limits<std::int64_t>::min() + 1;
    const std::string blob = encode(verdicts);
    std::vector<StoredTransfer> decoded;
    REQUIRE(decode_transfer_block(blob, TransferBlockPlace{"t.db", verdicts[0].grp, verdicts[0].event}, decoded).ok());
    REQUIRE(decoded == verdicts);
    const auto oracle = test::unpack_transfers(blob, verdicts[0].grp, verdicts[0].event);
    REQUIRE(oracle.size() == verdicts.size());
    for (std::size_t i = 0; i < oracle.size(); ++i) {
      const StoredTransfer& t = verdicts[i];
      CHECK(oracle[i].grp == t.grp);
      CHECK(oracle[i].event == t.event);
      CHECK(oracle[i].kind == static_cast<std::int64_t>(t.kind));
      CHECK(oracle[i].thread == t.thread);
      CHECK(oracle[i].from == present(t.from));
      CHECK(oracle[i].input == present(t.input));
      CHECK(oracle[i].cause == static_cast<std::int64_t>(t.cause));
      CHECK(oracle[i].cause_event == (t.cause_event != 0 ? std::optional(t.cause_event) : std::nullopt));
      CHECK(oracle[i].suspect == present(t.suspect));
    }
  }
}

TEST_CASE("transfer blocks: the exact bytes of a small block") {
  StoredTransfer a;
  a.grp = 5;
  a.event = 10;
  a.thread = 7;
  a.from = 6;
  a.cause = ControlCause::notified;
  a.cause_event = 8;
  StoredTransfer b = a;
  b.kind = TransferKind::hand_off;
  b.from = kNoThread;
  b.cause_event = 0;
  b.suspect = 3;
  b.cause = ControlCause::unexplained;
  StoredTransfer c;
  c.grp = 9;
  c.event = 300;
  c.thread = 9;
  c.cause = ControlCause::scheduler;
  CHECK(encode({a, b, c}) == bytes({
                                 0x14, 6, 0, 4, 1, 4,  // kind 0, from and cause_event; notified; +0; 7-5; 6-7; 10-8
                                 0x22, 0, 0, 4, 7,     // kind 2, suspect; unexplained; +0; 7-5; 3-7
                                 0x40, 2, 4, 0xac, 2, 0,  // a new group, +4; record 300; 9-9
                             }));
}

TEST_CASE("transfer blocks: the decoder refuses each fault, and accepts its neighbour") {
  // One verdict of group 5 at record 10, thread 7: 00 cause 00 +0 zigzag(2).
  CHECK(decode_error(bytes({0x00, 0, 0, 4})) == "ok");
  CHECK(decode_error("") == "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 0: "
                            "a block without verdicts");
  CHECK(decode_error(bytes({0x80, 0, 0, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 0: a flag bit the encoding "
        "never sets");
  CHECK(decode_error(bytes({0x03, 0, 0, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 0: a kind of 3");
  CHECK(decode_error(bytes({0x02, 0, 0, 4})) == "ok");
  CHECK(decode_error(bytes({0x00, 16, 0, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 1: a cause past 15");
  CHECK(decode_error(bytes({0x00, 15, 0, 4})) == "ok");
  CHECK(decode_error(bytes({0x00, 0, 1, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 2: the first verdict is not "
        "at the row's first_event");
  CHECK(decode_error(bytes({0x40, 0, 1, 10, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 0: the first verdict is not "
        "of the row's group");
  // A second verdict: the same key again, then the next kind.
  CHECK(decode_error(bytes({0x00, 0, 0, 4, 0x00, 0, 0, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 4: a verdict out of order");
  CHECK(decode_error(bytes({0x00, 0, 0, 4, 0x01, 0, 0, 4})) == "ok");
  CHECK(decode_error(bytes({0x00, 0, 0, 4, 0x40, 0, 0, 11, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 6: a new group equal to the "
        "one before");
  CHECK(decode_error(bytes({0x00, 0, 0, 4, 0x40, 0, 1, 11, 4})) == "ok");
  CHECK(decode_error(bytes({0x00, 0, 0, 4, 0x40, 0, 1, 0, 4})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 6: an event id below 1");
  CHECK(decode_error(bytes({0x00, 0, 0, 4}), 5, 0) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 0): byte 2: an event id below 1");
  // cause_event: event - 9 = 1 is record 1; event - 10 = 0 is none.
  CHECK(decode_error(bytes({0x10, 0, 0, 4, 18})) == "ok");
  CHECK(decode_error(bytes({0x10, 0, 0, 4, 20})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 4: a cause_event below 1");
  // The thread: -2^63 is the reserved id, -2^63 + 1 is not.
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::string blob = bytes({0x00, 0, 0});
  test::packed_put(blob, test::packed_zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(min) - 5)));
  CHECK(decode_error(blob) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 3: the thread is the "
        "reserved thread id");
  blob = bytes({0x00, 0, 0});
  test::packed_put(blob, test::packed_zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(min) - 4)));
  CHECK(decode_error(blob) == "ok");
  // Cut short, and too long.
  CHECK(decode_error(bytes({0x00, 0, 0})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 3: the verdicts end in the "
        "middle of a number");
  CHECK(decode_error(bytes({0x00})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 1: the verdicts end in the "
        "middle of one");
  CHECK(decode_error(bytes({0x00, 0, 0, 0x84, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00})) ==
        "t.db: damaged Skein database: transfer_blocks row (grp 5, first_event 10): byte 3: a number longer than 64 "
        "bits");
}

TEST_CASE("transfer blocks: a lookup answers as a brute-force search of the verdicts does") {
  test::TempDir dir;
  const std::string path = dir.file("t.db");
  auto db = SqliteDatabase::create_for_bulk_load(path);
  REQUIRE(db.ok());
  std::mt19937_64 rng(7);
  const std::vector<StoredTransfer> verdicts = random_verdicts(rng, 400);
  REQUIRE(verdicts.size() > 20 * kTransferBlockVerdicts);
  // Blocks as the writer cuts them: at most kTransferBlockVerdicts, never
  // between two verdicts of one (group, record)... and, to test the walks
  // across blocks, also much smaller ones.
  REQUIRE(db.value().exec("BEGIN").ok());
  REQUIRE(replace_derived_rows(db.value(), kTransferBlocksTable).ok());
  auto insert = db.value().prepare("INSERT INTO transfer_blocks VALUES (?1, ?2, ?3)");
  REQUIRE(insert.ok());
  TransferBlockEncoder block;
  std::size_t blocks = 0;
  const auto flush = [&] {
    const StoredTransfer first = block.first();
    const std::string blob = block.take();
    insert.value().bind(1, first.grp);
    insert.value().bind(2, first.event);
    insert.value().bind_blob(3, blob.data(), blob.size());
    REQUIRE(insert.value().run().ok());
    ++blocks;
  };
  for (const StoredTransfer& v : verdicts) {
    const std::size_t limit = 1 + rng() % 8;
    if (block.verdicts() >= limit && (v.grp != block.last().grp || v.event != block.last().event)) flush();
    block.add(v);
  }
  flush();
  REQUIRE(db.value().exec("COMMIT").ok());
  REQUIRE(blocks > verdicts.size() / 8);
  auto lookup = TransferLookup::open(db.value());
  REQUIRE(lookup.ok());
  REQUIRE(lookup.value().has_value());
  TransferLookup& l = *lookup.value();

  const auto brute_latest = [&](ThreadId g, std::int64_t e) -> std::optional<StoredTransfer> {
    std::optional<StoredTransfer> found;
    for (const StoredTransfer& v : verdicts)
      if (v.grp == g && v.event <= e && v.kind == TransferKind::transfer) found = v;
    return found;
  };
  const auto brute_next = [&](ThreadId g, std::int64_t e) -> std::optional<StoredTransfer> {
    for (const StoredTransfer& v : verdicts)
      if (v.grp == g && v.event > e && v.kind == TransferKind::transfer) return v;
    return std::nullopt;
  };
  const auto brute_at = [&](ThreadId g, std::int64_t e, TransferKind k) -> std::optional<StoredTransfer> {
    for (const StoredTransfer& v : verdicts)
      if (v.grp == g && v.event == e && v.kind == k) return v;
    return std::nullopt;
  };
  std::size_t asked = 0, found = 0;
  for (int i = 0; i < 3000; ++i) {
    const StoredTransfer& near = verdicts[rng() % verdicts.size()];
    // Groups that exist, and the ones between; records at, around and far
    // from the verdicts'.
    const ThreadId g = near.grp + (rng() % 5 == 0 ? 1 : 0);
    const std::int64_t e = near.event + static_cast<std::int64_t>(rng() % 7) - 3 +
                           (rng() % 10 == 0 ? static_cast<std::int64_t>(rng() % 1000000) - 500000 : 0);
    const TransferKind k = static_cast<TransferKind>(rng() % 3);
    INFO("grp " << g << " event " << e);
    auto latest = l.latest_to(g, e);
    REQUIRE(latest.ok());
    CHECK(latest.value() == brute_latest(g, e));
    auto next = l.next_to(g, e);
    REQUIRE(next.ok());
    CHECK(next.value() == brute_next(g, e));
    auto at = l.at(g, e, k);
    REQUIRE(at.ok());
    CHECK(at.value() == brute_at(g, e, k));
    asked += 3;
    found += latest.value().has_value() + next.value().has_value() + at.value().has_value();
  }
  // Both answers, something and nothing, were exercised.
  CHECK(found > asked / 4);
  CHECK(found < asked);
  // In key order, as Why? walks a thread: mostly the block decoded last.
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < verdicts.size(); i += 1 + rng() % 3) {
    const StoredTransfer& v = verdicts[i];
    for (std::int64_t e = v.event - 1; e <= v.event + 1; ++e) {
      auto latest = l.latest_to(v.grp, e);
      auto next = l.next_to(v.grp, e);
      auto at = l.at(v.grp, e, v.kind);
      REQUIRE((latest.ok() && next.ok() && at.ok()));
      wrong += latest.value() != brute_latest(v.grp, e);
      wrong += next.value() != brute_next(v.grp, e);
      wrong += at.value() != brute_at(v.grp, e, v.kind);
    }
  }
  CHECK(wrong == 0);
}

TEST_CASE("transfer blocks: a lookup reports a damaged block, naming its row and byte") {
  test::TempDir dir;
  const std::string path = dir.file("t.db");
  auto db = SqliteDatabase::create_for_bulk_load(path);
  REQUIRE(db.ok());
  REQUIRE(db.value().exec("BEGIN").ok());
  REQUIRE(replace_derived_rows(db.value(), kTransferBlocksTable).ok());
  REQUIRE(db.value().exec("INSERT INTO transfer_blocks VALUES (5, 10, X'00000004'), (5, 20, X'03000004'), "
                          "(6, 30, 'text, not a blob'), (7, 5, X'000000044000010505')")
              .ok());
  REQUIRE(db.value().exec("COMMIT").ok());
  auto lookup = TransferLookup::open(db.value());
  REQUIRE(lookup.ok());
  REQUIRE(lookup.value().has_value());
  TransferLookup& l = *lookup.value();
  auto fine = l.latest_to(5, 15);
  REQUIRE(fine.ok());
  REQUIRE(fine.value().has_value());
  CHECK(fine.value()->thread == 7);
  auto bad = l.latest_to(5, 25);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().to_string() == path + ": damaged Skein database: transfer_blocks row (grp 5, first_event 20): "
                                          "byte 0: a kind of 3");
  auto no_blob = l.at(6, 30, TransferKind::transfer);
  REQUIRE_FALSE(no_blob.ok());
  CHECK(no_blob.error().to_string() ==
        path + ": damaged Skein database: transfer_blocks row (grp 6, first_event 30): no blob");
  // Row (7, 5) holds group 7 at record 5, then group 8 at record 5: the
  // lookup of group 8 descends to it and finds it there.
  auto spanning = l.at(8, 5, TransferKind::transfer);
  REQUIRE(spanning.ok());
  CHECK(spanning.value().has_value());
}
