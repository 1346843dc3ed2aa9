// row_extents.cpp — the rows' extents: one pass over the threads, one
// bulk insert in row order, one checked read (row_extents.hpp).
#include "recorder/store/row_extents.hpp"

#include <algorithm>

#include "recorder/store/bulk_insert.hpp"
#include "recorder/store/derived_tables.hpp"

namespace skein {

std::vector<RowExtent> build_row_extents(const std::vector<RowSpanThread>& threads) {
  std::int32_t rows = 0;
  for (const RowSpanThread& t : threads) rows = std::max(rows, t.row + 1);
  std::vector<RowExtent> by_row(static_cast<std::size_t>(rows));
  for (const RowSpanThread& t : threads) {
    if (t.row < 0) continue;
    RowExtent& e = by_row[static_cast<std::size_t>(t.row)];
    const TimeNs end = std::max(t.end, t.start);
    if (e.threads == 0) {
      e.first_start = t.start;
      e.last_end = end;
    } else {
      e.first_start = std::min(e.first_start, t.start);
      e.last_end = std::max(e.last_end, end);
    }
    ++e.threads;
    if (t.outcome == RowSpanOutcome::fail) ++e.failed;
  }
  std::vector<RowExtent> out;
  for (std::int32_t r = 0; r < rows; ++r) {
    RowExtent& e = by_row[static_cast<std::size_t>(r)];
    if (e.threads == 0) continue;
    e.row = r;
    out.push_back(e);
  }
  return out;
}

Status write_row_extents(SqliteDatabase& db, const std::vector<RowExtent>& extents) {
  if (Status s = replace_derived_rows(db, kRowExtentsTable); !s.ok()) return s;
  auto insert = RowidBulkInsert::prepare(db, "row_extents", "row", "(first_start, last_end, threads, failed)", 4);
  if (!insert) return insert.error();
  return insert.value().insert(
      std::span<const RowExtent>(extents), [](const RowExtent& e) { return static_cast<std::int64_t>(e.row); },
      [](SqliteStatement& q, int p, const RowExtent& e) {
        q.bind(p, static_cast<std::int64_t>(e.first_start));
        q.bind(p + 1, static_cast<std::int64_t>(e.last_end));
        q.bind(p + 2, e.threads);
        q.bind(p + 3, e.failed);
      });
}

Result<std::optional<std::vector<RowExtent>>> read_row_extents(SqliteDatabase& db) {
  using Extents = std::optional<std::vector<RowExtent>>;
  if (!defines_derived_table(db, kRowExtentsTable)) return Extents();
  const std::optional<std::int64_t> rows = read_meta_int(db, kLayoutRowsKey);
  if (!rows || *rows < 0 || *rows > INT32_MAX) return Extents();
  auto q = db.prepare("SELECT row, first_start, last_end, threads, failed FROM row_extents ORDER BY row");
  if (!q) return q.error();
  std::vector<RowExtent> out;
  Status failed;
  const Status walked = q.value().for_each_row([&](SqliteStatement& row) -> bool {
    for (int c = 0; c < 5; ++c)
      if (row.storage(c) != SqliteStatement::Storage::integer) {
        failed = file_error(db.name(), "damaged Skein database: row_extents row " + row.quoted(0) +
                                           ": a value that is not an integer");
        return false;
      }
    const std::int64_t r = row.int64(0);
    RowExtent e{static_cast<std::int32_t>(std::clamp<std::int64_t>(r, -1, INT32_MAX)), row.int64(1), row.int64(2),
                row.int64(3), row.int64(4)};
    if (r < 0 || r >= *rows || !is_valid_time(e.first_start) || !is_valid_time(e.last_end) ||
        e.first_start > e.last_end || e.threads < 1 || e.failed < 0 || e.failed > e.threads) {
      failed = file_error(db.name(), "damaged Skein database: row_extents row " + std::to_string(r) +
                                         ": an extent out of range (row " + std::to_string(r) + " of " +
                                         std::to_string(*rows) + ", " + std::to_string(e.first_start) + " to " +
                                         std::to_string(e.last_end) + ", " + std::to_string(e.threads) +
                                         " threads, " + std::to_string(e.failed) + " failed)");
      return false;
    }
    out.push_back(e);
    return true;
  });
  if (!walked.ok()) return walked.error();
  if (!failed.ok()) return failed.error();
  return Extents(std::move(out));
}

}  // namespace skein
