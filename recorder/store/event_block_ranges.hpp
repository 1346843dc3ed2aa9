// event_block_ranges.hpp — which event blocks, and which events, may
// meet a time range, found without reading the blocks: a binary search
// over the block ids, one row read a step, on event_block_reach (the
// import writes it; its bounds rise with the id whatever the trace's times
// do), else on the blocks' own times when the trace's times never go
// backwards (then every block's start and end rise with its id); else
// every block, and the caller's time tests decide. Scanning the blocks
// would read a page per block (each row holds its records), 100,000 pages
// at 100M records.
//
// The answer is a superset: a block meeting the range may hold records
// outside it, and the caller tests each record's time.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

class EventBlockRanges {
 public:
  // `times_rise`: the trace's times never went backwards (meta
  // warnings.time-backwards is 0), which a database without
  // event_block_reach needs for a search.
  [[nodiscard]] static Result<EventBlockRanges> open(SqliteDatabase& db, bool times_rise);
  // The block ids [first, last] that may meet [from, to] (first > last:
  // none).
  [[nodiscard]] Result<std::pair<std::int64_t, std::int64_t>> meeting(TimeNs from, TimeNs to);
  // The event ids [first, last] of those blocks that meet [from, to] by
  // their own start and end; nullopt when none does.
  [[nodiscard]] Result<std::optional<std::pair<std::int64_t, std::int64_t>>> events_meeting(TimeNs from, TimeNs to);

 private:
  EventBlockRanges() = default;
  // The first id in 1..last_ + 1 for which `before` is false (it must be
  // true then false along the ids); nullopt when `before` cannot tell.
  template <class Before>
  Result<std::optional<std::int64_t>> search(Before&& before);

  std::int64_t last_ = 0;
  bool searchable_ = false;
  bool reach_ = false;
  std::optional<SqliteStatement> probe_;
  std::optional<SqliteStatement> first_event_;
  std::optional<SqliteStatement> last_event_;
};

}  // namespace skein
