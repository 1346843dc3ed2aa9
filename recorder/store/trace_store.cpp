// trace_store.cpp — open() is the owner's (trace_database.cpp), which runs
// open_untrusted and the schema check, and builds a store only if both
// pass. Each accessor prepares its own SELECT and reads every row into
// plain structs (threads, sites, warnings and heads ordered by id, meta by
// key); threads' ids and times are checked as read (store_value_check.hpp).
// meta_int matches only integer-typed values; the meta_* lookups return nullopt on any error.
// thread_counts sums with total(), which returns reals, read back as counts.
#include "recorder/store/trace_store.hpp"

#include "recorder/store/derived_tables.hpp"
#include "recorder/store/store_value_check.hpp"
#include "recorder/store/trace_database.hpp"

namespace skein {

Result<TraceStore> TraceStore::open(const std::string& path) { return TraceDatabase::open(path); }

std::optional<std::string> TraceStore::meta_text(std::string_view key) {
  auto q = db_.prepare("SELECT value FROM meta WHERE key = ?1");
  if (!q) return std::nullopt;
  q.value().bind(1, key);
  auto row = q.value().step();
  if (!row || !row.value()) return std::nullopt;
  return q.value().optional_text(0);
}

std::optional<std::int64_t> TraceStore::meta_int(std::string_view key) { return read_meta_int(db_, key); }

Result<std::vector<std::pair<std::string, std::string>>> TraceStore::meta() {
  auto q = db_.prepare("SELECT key, CAST(value AS TEXT) FROM meta ORDER BY key");
  if (!q) return q.error();
  std::vector<std::pair<std::string, std::string>> out;
  const Status walked = q.value().for_each_row([&](SqliteStatement&) {
    out.emplace_back(std::string(q.value().text(0)), std::string(q.value().text(1)));
  });
  if (!walked.ok()) return walked.error();
  return out;
}

Result<std::vector<HeadCount>> TraceStore::record_counts() {
  auto q = db_.prepare("SELECT name, records FROM heads ORDER BY id");
  if (!q) return q.error();
  std::vector<HeadCount> out;
  const Status walked = q.value().for_each_row([&](SqliteStatement&) {
    out.push_back(HeadCount{std::string(q.value().text(0)), static_cast<std::uint64_t>(q.value().int64(1))});
  });
  if (!walked.ok()) return walked.error();
  return out;
}

Result<std::vector<StoredThread>> TraceStore::threads() {
  auto q = db_.prepare(
      "SELECT id, parent, kind, site, label, created, first_run, resolved, outcome, failure, "
      "merged_into, run_time, implicit FROM threads ORDER BY id");
  if (!q) return q.error();
  SqliteStatement& s = q.value();
  std::vector<StoredThread> out;
  const Status walked = s.for_each_row([&](SqliteStatement&) -> Status {
    CheckedValues v(s);
    StoredThread t;
    t.id = v.thread(0, "id").value_or(0);
    t.parent = v.thread(1, "parent");
    t.kind = s.optional_text(2);
    t.site = s.optional_int64(3);
    t.label = s.optional_text(4);
    t.created = v.time(5, "created").value_or(0);
    t.first_run = v.time(6, "first_run");
    t.resolved = v.time(7, "resolved");
    t.outcome = s.optional_text(8);
    t.failure = s.optional_text(9);
    t.merged_into = v.thread(10, "merged_into");
    t.run_time = v.time(11, "run_time").value_or(0);
    t.implicit = s.int64(12) != 0;
    if (Status bad = v.verdict([&] { return "threads row " + std::string(s.text(0)); }); !bad.ok()) return bad;
    out.push_back(std::move(t));
    return {};
  });
  if (!walked.ok()) return walked.error();
  return out;
}

Result<ThreadCounts> TraceStore::thread_counts() {
  auto q = db_.prepare(
      "SELECT count(*), total(implicit), total(outcome = 'fail'), total(outcome = 'cancel'), "
      "total(resolved IS NULL), total(merged_into IS NOT NULL) FROM threads");
  if (!q) return q.error();
  auto row = q.value().step();
  if (!row) return row.error();
  const auto n = [&](int c) { return static_cast<std::uint64_t>(q.value().real(c)); };
  return ThreadCounts{static_cast<std::uint64_t>(q.value().int64(0)), n(1), n(2), n(3), n(4), n(5)};
}

Result<std::vector<StoredSite>> TraceStore::sites() {
  auto q = db_.prepare("SELECT id, file, line, function FROM sites ORDER BY id");
  if (!q) return q.error();
  std::vector<StoredSite> out;
  const Status walked = q.value().for_each_row([&](SqliteStatement&) {
    out.push_back(StoredSite{q.value().int64(0), std::string(q.value().text(1)), q.value().int64(2),
                             std::string(q.value().text(3))});
  });
  if (!walked.ok()) return walked.error();
  return out;
}

Result<std::vector<StoredWarning>> TraceStore::warnings() {
  auto q = db_.prepare("SELECT kind, event, message FROM warnings ORDER BY id");
  if (!q) return q.error();
  std::vector<StoredWarning> out;
  const Status walked = q.value().for_each_row([&](SqliteStatement&) {
    out.push_back(StoredWarning{std::string(q.value().text(0)), q.value().optional_int64(1),
                                std::string(q.value().text(2))});
  });
  if (!walked.ok()) return walked.error();
  return out;
}

}  // namespace skein
