// thread_label_lists.cpp — read_row_labels() steps through thread_labels in
// key order from a thread on (WHERE thread > ?1). A thread's first
// kRowLabelsShown rows are its row's labels; at a row beyond them it asks
// the thread's last position (one seek on the key) and starts the walk
// again after that thread (another), so no thread's further labels are
// read. The lists read whole walk the key in order.
#include "viewer/timeline/thread_label_lists.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "recorder/store/store_value_check.hpp"

namespace skein {
namespace {

// The row's thread, checked; the error names the row by its key.
Result<ThreadId> checked_thread(const SqliteStatement& q, int thread_column, int position_column) {
  CheckedValues v(q);
  const ThreadId t = v.thread(thread_column, "thread").value_or(0);
  if (Status bad = v.verdict([&] {
        return "thread_labels row (thread " + q.quoted(thread_column) + ", position " + q.quoted(position_column) +
               ")";
      });
      !bad.ok())
    return bad.error();
  return t;
}

}  // namespace

std::string row_label_text(const std::vector<std::string>& first, std::uint64_t count) {
  std::string shown;
  for (std::size_t d = 0; d < std::min(first.size(), kRowLabelsShown); ++d) shown += (d == 0 ? "" : " · ") + first[d];
  if (count > kRowLabelsShown) shown += " · +" + std::to_string(count - kRowLabelsShown) + " more";
  return shown;
}

Result<RowLabels> read_row_labels(SqliteDatabase& db) {
  auto walk = db.prepare("SELECT thread, label, position FROM thread_labels WHERE thread > ?1 ORDER BY thread, position");
  if (!walk) return walk.error();
  auto last = db.prepare("SELECT max(position) FROM thread_labels WHERE thread = ?1");
  if (!last) return last.error();
  SqliteStatement& q = walk.value();
  RowLabels out;
  std::optional<ThreadId> thread;
  std::vector<std::string> first;
  std::uint64_t rows = 0;
  const auto close = [&](std::uint64_t count) {
    if (thread && count >= 2) {
      out.row_texts.emplace_back(*thread, row_label_text(first, count));
      out.counts[*thread] = static_cast<std::uint32_t>(std::min<std::uint64_t>(count, UINT32_MAX));
    }
    first.clear();
    rows = 0;
  };
  // Every thread id is above -2^63, the one no thread has.
  q.bind(1, std::numeric_limits<std::int64_t>::min());
  for (;;) {
    auto row = q.step();
    if (!row) return row.error();
    if (!row.value()) break;
    auto t = checked_thread(q, 0, 2);
    if (!t) return t.error();
    if (thread != t.value()) {
      close(rows);
      thread = t.value();
    }
    ++rows;
    if (rows <= kRowLabelsShown) {
      first.emplace_back(q.text(1));
      continue;
    }
    // Beyond what the row shows: the count from the last position, then on
    // after this thread.
    SqliteStatement& l = last.value();
    l.bind(1, static_cast<std::int64_t>(*thread));
    auto top = l.step();
    if (!top) return top.error();
    const std::optional<std::int64_t> position = top.value() ? l.optional_int64(0) : std::nullopt;
    l.reset();
    std::uint64_t count = rows;
    if (position && *position >= 0 && *position < std::numeric_limits<std::int64_t>::max())
      count = std::max<std::uint64_t>(count, static_cast<std::uint64_t>(*position) + 1);
    close(count);
    q.reset();
    q.bind(1, static_cast<std::int64_t>(*thread));
    thread.reset();
  }
  close(rows);
  q.reset();
  return out;
}

Result<std::optional<RowLabel>> read_row_label(SqliteDatabase& db, ThreadId thread) {
  auto first = db.prepare("SELECT thread, label, position FROM thread_labels WHERE thread = ?1 ORDER BY position LIMIT ?2");
  if (!first) return first.error();
  first.value().bind(1, static_cast<std::int64_t>(thread));
  first.value().bind(2, static_cast<std::int64_t>(kRowLabelsShown + 1));
  std::vector<std::string> labels;
  if (Status s = first.value().for_each_row([&](SqliteStatement& q) -> Status {
        if (auto t = checked_thread(q, 0, 2); !t) return t.error();
        labels.emplace_back(q.text(1));
        return {};
      });
      !s.ok())
    return s.error();
  if (labels.size() < 2) return std::optional<RowLabel>();
  std::uint64_t count = labels.size();
  if (labels.size() > kRowLabelsShown) {
    auto last = db.prepare("SELECT max(position) FROM thread_labels WHERE thread = ?1");
    if (!last) return last.error();
    last.value().bind(1, static_cast<std::int64_t>(thread));
    auto top = last.value().step();
    if (!top) return top.error();
    const std::optional<std::int64_t> position = top.value() ? last.value().optional_int64(0) : std::nullopt;
    if (position && *position >= 0 && *position < std::numeric_limits<std::int64_t>::max())
      count = std::max<std::uint64_t>(count, static_cast<std::uint64_t>(*position) + 1);
    labels.resize(kRowLabelsShown);
  }
  return std::optional<RowLabel>(
      RowLabel{row_label_text(labels, count), static_cast<std::uint32_t>(std::min<std::uint64_t>(count, UINT32_MAX))});
}

Result<ThreadLabelLists> read_thread_label_lists(SqliteDatabase& db) {
  ThreadLabelLists lists;
  std::optional<ThreadId> thread;
  std::vector<std::string> list;
  const auto close = [&] {
    if (thread && list.size() >= 2) lists.emplace(*thread, std::move(list));
    list = {};
  };
  if (Status s = db.for_each_row("SELECT thread, label, position FROM thread_labels ORDER BY thread, position",
                                 [&](SqliteStatement& q) -> Status {
                                   auto t = checked_thread(q, 0, 2);
                                   if (!t) return t.error();
                                   if (thread != t.value()) {
                                     close();
                                     thread = t.value();
                                   }
                                   list.emplace_back(q.text(1));
                                   return {};
                                 });
      !s.ok())
    return s.error();
  close();
  return lists;
}

}  // namespace skein
