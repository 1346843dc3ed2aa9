// packed_events.hpp — the records of a trace database as a table again, for
// tests: a decoder and an encoder of event_blocks.records written here from
// SCHEMA.md's description of the encoding, not from
// recorder/store/event_block_codec.hpp, so that tests comparing the store's
// records with what they expect do not take the store's word for what its
// blobs hold.
//
// expose_events(handle) fills a TEMP table `events(id, time, head, actor,
// target, value, text)`, one row per record, NULL for an absent field: the
// shape of the events table that schema 3 had, so a test's `SELECT ... FROM events`
// reads the records it always read. edit_events(path, sql) runs `sql`
// (UPDATEs of `events`) on that table and packs every block back, which is
// how a test damages a record. The encoder writes what it is given,
// whatever its range (a head past 19, a time past kMaxTime), so the
// decoder's refusals can be tested; a value the encoding cannot hold at all
// (a text where a thread id goes, a head past 31) is refused here.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace skein::test {

struct PackedEvent {
  std::int64_t id = 0;
  std::optional<std::int64_t> time, actor, target, value;
  std::int64_t head = 0;
  std::optional<std::string> text;
};

inline std::uint64_t packed_zigzag(std::int64_t n) {
  return (static_cast<std::uint64_t>(n) << 1) ^ static_cast<std::uint64_t>(n >> 63);
}
inline std::int64_t packed_unzigzag(std::uint64_t z) {
  return static_cast<std::int64_t>(z >> 1) ^ -static_cast<std::int64_t>(z & 1);
}

inline void packed_put(std::string& out, std::uint64_t v) {
  do {
    std::uint8_t b = v & 0x7f;
    v >>= 7;
    if (v != 0) b |= 0x80;
    out.push_back(static_cast<char>(b));
  } while (v != 0);
}

// SCHEMA.md, "event_blocks": a byte of head and time/actor/target flags, a
// byte of value/text flags, the time as the difference from the block's
// previous timed record (wrapping, as two's complement does), the actor,
// target and value zigzag varints, the text as length and bytes.
inline std::string pack_events(const std::vector<PackedEvent>& events) {
  std::string out;
  std::uint64_t previous = 0;
  for (const PackedEvent& e : events) {
    if (e.head < 0 || e.head > 31) throw std::runtime_error("head " + std::to_string(e.head) + " does not fit 5 bits");
    out.push_back(static_cast<char>(e.head | (e.time ? 0x20 : 0) | (e.actor ? 0x40 : 0) | (e.target ? 0x80 : 0)));
    out.push_back(static_cast<char>((e.value ? 1 : 0) | (e.text ? 2 : 0)));
    if (e.time) {
      packed_put(out, packed_zigzag(static_cast<std::int64_t>(static_cast<std::uint64_t>(*e.time) - previous)));
      previous = static_cast<std::uint64_t>(*e.time);
    }
    if (e.actor) packed_put(out, packed_zigzag(*e.actor));
    if (e.target) packed_put(out, packed_zigzag(*e.target));
    if (e.value) packed_put(out, packed_zigzag(*e.value));
    if (e.text) {
      packed_put(out, e.text->size());
      out += *e.text;
    }
  }
  return out;
}

inline std::vector<PackedEvent> unpack_events(const std::string& blob, std::int64_t first_id) {
  std::vector<PackedEvent> out;
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
  std::uint64_t time = 0;
  while (at < blob.size()) {
    if (at + 2 > blob.size()) throw std::runtime_error("blob ends in a record's flags");
    const auto first = static_cast<std::uint8_t>(blob[at]);
    const auto second = static_cast<std::uint8_t>(blob[at + 1]);
    at += 2;
    PackedEvent e;
    e.id = first_id + static_cast<std::int64_t>(out.size());
    e.head = first & 0x1f;
    if (first & 0x20) {
      time += static_cast<std::uint64_t>(packed_unzigzag(get()));
      e.time = static_cast<std::int64_t>(time);
    }
    if (first & 0x40) e.actor = packed_unzigzag(get());
    if (first & 0x80) e.target = packed_unzigzag(get());
    if (second & 1) e.value = packed_unzigzag(get());
    if (second & 2) {
      const std::uint64_t n = get();
      if (n > blob.size() - at) throw std::runtime_error("text past the blob");
      e.text = blob.substr(at, static_cast<std::size_t>(n));
      at += static_cast<std::size_t>(n);
    }
    out.push_back(std::move(e));
  }
  return out;
}

inline void packed_exec(sqlite3* db, const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string m = message != nullptr ? message : "?";
    sqlite3_free(message);
    throw std::runtime_error(sql + ": " + m);
  }
}

// True when the main database has schema 4's event_blocks.records.
inline bool has_packed_events(sqlite3* db) {
  sqlite3_stmt* q = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('event_blocks') WHERE name = 'records'", -1, &q,
                         nullptr) != SQLITE_OK)
    return false;
  const bool found = sqlite3_step(q) == SQLITE_ROW;
  sqlite3_finalize(q);
  return found;
}

