// thread_label_lists.hpp — the labels of the threads that have several, as
// the import keeps them (thread_labels, SCHEMA.md), read in two sizes:
//   - for the rows, at open: each such thread's row text (its first
//     kRowLabelsShown labels joined by " · ", then " · +N more") and how
//     many it has. The table is walked thread by thread; a thread with more
//     than kRowLabelsShown rows is skipped past with two seeks, so the cost
//     is O(threads with several × log n), whatever their labels' number: a
//     thread labelled a million times costs as much as one labelled four.
//   - whole, when asked: one thread's list (its details), or every list in
//     thread order (the search index), read from the database then.
// A damaged table is read as it is, in key order: a thread's rows are its
// list, a thread of one row has none (its `threads.label` is all), and a
// count is the larger of its rows seen and its last position plus one.
// Thread ids are checked as read (store_value_check.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/format/record.hpp"
#include "recorder/store/sqlite_database.hpp"

namespace skein {

// A thread's row shows at most this many of its distinct labels, then
// "+N more": a thread labelled a million times gets a row text of a few
// labels, not megabytes.
inline constexpr std::size_t kRowLabelsShown = 3;

struct RowLabels {
  std::vector<std::pair<ThreadId, std::string>> row_texts;  // by thread id
  std::unordered_map<ThreadId, std::uint32_t> counts;       // of each thread in row_texts
};

// The row text of a thread whose first labels are `first` (at most
// kRowLabelsShown of them) and which has `count` in all.
[[nodiscard]] std::string row_label_text(const std::vector<std::string>& first, std::uint64_t count);

[[nodiscard]] Result<RowLabels> read_row_labels(SqliteDatabase& db);
// Every label of `thread`, in order; empty when it has fewer than two.
[[nodiscard]] Result<std::vector<std::string>> read_thread_label_list(SqliteDatabase& db, ThreadId thread);
// on_list(thread, its labels) for each thread with two or more, in thread
// order.
[[nodiscard]] Status for_each_thread_label_list(
    SqliteDatabase& db, const std::function<void(ThreadId, std::vector<std::string>&&)>& on_list);

}  // namespace skein
