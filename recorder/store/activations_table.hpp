// activations_table.hpp — the `activations` table read in id order, which
// is start order (SCHEMA.md): one row per time a thread ran, from the
// switch to it to the switch away. Each row's thread, start and end are
// checked as read (store_value_check.hpp); a row out of the limits stops
// the walk with "FILE: damaged Skein database: activations row N: …" and
// the caller sees it as the walk's error. An end before its start is the
// caller's to clamp: the table does not promise it, and nothing here
// computes with the two together.
#pragma once

#include <type_traits>

#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"
#include <cstdint>
#include <limits>
#include <utility>

#include "recorder/store/store_value_check.hpp"

namespace skein {

struct StoredActivation {
  ThreadId thread = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

// Calls on_activation(const StoredActivation&) for each row with an id in
// [first, last], in id order (a range of the key: only those rows are
// read). on_activation returns void, or Status to stop the walk with an
// error.
template <class OnActivation>
[[nodiscard]] Status for_each_activation(SqliteDatabase& db, std::int64_t first, std::int64_t last,
                                         OnActivation&& on_activation) {
  auto q = db.prepare("SELECT thread, start, \"end\", id FROM activations WHERE id BETWEEN ?1 AND ?2 ORDER BY id");
  if (!q) return q.error();
  q.value().bind(1, first);
  q.value().bind(2, last);
  return q.value().for_each_row([&](SqliteStatement& row) -> Status {
    CheckedValues v(row);
    const StoredActivation a{v.thread(0, "thread").value_or(0), v.time(1, "start").value_or(0),
                             v.time(2, "end").value_or(0)};
    if (Status s = v.verdict([&] { return "activations row " + std::string(row.text(3)); }); !s.ok()) return s;
    if constexpr (std::is_void_v<decltype(on_activation(a))>) {
      on_activation(a);
      return {};
    } else {
      return on_activation(a);
    }
  });
}

// Every row, in id order.
template <class OnActivation>
[[nodiscard]] Status for_each_activation(SqliteDatabase& db, OnActivation&& on_activation) {
  return for_each_activation(db, std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                             std::forward<OnActivation>(on_activation));
}

}  // namespace skein
