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
#include "recorder/store/store_value_check.hpp"

namespace skein {

struct StoredActivation {
  ThreadId thread = 0;
  TimeNs start = 0;
  TimeNs end = 0;
};

// Calls on_activation(const StoredActivation&) for each row, in id order.
// on_activation returns void, or Status to stop the walk with an error.
template <class OnActivation>
[[nodiscard]] Status for_each_activation(SqliteDatabase& db, OnActivation&& on_activation) {
  return db.for_each_row("SELECT thread, start, \"end\", id FROM activations ORDER BY id",
                         [&](SqliteStatement& q) -> Status {
                           CheckedValues v(q);
                           const StoredActivation a{v.thread(0, "thread").value_or(0), v.time(1, "start").value_or(0),
                                                    v.time(2, "end").value_or(0)};
                           if (Status s = v.verdict([&] { return "activations row " + std::string(q.text(3)); });
                               !s.ok())
                             return s;
                           if constexpr (std::is_void_v<decltype(on_activation(a))>) {
                             on_activation(a);
                             return {};
                           } else {
                             return on_activation(a);
                           }
                         });
}

}  // namespace skein
