// layout_cache.cpp — reading first checks that sqlite_schema defines
// layout_v2 with exactly our CREATE statement (derived_tables.hpp: a hostile
// file could make it a view), then reads it in thread order; a row out of
// int32 range, a step error or a row count other than thread_count means no
// cache. Writing is one write of the database's owner (trace_database.hpp):
// the table made empty, filled through one prepared INSERT, committed, or
// rolled back on any failure.
#include "viewer/timeline/layout_cache.hpp"

#include <algorithm>

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/trace_database.hpp"

namespace skein {

std::optional<std::vector<std::pair<ThreadId, std::int32_t>>> read_layout_cache(TraceStore& store,
                                                                                 std::size_t thread_count) {
  SqliteDatabase& db = store.database();
  // The table must be ours word for word: a hostile file could make it a
  // view that computes something else.
  if (!defines_derived_table(db, kLayoutTable)) return std::nullopt;
  auto q = db.prepare("SELECT thread, row FROM layout_v2 ORDER BY thread");
  if (!q) return std::nullopt;
  std::vector<std::pair<ThreadId, std::int32_t>> out;
  out.reserve(thread_count);
  bool rows_fit = true;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) {
    const std::int64_t r = row.int64(1);
    rows_fit = r >= 0 && r <= INT32_MAX;
    if (rows_fit) out.emplace_back(row.int64(0), static_cast<std::int32_t>(r));
    return rows_fit;
  });
  if (!walked.ok() || !rows_fit || out.size() != thread_count) return std::nullopt;
  return out;
}

Status write_layout_cache(TraceDatabase& database, const std::vector<std::pair<ThreadId, std::int32_t>>& rows) {
  auto write = database.begin_write(WriteDurability::rebuildable);
  if (!write) return write.error();
  SqliteDatabase& db = write.value().database();
  if (Status s = replace_derived_rows(db, kLayoutTable); !s.ok()) return s;
  // The rows' spans and extents hold the layout they were built with, and the run time
  // per bin and per heat-map cell the activations as placed on its rows.
  if (Status s = drop_older_table(db, kRowSpansTable); !s.ok()) return s;
  if (Status s = drop_older_table(db, kRowExtentsTable); !s.ok()) return s;
  if (Status s = drop_older_table(db, kActivityBinsTable); !s.ok()) return s;
  if (Status s = drop_older_table(db, kSubsecondBinsTable); !s.ok()) return s;
  auto insert = db.prepare("INSERT INTO layout_v2(thread, row) VALUES (?1, ?2)");
  if (!insert) return insert.error();
  std::int64_t row_count = 0;
  for (const auto& [thread, row] : rows) {
    row_count = std::max<std::int64_t>(row_count, std::int64_t{row} + 1);
    insert.value().bind(1, static_cast<std::int64_t>(thread));
    insert.value().bind(2, static_cast<std::int64_t>(row));
    if (Status s = insert.value().run(); !s.ok()) return s;
  }
  if (Status s = set_layout_row_count(db, row_count); !s.ok()) return s;
  return write.value().commit();
}

}  // namespace skein
