// event_block_ranges.cpp — the binary search over the event blocks' ids
// (event_block_ranges.hpp): on event_block_reach, whose NULL latest_end
// comes before any time and NULL earliest_start after; on the blocks'
// own times, where a block without a timed record ends the search.
#include "recorder/store/event_block_ranges.hpp"

#include "recorder/store/derived_tables.hpp"

namespace skein {

Result<EventBlockRanges> EventBlockRanges::open(SqliteDatabase& db, bool times_rise) {
  EventBlockRanges b;
  auto last = db.prepare("SELECT max(id) FROM event_blocks");
  if (!last) return last.error();
  auto row = last.value().step();
  if (!row) return row.error();
  b.last_ = row.value() ? last.value().optional_int64(0).value_or(0) : 0;
  // The reach table holds a row per block, or it is not this import's.
  bool reach = defines_derived_table(db, kEventBlockReachTable);
  if (reach) {
    auto rows = db.prepare("SELECT max(id) FROM event_block_reach");
    if (!rows) return rows.error();
    auto r = rows.value().step();
    if (!r) return r.error();
    reach = r.value() && rows.value().optional_int64(0).value_or(0) == b.last_;
  }
  auto probe = db.prepare(reach ? "SELECT earliest_start, latest_end FROM event_block_reach WHERE id = ?1"
                                : "SELECT start, \"end\" FROM event_blocks WHERE id = ?1");
  if (!probe) return probe.error();
  b.probe_.emplace(std::move(probe).value());
  auto first_event = db.prepare(
      "SELECT min(first_event) FROM event_blocks WHERE id BETWEEN ?3 AND ?4 AND \"end\" >= ?1 AND start <= ?2");
  if (!first_event) return first_event.error();
  b.first_event_.emplace(std::move(first_event).value());
  auto last_event = db.prepare(
      "SELECT max(last_event) FROM event_blocks WHERE id BETWEEN ?3 AND ?4 AND \"end\" >= ?1 AND start <= ?2");
  if (!last_event) return last_event.error();
  b.last_event_.emplace(std::move(last_event).value());
  b.searchable_ = reach || times_rise;
  b.reach_ = reach;
  return b;
}

Result<std::pair<std::int64_t, std::int64_t>> EventBlockRanges::meeting(TimeNs from, TimeNs to) {
  if (!searchable_ || last_ < 1) return std::make_pair(std::int64_t{1}, last_);
  // The first block whose end reaches `from`, the last whose start is
  // not past `to`.
  auto first = search([&](std::optional<TimeNs>, std::optional<TimeNs> end) -> std::optional<bool> {
    if (!end) return reach_ ? std::optional<bool>(true) : std::nullopt;
    return *end < from;
  });
  if (!first) return first.error();
  auto after = search([&](std::optional<TimeNs> start, std::optional<TimeNs>) -> std::optional<bool> {
    if (!start) return reach_ ? std::optional<bool>(false) : std::nullopt;
    return *start <= to;
  });
  if (!after) return after.error();
  if (!first.value() || !after.value()) return std::make_pair(std::int64_t{1}, last_);
  return std::make_pair(*first.value(), *after.value() - 1);
}

Result<std::optional<std::pair<std::int64_t, std::int64_t>>> EventBlockRanges::events_meeting(TimeNs from,
                                                                                             TimeNs to) {
  using Events = std::optional<std::pair<std::int64_t, std::int64_t>>;
  auto blocks = meeting(from, to);
  if (!blocks) return blocks.error();
  const std::int64_t first_block = blocks.value().first, last_block = blocks.value().second;
  const auto ask = [&](SqliteStatement& q) -> Result<std::optional<std::int64_t>> {
    q.reset();
    q.bind(1, from);
    q.bind(2, to);
    q.bind(3, first_block);
    q.bind(4, last_block);
    auto row = q.step();
    if (!row) return row.error();
    const std::optional<std::int64_t> v = row.value() ? q.optional_int64(0) : std::nullopt;
    q.reset();
    return v;
  };
  auto first = ask(*first_event_);
  if (!first) return first.error();
  auto last = ask(*last_event_);
  if (!last) return last.error();
  if (!first.value() || !last.value()) return Events();
  return Events(std::make_pair(*first.value(), *last.value()));
}

template <class Before>
Result<std::optional<std::int64_t>> EventBlockRanges::search(Before&& before) {
  std::int64_t low = 1, high = last_ + 1;
  while (low < high) {
    const std::int64_t mid = low + (high - low) / 2;
    probe_->bind(1, mid);
    auto row = probe_->step();
    if (!row) return row.error();
    if (!row.value()) {
      probe_->reset();
      return std::optional<std::int64_t>();
    }
    const std::optional<bool> is_before = before(probe_->optional_int64(0), probe_->optional_int64(1));
    probe_->reset();
    if (!is_before) return std::optional<std::int64_t>();
    if (*is_before) low = mid + 1;
    else high = mid;
  }
  return std::optional<std::int64_t>(low);
}

}  // namespace skein
