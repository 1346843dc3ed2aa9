// packed_activations.hpp — the activations of a trace database as a table
// again, for tests: a decoder and an encoder of
// activation_blocks.activations written here from SCHEMA.md's description
// of the encoding, not from recorder/store/activation_block_codec.hpp, so
// that tests comparing the stored activations with what they expect do not
// take the codec's word for what its blobs hold.
//
// expose_activations(handle) fills a TEMP table `activations(id, event,
// thread, start, end)`, one row per activation: the shape of the table
// schema 5 had, so a test's `SELECT ... FROM activations` reads them as it
// always did. edit_activations(path, sql) runs `sql` (UPDATEs of
// `activations`) on that table and packs every block back, which is how a
// test damages an activation. The encoder writes what it is given, whatever
// its range (a time past kMaxTime, the reserved thread id), so the
// decoder's refusals can be tested.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/support/packed_events.hpp"

namespace skein::test {

struct PackedActivation {
  std::int64_t id = 0, event = 0, thread = 0, start = 0, end = 0;
};

// SCHEMA.md, "activation_blocks": per activation four zigzag varints, the
// event's difference from the block's previous one (from 0), the thread,
// the start's difference from the previous start (from 0), and end - start;
// differences wrap as two's complement does.
inline std::string pack_activations(const std::vector<PackedActivation>& activations) {
  std::string out;
  std::uint64_t event = 0, start = 0;
  for (const PackedActivation& a : activations) {
    packed_put(out, packed_zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.event) - event)));
    packed_put(out, packed_zigzag(a.thread));
    packed_put(out, packed_zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(a.start) - start)));
    packed_put(out, packed_zigzag(
                        static_cast<std::int64_t>(static_cast<std::uint64_t>(a.end) - static_cast<std::uint64_t>(a.start))));
    event = static_cast<std::uint64_t>(a.event);
    start = static_cast<std::uint64_t>(a.start);
  }
  return out;
}

inline std::vector<PackedActivation> unpack_activations(const std::string& blob, std::int64_t first_id) {
  std::vector<PackedActivation> out;
  std::size_t at = 0;
  const auto get = [&]() -> std::int64_t {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at >= blob.size()) throw std::runtime_error("blob ends in a varint");
      const auto b = static_cast<std::uint8_t>(blob[at++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return packed_unzigzag(v);
    }
    throw std::runtime_error("varint too long");
  };
  std::uint64_t event = 0, start = 0;
  while (at < blob.size()) {
    PackedActivation a;
    a.id = first_id + static_cast<std::int64_t>(out.size());
    event += static_cast<std::uint64_t>(get());
    a.event = static_cast<std::int64_t>(event);
    a.thread = get();
    start += static_cast<std::uint64_t>(get());
    a.start = static_cast<std::int64_t>(start);
    a.end = static_cast<std::int64_t>(start + static_cast<std::uint64_t>(get()));
    out.push_back(a);
  }
  return out;
}

// True when the main database has schema 6's activation_blocks.
inline bool has_packed_activations(sqlite3* db) {
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM main.sqlite_schema WHERE name = 'activation_blocks'", -1, &q,
                         nullptr) != SQLITE_OK)
    return false;
  const bool found = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  return found;
}

// Fills TEMP table `activations` from the main database's blocks.
inline void expose_activations(sqlite3* db) {
  packed_exec(db, "DROP TABLE IF EXISTS temp.activations; CREATE TEMP TABLE activations(id INTEGER PRIMARY KEY, "
                  "event INTEGER NOT NULL, thread INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL)");
  sqlite3_stmt* blocks = nullptr;
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT first_activation, activations FROM main.activation_blocks ORDER BY id", -1,
                         &blocks, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO temp.activations VALUES (?1, ?2, ?3, ?4, ?5)", -1, &insert, nullptr) !=
          SQLITE_OK) {
    sqlite3_finalize(blocks);
    throw std::runtime_error(sqlite3_errmsg(db));
  }
  while (sqlite3_step(blocks) == SQLITE_ROW) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(blocks, 1));
    const std::string blob(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(blocks, 1)));
    for (const PackedActivation& a : unpack_activations(blob, sqlite3_column_int64(blocks, 0))) {
      sqlite3_bind_int64(insert, 1, a.id);
      sqlite3_bind_int64(insert, 2, a.event);
      sqlite3_bind_int64(insert, 3, a.thread);
      sqlite3_bind_int64(insert, 4, a.start);
      sqlite3_bind_int64(insert, 5, a.end);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
  }
  sqlite3_finalize(blocks);
  sqlite3_finalize(insert);
}

// Runs `sql` on the activations of the database at `path` (as table
// `activations`) and packs every block back into it.
inline void edit_activations(const std::string& path, const std::string& sql) {
  with_writable(path, [&](sqlite3* db) {
    expose_activations(db);
    packed_exec(db, sql);
    sqlite3_stmt* blocks = nullptr;
    sqlite3_stmt* rows = nullptr;
    sqlite3_prepare_v2(db, "SELECT id, first_activation, last_activation FROM main.activation_blocks ORDER BY id",
                       -1, &blocks, nullptr);
    sqlite3_prepare_v2(db, "SELECT id, event, thread, start, end FROM temp.activations WHERE id BETWEEN ?1 AND ?2 "
                       "ORDER BY id", -1, &rows, nullptr);
    std::vector<std::pair<std::int64_t, std::string>> packed;
    while (sqlite3_step(blocks) == SQLITE_ROW) {
      sqlite3_bind_int64(rows, 1, sqlite3_column_int64(blocks, 1));
      sqlite3_bind_int64(rows, 2, sqlite3_column_int64(blocks, 2));
      std::vector<PackedActivation> activations;
      while (sqlite3_step(rows) == SQLITE_ROW) {
        for (int c = 0; c < 5; ++c)
          if (sqlite3_column_type(rows, c) != SQLITE_INTEGER)
            throw std::runtime_error("column " + std::to_string(c) + " is no integer: the encoding cannot hold it");
        activations.push_back({sqlite3_column_int64(rows, 0), sqlite3_column_int64(rows, 1),
                               sqlite3_column_int64(rows, 2), sqlite3_column_int64(rows, 3),
                               sqlite3_column_int64(rows, 4)});
      }
      sqlite3_reset(rows);
      packed.emplace_back(sqlite3_column_int64(blocks, 0), pack_activations(activations));
    }
    sqlite3_finalize(blocks);
    sqlite3_finalize(rows);
    write_blobs(db, "UPDATE main.activation_blocks SET activations = ?2 WHERE id = ?1", packed);
    packed_exec(db, "DROP TABLE temp.activations");
  });
}

}  // namespace skein::test
