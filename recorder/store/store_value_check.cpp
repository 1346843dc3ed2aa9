// store_value_check.cpp — CheckedValues tests each value's storage class
// first: an integer is compared as it is; a real is compared against the
// exact powers of two that bound the range (2^62 for times, ±2^63 for ids,
// both exact in a double) before it is truncated, so no conversion
// overflows; text and blobs fail. The first fault is kept with its value
// quoted by SQLite while the statement is still on the row.
#include "recorder/store/store_value_check.hpp"

namespace skein {
namespace {

constexpr double kTimeBound = 4611686018427387904.0;  // 2^62 = kMaxTime + 1
constexpr double kIdBound = 9223372036854775808.0;    // 2^63
static_assert(static_cast<TimeNs>(kTimeBound) - 1 == kMaxTime, "kTimeBound is kMaxTime + 1");

std::string_view rule_text_time() { return "times are 0 to 4611686018427387903 ns"; }
std::string_view rule_text_thread() { return "thread ids are -9223372036854775807 to 9223372036854775807"; }

Diagnostic damaged(const std::string& file, const std::string& why) {
  return file_error(file, "damaged Skein database: " + why);
}

}  // namespace

std::optional<std::int64_t> CheckedValues::checked(int column, std::string_view name, Rule rule) {
  using Storage = SqliteStatement::Storage;
  switch (row_.storage(column)) {
    case Storage::null: return std::nullopt;
    case Storage::integer: {
      const std::int64_t v = row_.int64(column);
      if (rule == Rule::time ? is_valid_time(v) : is_valid_thread_id(v)) return v;
      break;
    }
    case Storage::real: {
      // Times: [0, 2^62). Ids: strictly inside ±2^63, so that truncated
      // they give an int64 other than -2^63.
      const double d = row_.real(column);
      if (rule == Rule::time ? d >= 0 && d < kTimeBound : d > -kIdBound && d < kIdBound)
        return static_cast<std::int64_t>(d);
      break;
    }
    case Storage::text:
    case Storage::blob: break;
  }
  out_of_range(column, name, rule);
  return std::nullopt;
}

void CheckedValues::out_of_range(int column, std::string_view name, Rule rule) {
  if (fault_) return;
  fault_ = Fault{name, rule, row_.quoted(column)};
}

Status CheckedValues::fault(const std::string& row) const {
  return damaged(row_.database_name(), row + ": " + std::string(fault_->name) + " is " + fault_->value + " (" +
                                           std::string(fault_->rule == Rule::time ? rule_text_time()
                                                                                  : rule_text_thread()) +
                                           ")");
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
      return damaged(db.name(), "meta " + key + " is " + std::string(s.text(2)) + " (" +
                                    std::string(rule_text_time()) + ")");
    (key == "first_time" ? first : end) = value;
    return {};
  });
  if (!walked.ok()) return walked;
  if (first && end && *first > *end)
    return damaged(db.name(), "meta first_time " + std::to_string(*first) + " is after end_time " +
                                  std::to_string(*end));
  return {};
}

}  // namespace skein
