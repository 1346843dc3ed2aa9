// store_value_check.cpp — meta's first_time and end_time are checked
// first, then each table in kChecks with one query, built from those fixed
// table and column names, whose WHERE clause is true for a row with any
// value out of range (LIMIT 1). The same predicates, selected beside each
// value's quote(), say which column it was. The predicates rely on SQLite's
// ordering: NULL compares as NULL and passes, text and blobs sort above
// every number and fail the upper bound.
#include "recorder/store/store_value_check.hpp"

#include <array>
#include <optional>
#include <string>

#include "recorder/format/record.hpp"

namespace skein {
namespace {

enum class Rule : std::uint8_t { time, thread };

struct ColumnCheck {
  std::string_view column;
  Rule rule;
};

struct TableCheck {
  std::string_view table;
  std::string_view row;  // an SQL expression naming the row in messages
  std::array<ColumnCheck, 7> columns;
  std::size_t count;
};

constexpr std::string_view kMaxTimeSql = "4611686018427387903";
static_assert(kMaxTime == 4611686018427387903, "kMaxTimeSql spells kMaxTime");

// True (1) for a value out of range; NULL, which compares as NULL, passes.
// Text and blobs compare greater than every number, so they fail the upper
// bound.
std::string predicate(const ColumnCheck& c) {
  const std::string col = "\"" + std::string(c.column) + "\"";
  switch (c.rule) {
    case Rule::time: return "(" + col + " < 0 OR " + col + " > " + std::string(kMaxTimeSql) + ")";
    case Rule::thread:
      return "(" + col + " < -9223372036854775807 OR " + col + " > 9223372036854775807)";
  }
  return "1";
}

std::string rule_text(Rule rule) {
  switch (rule) {
    case Rule::time: return "times are 0 to " + std::to_string(kMaxTime) + " ns";
    case Rule::thread: return "thread ids are -9223372036854775807 to 9223372036854775807";
  }
  return {};
}

// The columns that hold times and thread ids (SCHEMA.md). thread_spans is
// not read by Skein; anomalies and transfers, added by the lints, are read
// where they are used; the records packed in event_blocks are checked by
// their decoder as they are read (event_block_codec.hpp).
constexpr std::array<TableCheck, 4> kChecks = {{
    {"activations", "'activations row ' || id",
     {{{"thread", Rule::thread}, {"start", Rule::time}, {"end", Rule::time}}},
     3},
    {"threads", "'threads row ' || id",
     {{{"id", Rule::thread},
       {"parent", Rule::thread},
       {"merged_into", Rule::thread},
       {"created", Rule::time},
       {"first_run", Rule::time},
       {"resolved", Rule::time},
       {"run_time", Rule::time}}},
     7},
    {"counters", "'counter ' || quote(name) || ' at event ' || event", {{{"time", Rule::time}}}, 1},
    {"event_blocks", "'event_blocks row ' || id", {{{"start", Rule::time}, {"end", Rule::time}}}, 2},
}};

Diagnostic damaged(const SqliteDatabase& db, const std::string& why) {
  return file_error(db.name(), "damaged Skein database: " + why);
}

Status check_table(SqliteDatabase& db, const TableCheck& t) {
  std::string sql = "SELECT " + std::string(t.row);
  std::string where;
  for (std::size_t k = 0; k < t.count; ++k) {
    const std::string p = predicate(t.columns[k]);
    sql += ", " + p + ", quote(\"" + std::string(t.columns[k].column) + "\")";
    where += (k == 0 ? "" : " OR ") + p;
  }
  sql += " FROM " + std::string(t.table) + " WHERE " + where + " LIMIT 1";
  auto q = db.prepare(sql);
  if (!q) return q.error();
  auto row = q.value().step();
  if (!row) return row.error();
  if (!row.value()) return {};
  SqliteStatement& s = q.value();
  for (std::size_t k = 0; k < t.count; ++k) {
    const int at = 1 + 2 * static_cast<int>(k);
    if (s.is_null(at) || s.int64(at) == 0) continue;
    return damaged(db, std::string(s.text(0)) + ": " + std::string(t.columns[k].column) + " is " +
                           std::string(s.text(at + 1)) + " (" + rule_text(t.columns[k].rule) + ")");
  }
  return damaged(db, std::string(s.text(0)) + ": a value out of range");  // defensive: one predicate held
}

// meta's first_time and end_time size and map every picture of the trace.
Status check_meta_times(SqliteDatabase& db) {
  auto q = db.prepare(
      "SELECT key, typeof(value) = 'integer', quote(value), value FROM meta "
      "WHERE key IN ('first_time', 'end_time') ORDER BY key DESC");
  if (!q) return q.error();
  std::optional<TimeNs> first, end;
  const Status walked = q.value().for_each_row([&](SqliteStatement& s) -> Status {
    const std::string key(s.text(0));
    const bool integer = s.int64(1) != 0;
    const TimeNs value = integer ? s.int64(3) : 0;
    if (!integer || !is_valid_time(value))
      return damaged(db, "meta " + key + " is " + std::string(s.text(2)) + " (" + rule_text(Rule::time) + ")");
    (key == "first_time" ? first : end) = value;
    return {};
  });
  if (!walked.ok()) return walked;
  if (first && end && *first > *end)
    return damaged(db, "meta first_time " + std::to_string(*first) + " is after end_time " +
                           std::to_string(*end));
  return {};
}

}  // namespace

Status check_store_values(SqliteDatabase& db) {
  if (Status s = check_meta_times(db); !s.ok()) return s;
  for (const TableCheck& t : kChecks)
    if (Status s = check_table(db, t); !s.ok()) return s;
  return {};
}

}  // namespace skein
