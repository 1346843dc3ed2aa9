// packed_transfers.hpp — Why?'s stored causes as a table again, for tests:
// a decoder of transfer_blocks.verdicts written here from SCHEMA.md's
// description of the encoding, not from
// viewer/analysis/transfer_block_codec.hpp, so that tests comparing the
// stored verdicts with what they expect do not take the codec's word for
// what its blobs hold.
//
// expose_transfers(handle) fills a TEMP table `transfers(grp, event, kind,
// thread, from_thread, input, cause, cause_event, suspect)`, one row per
// verdict, NULL for an absent field: the shape the causes had as one row
// each, so a test's `SELECT ... FROM transfers` reads them as it always did.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/packed_events.hpp"

namespace skein::test {

struct PackedVerdict {
  std::int64_t grp = 0, event = 0, kind = 0, thread = 0, cause = 0;
  std::optional<std::int64_t> from, input, cause_event, suspect;
};

// SCHEMA.md, "transfer_blocks": a byte of kind and presence flags (bit 6: a
// new group), a byte of cause; with a new group its difference and the
// absolute event id, else the event id's difference; then zigzag
// differences: thread - grp, from - thread, input - thread, event -
// cause_event, suspect - thread.
inline std::vector<PackedVerdict> unpack_transfers(const std::string& blob, std::int64_t grp, std::int64_t first_event) {
  std::vector<PackedVerdict> out;
  std::size_t at = 0;
  const auto get = [&]() -> std::uint64_t {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= blob.size()) throw std::runtime_error("blob ends in a varint");
      const auto b = static_cast<std::uint8_t>(blob[at++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    throw std::runtime_error("varint too long");
  };
  const auto add = [](std::int64_t a, std::uint64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + b);
  };
  std::int64_t previous_grp = grp, previous_event = first_event;
  while (at < blob.size()) {
    if (at + 2 > blob.size()) throw std::runtime_error("blob ends in a verdict's flags");
    const auto head = static_cast<std::uint8_t>(blob[at]);
    PackedVerdict v;
    v.kind = head & 0x03;
    v.cause = static_cast<std::uint8_t>(blob[at + 1]);
    at += 2;
    if (head & 0x40) {
      v.grp = add(previous_grp, get());
      v.event = static_cast<std::int64_t>(get());
    } else {
      v.grp = previous_grp;
      v.event = add(previous_event, get());
    }
    v.thread = add(v.grp, static_cast<std::uint64_t>(packed_unzigzag(get())));
    if (head & 0x04) v.from = add(v.thread, static_cast<std::uint64_t>(packed_unzigzag(get())));
    if (head & 0x08) v.input = add(v.thread, static_cast<std::uint64_t>(packed_unzigzag(get())));
    if (head & 0x10) v.cause_event = add(v.event, static_cast<std::uint64_t>(-packed_unzigzag(get())));
    if (head & 0x20) v.suspect = add(v.thread, static_cast<std::uint64_t>(packed_unzigzag(get())));
    previous_grp = v.grp;
    previous_event = v.event;
    out.push_back(v);
  }
  return out;
}

// True when the database has a transfer_blocks table.
inline bool has_packed_transfers(sqlite3* db) {
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_list WHERE name = 'transfer_blocks'", -1, &q, nullptr) !=
      SQLITE_OK)
    return false;
  const bool found = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  return found;
}

// Fills TEMP table `transfers` from the blocks.
inline void expose_transfers(sqlite3* db) {
  packed_exec(db, "DROP TABLE IF EXISTS temp.transfers; CREATE TEMP TABLE transfers(grp INTEGER, event INTEGER, "
                  "kind INTEGER, thread INTEGER, from_thread INTEGER, input INTEGER, cause INTEGER, "
                  "cause_event INTEGER, suspect INTEGER)");
  sqlite3_stmt* blocks = nullptr;
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT grp, first_event, verdicts FROM transfer_blocks ORDER BY grp, first_event", -1,
                         &blocks, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO temp.transfers VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", -1, &insert,
                         nullptr) != SQLITE_OK) {
    sqlite3_finalize(blocks);
    throw std::runtime_error(sqlite3_errmsg(db));
  }
  const auto bind = [&](int i, const std::optional<std::int64_t>& v) {
    if (v) sqlite3_bind_int64(insert, i, *v);
    else sqlite3_bind_null(insert, i);
  };
  while (sqlite3_step(blocks) == SQLITE_ROW) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(blocks, 2));
    const std::string blob(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(blocks, 2)));
    for (const PackedVerdict& v :
         unpack_transfers(blob, sqlite3_column_int64(blocks, 0), sqlite3_column_int64(blocks, 1))) {
      sqlite3_bind_int64(insert, 1, v.grp);
      sqlite3_bind_int64(insert, 2, v.event);
      sqlite3_bind_int64(insert, 3, v.kind);
      sqlite3_bind_int64(insert, 4, v.thread);
      bind(5, v.from);
      bind(6, v.input);
      sqlite3_bind_int64(insert, 7, v.cause);
      bind(8, v.cause_event);
      bind(9, v.suspect);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
  }
  sqlite3_finalize(blocks);
  sqlite3_finalize(insert);
}

}  // namespace skein::test
