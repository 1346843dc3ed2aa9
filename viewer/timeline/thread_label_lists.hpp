// thread_label_lists.hpp — the labels of the threads that have several, as
// the import keeps them (thread_labels, SCHEMA.md), read in two sizes:
//   - for the rows, at open: each such thread's row text (its first
//     kRowLabelsShown labels joined by " · ", then " · +N more") and how
//     many it has. The table is walked thread by thread; a thread with more
//     than kRowLabelsShown rows is skipped past with two seeks, so the cost
//     is O(threads with several × log n), whatever their labels' number: a
//     thread labelled a million times costs as much as one labelled four.
//   - whole: every such thread's list, in one walk of the table in key
//     order. skein-view reads them on its analysis worker after the first
//     frame (trace_analysis.hpp); a thread's details and the search use
//     them once they are in.
// A damaged table is read as it is, in key order: a thread's rows are its
// list, a thread of one row has none (its `threads.label` is all), and a
// count is the larger of its rows seen and its last position plus one.
// Thread ids are checked as read (store_value_check.hpp).
#pragma once

#include <cstdint>
#include <optional>
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

// Every distinct label, in the order first given, of each thread that has
// two or more.
using ThreadLabelLists = std::unordered_map<ThreadId, std::vector<std::string>>;

struct RowLabels {
  std::vector<std::pair<ThreadId, std::string>> row_texts;  // by thread id
  std::unordered_map<ThreadId, std::uint32_t> counts;       // of each thread in row_texts
};

// The row text of a thread whose first labels are `first` (at most
// kRowLabelsShown of them) and which has `count` in all.
[[nodiscard]] std::string row_label_text(const std::vector<std::string>& first, std::uint64_t count);

[[nodiscard]] Result<RowLabels> read_row_labels(SqliteDatabase& db);
// One thread's row text and label count, as read_row_labels gives them
// (nullopt: fewer than two labels), by at most kRowLabelsShown + 1 rows and
// one seek.
struct RowLabel {
  std::string text;
  std::uint32_t count = 0;
};
[[nodiscard]] Result<std::optional<RowLabel>> read_row_label(SqliteDatabase& db, ThreadId thread);
// Every list, by thread id.
[[nodiscard]] Result<ThreadLabelLists> read_thread_label_lists(SqliteDatabase& db);

}  // namespace skein
