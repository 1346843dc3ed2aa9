// transfer_table.cpp — writing and reading the `transfers` table; the
// table and its rows are described in transfer_table.hpp.
#include "viewer/analysis/transfer_table.hpp"

#include <algorithm>

#include "recorder/store/derived_tables.hpp"

namespace skein {
namespace {

constexpr int kCauseCount = static_cast<int>(kControlCauseCount);

std::optional<std::int64_t> thread_or_null(ThreadId t) {
  return t == kNoThread ? std::nullopt : std::optional<std::int64_t>(t);
}

}  // namespace

TransferKind transfer_kind(const ControlTransfer& t) {
  if (t.hand_off) return TransferKind::hand_off;
  if (t.from == t.to && t.head == RecordHead::read && !t.explained()) return TransferKind::unresolved_read;
  return TransferKind::transfer;
}

Result<MergeGroups> merge_group_roots(SqliteDatabase& db) {
  MergeGroups groups;
  auto merges = db.prepare("SELECT id, merged_into FROM threads WHERE merged_into IS NOT NULL");
  if (!merges) return merges.error();
  const Status walked = merges.value().for_each_row([&](SqliteStatement&) {
    const ThreadId a = merges.value().int64(0);
    const ThreadId b = merges.value().int64(1);
    if (a != kScheduler && b != kScheduler) groups.merge(a, b);
  });
  if (!walked.ok()) return walked.error();
  return groups;
}

Status write_transfers(SqliteDatabase& db, std::vector<ControlTransfer> transfers, const std::string& schema) {
  // `schema` is ours, never a trace's text: "" or an identifier we chose.
  if (Status s = replace_derived_rows(db, kTransfersTable, schema); !s.ok()) return s;
  const std::string prefix = schema.empty() ? std::string() : schema + ".";
  auto groups = merge_group_roots(db);
  if (!groups) return groups.error();
  // In key order: the group, then the record, then the kind.
  struct Keyed {
    ThreadId grp;
    const ControlTransfer* t;
  };
  std::vector<Keyed> rows;
  rows.reserve(transfers.size());
  for (const ControlTransfer& t : transfers) {
    if (t.event <= 0 || t.to == kNoThread) continue;
    rows.push_back(Keyed{t.to == kScheduler ? kScheduler : groups.value().root(t.to), &t});
  }
  std::sort(rows.begin(), rows.end(), [](const Keyed& a, const Keyed& b) {
    if (a.grp != b.grp) return a.grp < b.grp;
    if (a.t->event != b.t->event) return a.t->event < b.t->event;
    return transfer_kind(*a.t) < transfer_kind(*b.t);
  });
  auto insert = db.prepare("INSERT OR IGNORE INTO " + prefix +
                           "transfers(grp, event, kind, thread, from_thread, input, cause, cause_event, suspect) "
                           "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
  if (!insert) return insert.error();
  SqliteStatement& q = insert.value();
  for (const Keyed& k : rows) {
    const ControlTransfer& t = *k.t;
    q.bind(1, static_cast<std::int64_t>(k.grp));
    q.bind(2, t.event);
    q.bind(3, static_cast<std::int64_t>(transfer_kind(t)));
    q.bind(4, static_cast<std::int64_t>(t.to));
    q.bind(5, thread_or_null(t.from));
    q.bind(6, thread_or_null(t.input));
    q.bind(7, static_cast<std::int64_t>(t.cause));
    q.bind(8, t.cause_event != 0 ? std::optional<std::int64_t>(t.cause_event) : std::nullopt);
    q.bind(9, thread_or_null(t.suspect));
    if (Status s = q.run(); !s.ok()) return s;
  }
  return {};
}

Result<std::optional<TransferLookup>> TransferLookup::open(SqliteDatabase& db) {
  // The main database's table, or the temp schema's (write_transfers).
  auto exists = db.query_int("SELECT count(*) FROM pragma_table_list WHERE name = 'transfers' AND type = 'table'");
  if (!exists) return exists.error();
  if (exists.value() == 0) return std::optional<TransferLookup>();
  auto ours = has_derived_columns(db, kTransfersTable);
  if (!ours) return ours.error();
  if (!ours.value()) return std::optional<TransferLookup>();
  auto at = db.prepare(
      "SELECT event, kind, thread, from_thread, input, cause, cause_event, suspect FROM transfers "
      "WHERE grp = ?1 AND event = ?2 AND kind = ?3");
  if (!at) return at.error();
  auto back = db.prepare(
      "SELECT event, kind, thread, from_thread, input, cause, cause_event, suspect FROM transfers "
      "WHERE grp = ?1 AND event <= ?2 AND kind = 0 ORDER BY event DESC LIMIT 1");
  if (!back) return back.error();
  auto next = db.prepare(
      "SELECT event, kind, thread, from_thread, input, cause, cause_event, suspect FROM transfers "
      "WHERE grp = ?1 AND event > ?2 AND kind = 0 ORDER BY event LIMIT 1");
  if (!next) return next.error();
  return std::optional<TransferLookup>(
      TransferLookup(std::move(at).value(), std::move(back).value(), std::move(next).value()));
}

Result<std::optional<StoredTransfer>> TransferLookup::first_row(SqliteStatement& q, ThreadId grp, std::int64_t event) {
  q.bind(1, static_cast<std::int64_t>(grp));
  q.bind(2, event);
  auto row = q.step();
  if (!row) {
    q.reset();
    return row.error();
  }
  std::optional<StoredTransfer> out;
  if (row.value()) out = read_row(q);
  q.reset();
  return out;
}

Result<std::optional<StoredTransfer>> TransferLookup::latest_to(ThreadId grp, std::int64_t event) {
  return first_row(back_, grp, event);
}

Result<std::optional<StoredTransfer>> TransferLookup::next_to(ThreadId grp, std::int64_t event) {
  return first_row(next_, grp, event);
}

Result<std::optional<StoredTransfer>> TransferLookup::at(ThreadId grp, std::int64_t event, TransferKind kind) {
  at_.bind(1, static_cast<std::int64_t>(grp));
  at_.bind(2, event);
  at_.bind(3, static_cast<std::int64_t>(kind));
  auto row = at_.step();
  if (!row) {
    at_.reset();
    return row.error();
  }
  std::optional<StoredTransfer> out;
  if (row.value()) out = read_row(at_);
  at_.reset();
  return out;
}

StoredTransfer TransferLookup::read_row(const SqliteStatement& q) {
  StoredTransfer t;
  t.event = q.int64(0);
  const std::int64_t kind = q.int64(1);
  t.kind = kind >= 0 && kind <= 2 ? static_cast<TransferKind>(kind) : TransferKind::transfer;
  t.thread = q.int64(2);
  t.from = q.optional_int64(3).value_or(kNoThread);
  t.input = q.optional_int64(4).value_or(kNoThread);
  const std::int64_t cause = q.int64(5);
  t.cause = cause >= 0 && cause < kCauseCount ? static_cast<ControlCause>(cause) : ControlCause::unexplained;
  t.cause_event = q.optional_int64(6).value_or(0);
  t.suspect = q.optional_int64(7).value_or(kNoThread);
  return t;
}

}  // namespace skein
