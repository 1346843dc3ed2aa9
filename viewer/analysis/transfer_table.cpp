// transfer_table.cpp — writing and reading the `transfer_blocks` table;
// the table and its verdicts are described in transfer_table.hpp, their
// bytes in transfer_block_codec.hpp.
#include "viewer/analysis/transfer_table.hpp"

#include <algorithm>
#include <utility>

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/store_value_check.hpp"

namespace skein {

TransferKind transfer_kind(const ControlTransfer& t) {
  if (t.hand_off) return TransferKind::hand_off;
  if (t.from == t.to && t.head == RecordHead::read && !t.explained()) return TransferKind::unresolved_read;
  return TransferKind::transfer;
}

Result<MergeGroups> merge_group_roots(SqliteDatabase& db) {
  MergeGroups groups;
  auto merges = db.prepare("SELECT id, merged_into FROM threads WHERE merged_into IS NOT NULL");
  if (!merges) return merges.error();
  const Status walked = merges.value().for_each_row([&](SqliteStatement& q) -> Status {
    CheckedValues v(q);
    const ThreadId a = v.thread(0, "id").value_or(kScheduler);
    const ThreadId b = v.thread(1, "merged_into").value_or(kScheduler);
    if (Status bad = v.verdict([&] { return "threads row " + std::string(q.text(0)); }); !bad.ok()) return bad;
    if (a != kScheduler && b != kScheduler) groups.merge(a, b);
    return {};
  });
  if (!walked.ok()) return walked.error();
  return groups;
}

std::optional<StoredTransfer> keyed_transfer(const ControlTransfer& t, MergeGroups& groups) {
  if (t.event <= 0 || t.to == kNoThread) return std::nullopt;
  StoredTransfer v;
  v.grp = t.to == kScheduler ? kScheduler : groups.root(t.to);
  v.event = t.event;
  v.kind = transfer_kind(t);
  v.thread = t.to;
  v.from = t.from;
  v.input = t.input;
  v.cause = t.cause;
  v.cause_event = t.cause_event;
  v.suspect = t.suspect;
  return v;
}

Status write_transfers(SqliteDatabase& db, std::vector<ControlTransfer> transfers, const std::string& schema) {
  auto groups = merge_group_roots(db);
  if (!groups) return groups.error();
  std::vector<StoredTransfer> rows;
  rows.reserve(transfers.size());
  for (const ControlTransfer& t : transfers)
    if (auto v = keyed_transfer(t, groups.value())) rows.push_back(*v);
  transfers = {};
  return write_transfers(db, std::move(rows), schema);
}

Status write_transfers(SqliteDatabase& db, std::vector<StoredTransfer> rows, const std::string& schema) {
  // `schema` is ours, never a trace's text: "" or an identifier we chose.
  if (Status s = replace_derived_rows(db, kTransferBlocksTable, schema); !s.ok()) return s;
  if (Status s = drop_older_table(db, kOlderTransfersTable, schema); !s.ok()) return s;
  const std::string prefix = schema.empty() ? std::string() : schema + ".";
  // In key order, the first of equal keys kept (as the replay gave them).
  std::stable_sort(rows.begin(), rows.end(), transfer_key_less);
  rows.erase(std::unique(rows.begin(), rows.end(),
                         [](const StoredTransfer& a, const StoredTransfer& b) {
                           return !transfer_key_less(a, b) && !transfer_key_less(b, a);
                         }),
             rows.end());
  auto insert = db.prepare("INSERT INTO " + prefix + "transfer_blocks(grp, first_event, verdicts) VALUES (?1, ?2, ?3)");
  if (!insert) return insert.error();
  SqliteStatement& q = insert.value();
  TransferBlockEncoder block;
  const auto flush = [&]() -> Status {
    const StoredTransfer first = block.first();
    const std::string blob = block.take();
    q.bind(1, static_cast<std::int64_t>(first.grp));
    q.bind(2, first.event);
    q.bind_blob(3, blob.data(), blob.size());
    return q.run();
  };
  for (const StoredTransfer& v : rows) {
    // A block ends only between two records: all verdicts of one (group,
    // record) are in the block a lookup of that key descends to.
    if (block.verdicts() >= kTransferBlockVerdicts && (v.grp != block.last().grp || v.event != block.last().event))
      if (Status s = flush(); !s.ok()) return s;
    block.add(v);
  }
  if (block.verdicts() > 0)
    if (Status s = flush(); !s.ok()) return s;
  return {};
}

Result<std::optional<TransferLookup>> TransferLookup::open(SqliteDatabase& db) {
  // The main database's table, or the temp schema's (write_transfers).
  auto exists =
      db.query_int("SELECT count(*) FROM pragma_table_list WHERE name = 'transfer_blocks' AND type = 'table'");
  if (!exists) return exists.error();
  if (exists.value() == 0) return std::optional<TransferLookup>();
  auto ours = has_derived_columns(db, kTransferBlocksTable);
  if (!ours) return ours.error();
  if (!ours.value()) return std::optional<TransferLookup>();
  // Row values compare the key as a whole: each is one descent of the
  // primary key.
  auto containing = db.prepare(
      "SELECT grp, first_event, verdicts FROM transfer_blocks WHERE (grp, first_event) <= (?1, ?2) "
      "ORDER BY grp DESC, first_event DESC LIMIT 1");
  if (!containing) return containing.error();
  auto before = db.prepare(
      "SELECT grp, first_event, verdicts FROM transfer_blocks WHERE (grp, first_event) < (?1, ?2) "
      "ORDER BY grp DESC, first_event DESC LIMIT 1");
  if (!before) return before.error();
  auto after = db.prepare(
      "SELECT grp, first_event, verdicts FROM transfer_blocks WHERE (grp, first_event) > (?1, ?2) "
      "ORDER BY grp, first_event LIMIT 1");
  if (!after) return after.error();
  return std::optional<TransferLookup>(TransferLookup(db.name(), std::move(containing).value(),
                                                      std::move(before).value(), std::move(after).value()));
}

Result<bool> TransferLookup::find(SqliteStatement& q, ThreadId grp, std::int64_t event, Block& into) {
  q.bind(1, static_cast<std::int64_t>(grp));
  q.bind(2, event);
  auto row = q.step();
  if (!row) {
    q.reset();
    return row.error();
  }
  if (!row.value()) {
    q.reset();
    return false;
  }
  into.grp = q.int64(0);
  into.first_event = q.int64(1);
  const TransferBlockPlace place{database_, into.grp, into.first_event};
  Status decoded = q.is_blob(2) ? decode_transfer_block(q.blob(2), place, into.verdicts)
                                : file_error(database_, "damaged Skein database: transfer_blocks row (grp " +
                                                            std::to_string(into.grp) + ", first_event " +
                                                            std::to_string(into.first_event) + "): no blob");
  q.reset();
  if (!decoded.ok()) return decoded.error();
  return true;
}

Result<bool> TransferLookup::containing(ThreadId grp, std::int64_t event, Block& into) {
  if (last_) {
    const StoredTransfer& first = last_->verdicts.front();
    const StoredTransfer& last = last_->verdicts.back();
    if (std::pair(first.grp, first.event) <= std::pair(grp, event) &&
        std::pair(grp, event) <= std::pair(last.grp, last.event)) {
      into = *last_;
      return true;
    }
  }
  auto found = find(containing_, grp, event, into);
  if (found && found.value()) last_ = into;
  return found;
}

Result<bool> TransferLookup::neighbour(bool later, const Block& b, Block& into) {
  auto found = find(later ? after_ : before_, b.grp, b.first_event, into);
  if (!found || !found.value()) return found;
  // Blocks hold disjoint runs of keys, in the order of their rows' keys.
  const bool in_order = later ? transfer_key_less(b.verdicts.back(), into.verdicts.front())
                              : transfer_key_less(into.verdicts.back(), b.verdicts.front());
  if (!in_order)
    return file_error(database_, "damaged Skein database: transfer_blocks row (grp " + std::to_string(into.grp) +
                                     ", first_event " + std::to_string(into.first_event) +
                                     "): verdicts overlap a neighbouring row's");
  return true;
}

Result<std::optional<StoredTransfer>> TransferLookup::at(ThreadId grp, std::int64_t event, TransferKind kind) {
  Block b;
  auto found = containing(grp, event, b);
  if (!found) return found.error();
  if (!found.value()) return std::optional<StoredTransfer>();
  for (const StoredTransfer& v : b.verdicts)
    if (v.grp == grp && v.event == event && v.kind == kind) return std::optional<StoredTransfer>(v);
  return std::optional<StoredTransfer>();
}

Result<std::optional<StoredTransfer>> TransferLookup::latest_to(ThreadId grp, std::int64_t event) {
  Block b;
  auto found = containing(grp, event, b);
  if (!found) return found.error();
  if (!found.value()) return std::optional<StoredTransfer>();
  for (;;) {
    for (auto it = b.verdicts.rbegin(); it != b.verdicts.rend(); ++it) {
      if (it->grp > grp || (it->grp == grp && it->event > event)) continue;
      if (it->grp < grp) return std::optional<StoredTransfer>();
      if (it->kind == TransferKind::transfer) return std::optional<StoredTransfer>(*it);
    }
    // Every verdict of this block is of the group: it may go on before.
    Block previous;
    auto more = neighbour(false, b, previous);
    if (!more) return more.error();
    if (!more.value()) return std::optional<StoredTransfer>();
    b = std::move(previous);
  }
}

Result<std::optional<StoredTransfer>> TransferLookup::next_to(ThreadId grp, std::int64_t event) {
  Block b;
  auto found = containing(grp, event, b);
  if (!found) return found.error();
  if (!found.value()) {
    found = find(after_, grp, event, b);
    if (!found) return found.error();
    if (!found.value()) return std::optional<StoredTransfer>();
  }
  for (;;) {
    for (const StoredTransfer& v : b.verdicts) {
      if (v.grp < grp || (v.grp == grp && v.event <= event)) continue;
      if (v.grp > grp) return std::optional<StoredTransfer>();
      if (v.kind == TransferKind::transfer) return std::optional<StoredTransfer>(v);
    }
    Block next;
    auto more = neighbour(true, b, next);
    if (!more) return more.error();
    if (!more.value()) return std::optional<StoredTransfer>();
    b = std::move(next);
  }
}

}  // namespace skein