// Fills TEMP table `events` from the main database's blocks.
inline void expose_events(sqlite3* db) {
  packed_exec(db, "DROP TABLE IF EXISTS temp.events; CREATE TEMP TABLE events(id INTEGER PRIMARY KEY, time INTEGER, "
                  "head INTEGER NOT NULL, actor INTEGER, target INTEGER, value INTEGER, text TEXT)");
  sqlite3_stmt* blocks = nullptr;
  sqlite3_stmt* insert = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT first_event, records FROM main.event_blocks ORDER BY id", -1, &blocks,
                         nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(db, "INSERT INTO temp.events VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)", -1, &insert,
                         nullptr) != SQLITE_OK) {
    sqlite3_finalize(blocks);
    throw std::runtime_error(sqlite3_errmsg(db));
  }
  const auto bind = [&](int i, const std::optional<std::int64_t>& v) {
    if (v) sqlite3_bind_int64(insert, i, *v);
    else sqlite3_bind_null(insert, i);
  };
  while (sqlite3_step(blocks) == SQLITE_ROW) {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(blocks, 1));
    const std::string blob(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(blocks, 1)));
    for (const PackedEvent& e : unpack_events(blob, sqlite3_column_int64(blocks, 0))) {
      sqlite3_bind_int64(insert, 1, e.id);
      bind(2, e.time);
      sqlite3_bind_int64(insert, 3, e.head);
      bind(4, e.actor);
      bind(5, e.target);
      bind(6, e.value);
      if (e.text) sqlite3_bind_text(insert, 7, e.text->data(), static_cast<int>(e.text->size()), SQLITE_TRANSIENT);
      else sqlite3_bind_null(insert, 7);
      sqlite3_step(insert);
      sqlite3_reset(insert);
    }
  }
  sqlite3_finalize(blocks);
  sqlite3_finalize(insert);
}

// Opens the database at `path` read-write, calls edit(handle), and closes
// it, also when edit throws.
template <class Edit>
void with_writable(const std::string& path, Edit&& edit) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    sqlite3_close(db);
    throw std::runtime_error("cannot open " + path);
  }
  try {
    edit(db);
  } catch (...) {
    sqlite3_close_v2(db);
    throw;
  }
  sqlite3_close(db);
}

// Runs `update_sql` (?1 a block's id, ?2 its blob) for each block of
// `packed`.
inline void write_blobs(sqlite3* db, const char* update_sql,
                        const std::vector<std::pair<std::int64_t, std::string>>& packed) {
  sqlite3_stmt* update = nullptr;
  if (sqlite3_prepare_v2(db, update_sql, -1, &update, nullptr) != SQLITE_OK)
    throw std::runtime_error(sqlite3_errmsg(db));
  for (const auto& [id, blob] : packed) {
    sqlite3_bind_int64(update, 1, id);
    sqlite3_bind_blob(update, 2, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    sqlite3_step(update);
    sqlite3_reset(update);
  }
  sqlite3_finalize(update);
}

// Runs `sql` on the records of the database at `path` (as table `events`)
// and packs every block back into it.
inline void edit_events(const std::string& path, const std::string& sql) {
  with_writable(path, [&](sqlite3* db) {
    expose_events(db);
    packed_exec(db, sql);
    sqlite3_stmt* blocks = nullptr;
    sqlite3_stmt* rows = nullptr;
    sqlite3_prepare_v2(db, "SELECT id, first_event, last_event FROM main.event_blocks ORDER BY id", -1, &blocks,
                       nullptr);
    sqlite3_prepare_v2(db, "SELECT id, time, head, actor, target, value, text FROM temp.events "
                       "WHERE id BETWEEN ?1 AND ?2 ORDER BY id", -1, &rows, nullptr);
    const auto opt = [&](int c) -> std::optional<std::int64_t> {
      if (sqlite3_column_type(rows, c) == SQLITE_NULL) return std::nullopt;
      if (sqlite3_column_type(rows, c) != SQLITE_INTEGER)
        throw std::runtime_error("column " + std::to_string(c) + " is no integer: the encoding cannot hold it");
      return sqlite3_column_int64(rows, c);
    };
    std::vector<std::pair<std::int64_t, std::string>> packed;
    while (sqlite3_step(blocks) == SQLITE_ROW) {
      sqlite3_bind_int64(rows, 1, sqlite3_column_int64(blocks, 1));
      sqlite3_bind_int64(rows, 2, sqlite3_column_int64(blocks, 2));
      std::vector<PackedEvent> events;
      while (sqlite3_step(rows) == SQLITE_ROW) {
        PackedEvent e;
        e.id = sqlite3_column_int64(rows, 0);
        e.time = opt(1);
        e.head = *opt(2);
        e.actor = opt(3);
        e.target = opt(4);
        e.value = opt(5);
        if (sqlite3_column_type(rows, 6) != SQLITE_NULL)
          e.text = std::string(reinterpret_cast<const char*>(sqlite3_column_text(rows, 6)),
                               static_cast<std::size_t>(sqlite3_column_bytes(rows, 6)));
        events.push_back(std::move(e));
      }
      sqlite3_reset(rows);
      packed.emplace_back(sqlite3_column_int64(blocks, 0), pack_events(events));
    }
    sqlite3_finalize(blocks);
    sqlite3_finalize(rows);
    write_blobs(db, "UPDATE main.event_blocks SET records = ?2 WHERE id = ?1", packed);
    packed_exec(db, "DROP TABLE temp.events");
  });
}

}  // namespace skein::test
