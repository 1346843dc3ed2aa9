// store_writer.cpp — create() opens a bulk-load connection, runs BEGIN and
// the schema, then prepares the statements reused throughout: multi-row
// INSERTs into activation_blocks (each block packed here as its last
// activation comes, the last one when the last activations do),
// counters and event_blocks, INSERT OR REPLACE into meta,
// INSERT into warnings. add_threads writes threads, the last activations
// and event blocks, sites, then UPDATEs heads; add_placement the packed
// thread_spans R*Tree and layout_v2. Threads, layout_v2 and the R*Tree's
// rowid and parent tables go in by key through RowidBulkInsert, so that
// dense ids cost no B-tree seek each.
// finish() stamps the schema, commits, and finalizes the statements before
// closing.
#include "recorder/store/store_writer.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <span>

#include "recorder/store/activation_block_codec.hpp"
#include "recorder/store/activations_table.hpp"
#include "recorder/store/bulk_insert.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/rtree_bulk_load.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "recorder/store/store_schema.hpp"

namespace skein {

// One activation_blocks row, packed, waiting for its INSERT.
struct ActivationBlockRow {
  std::int64_t id = 0;
  std::int64_t first = 0;
  std::int64_t last = 0;
  std::string activations;
};

struct StoreWriter::State {
  State(SqliteDatabase d, BulkInsert a, BulkInsert c, BulkInsert b, SqliteStatement m, SqliteStatement w)
      : db(std::move(d)),
        activations(std::move(a)),
        counters(std::move(c)),
        blocks(std::move(b)),
        meta(std::move(m)),
        warning(std::move(w)) {}

  SqliteDatabase db;
  // Optional only so that finish() can finalize them before closing db.
  std::optional<BulkInsert> activations;
  std::optional<BulkInsert> counters;
  std::optional<BulkInsert> blocks;
  std::optional<SqliteStatement> meta;
  std::optional<SqliteStatement> warning;
  std::uint64_t events_written = 0;
  // The block of activations being packed, and the activations added.
  ActivationBlockEncoder activation_block;
  std::int64_t activations_written = 0;
  std::vector<ActivationBlockRow> activation_rows;  // reused by each batch
  // Each block's first and last time (kNoTime: none), by id from 1, for
  // event_block_reach.
  std::vector<std::pair<TimeNs, TimeNs>> block_times;
  bool finished = false;
};

StoreWriter::StoreWriter(std::unique_ptr<State> s) : s_(std::move(s)) {}
StoreWriter::StoreWriter(StoreWriter&&) noexcept = default;
StoreWriter& StoreWriter::operator=(StoreWriter&&) noexcept = default;
StoreWriter::~StoreWriter() = default;

Result<StoreWriter> StoreWriter::create(const std::string& path, int page_size) {
  auto db = SqliteDatabase::create_for_bulk_load(path, page_size);
  if (!db) return db.error();
  SqliteDatabase& d = db.value();
  if (Status s = d.exec("BEGIN"); !s.ok()) return s.error();
  if (Status s = create_store_schema(d); !s.ok()) return s.error();
  auto activations =
      BulkInsert::prepare(d, "activation_blocks(id, first_activation, last_activation, activations)", 4);
  if (!activations) return activations.error();
  auto counters = BulkInsert::prepare(d, "counters(name, time, value, event)", 4);
  if (!counters) return counters.error();
  auto blocks = BulkInsert::prepare(
      d, "event_blocks(id, first_event, last_event, start, end, first_activation, last_activation, records)", 8);
  if (!blocks) return blocks.error();
  auto meta = d.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)");
  if (!meta) return meta.error();
  auto warning = d.prepare("INSERT INTO warnings(kind, event, message) VALUES (?1, ?2, ?3)");
  if (!warning) return warning.error();
  return StoreWriter(std::make_unique<State>(std::move(db).value(), std::move(activations).value(), std::move(counters).value(),
                                             std::move(blocks).value(), std::move(meta).value(),
                                             std::move(warning).value()));
}

Status StoreWriter::add_counters(const CounterRun& run) {
  const TextPool& names = run.names;
  return s_->counters->insert(run.rows, [&names](SqliteStatement& q, int p, const CounterRow& c) {
    q.bind(p, names.get(c.name));
    q.bind(p + 1, c.time);
    q.bind(p + 2, c.value);
    q.bind(p + 3, c.event);
  });
}

Status StoreWriter::add_activations(const std::vector<ActivationRow>& activations) {
  State& s = *s_;
  s.activation_rows.clear();
  for (const ActivationRow& a : activations) {
    // The blocks are cut by id: the activations must come numbered 1, 2, ...
    if (a.id != s.activations_written + 1)
      return file_error(s.db.name(), "internal error: activation " + std::to_string(a.id) + " after " +
                                         std::to_string(s.activations_written) + " activations");
    s.activation_block.add(a.event, a.thread, a.start, a.end);
    ++s.activations_written;
    if (s.activation_block.activations() == kActivationBlockSize) take_activation_block();
  }
  return write_activation_blocks();
}

void StoreWriter::take_activation_block() {
  State& s = *s_;
  const std::int64_t n = s.activation_block.activations();
  if (n == 0) return;
  const std::int64_t last = s.activations_written;
  s.activation_rows.push_back({activation_block_of(last), last - n + 1, last, s.activation_block.take()});
}

Status StoreWriter::write_activation_blocks() {
  State& s = *s_;
  Status written = s.activations->insert(s.activation_rows, [](SqliteStatement& q, int p, const ActivationBlockRow& b) {
    q.bind(p, b.id);
    q.bind(p + 1, b.first);
    q.bind(p + 2, b.last);
    q.bind_blob(p + 3, b.activations.data(), b.activations.size());
  });
  s.activation_rows.clear();
  return written;
}

Status StoreWriter::finish_activations() {
  take_activation_block();
  if (Status s = write_activation_blocks(); !s.ok()) return s;
  return set_meta(kActivationsKey, s_->activations_written);
}

namespace {

void bind_text(SqliteStatement& q, int p, const DerivedModel& m, TextId id) {
  if (id == kNoText) q.bind_null(p);
  else q.bind(p, m.text(id));
}
void bind_time(SqliteStatement& q, int p, TimeNs t) {
  if (t == kNoTime) q.bind_null(p);
  else q.bind(p, t);
}
void bind_id(SqliteStatement& q, int p, std::int64_t id) {
  if (id == 0) q.bind_null(p);
  else q.bind(p, id);
}

}  // namespace

namespace {

// The rows each thread is drawn on, placed by the derivation
// (DerivedModel::layout_rows), into `layout_v2` (derived_tables.hpp) in
// thread order, so that opening the database computes no layout.
Status add_layout(SqliteDatabase& db, const DerivedModel& m) {
  if (m.layout_rows.size() != m.threads.size())
    return file_error(db.name(), "internal error: " + std::to_string(m.layout_rows.size()) + " rows placed for " +
                                     std::to_string(m.threads.size()) + " threads");
  if (Status s = replace_derived_rows(db, kLayoutTable); !s.ok()) return s;
  auto rows = RowidBulkInsert::prepare(db, "layout_v2", "thread", "(row)", 1);
  if (!rows) return rows.error();
  std::vector<std::pair<ThreadId, std::int32_t>> placed(m.threads.size());
  std::int32_t row_count = 0;
  for (std::size_t i = 0; i < placed.size(); ++i) {
    placed[i] = {m.threads[i].id, m.layout_rows[i]};
    row_count = std::max(row_count, m.layout_rows[i] + 1);
  }
  if (Status s = set_layout_row_count(db, row_count); !s.ok()) return s;
  using Placed = std::pair<ThreadId, std::int32_t>;
  return rows.value().insert(
      std::span<const Placed>(placed), [](const Placed& r) { return static_cast<std::int64_t>(r.first); },
      [](SqliteStatement& q, int p, const Placed& r) { q.bind(p, static_cast<std::int64_t>(r.second)); });
}

}  // namespace

Status StoreWriter::add_block_reach() {
  // A block without a time leaves both bounds as they were: NULL before the
  // first timed block (latest_end) and after the last (earliest_start).
  const std::vector<std::pair<TimeNs, TimeNs>>& times = s_->block_times;
  struct Reach {
    std::int64_t id;
    TimeNs latest_end;
    TimeNs earliest_start;
  };
  std::vector<Reach> reach(times.size());
  TimeNs latest = kNoTime;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (times[i].second != kNoTime) latest = latest == kNoTime ? times[i].second : std::max(latest, times[i].second);
    reach[i] = Reach{static_cast<std::int64_t>(i) + 1, latest, kNoTime};
  }
  TimeNs earliest = kNoTime;
  for (std::size_t i = times.size(); i-- > 0;) {
    if (times[i].first != kNoTime)
      earliest = earliest == kNoTime ? times[i].first : std::min(earliest, times[i].first);
    reach[i].earliest_start = earliest;
  }
  SqliteDatabase& db = s_->db;
  if (Status s = replace_derived_rows(db, kEventBlockReachTable); !s.ok()) return s;
  auto rows = RowidBulkInsert::prepare(db, "event_block_reach", "id", "(latest_end, earliest_start)", 2);
  if (!rows) return rows.error();
  return rows.value().insert(
      std::span<const Reach>(reach), [](const Reach& r) { return r.id; },
      [](SqliteStatement& q, int p, const Reach& r) {
        bind_time(q, p, r.latest_end);
        bind_time(q, p + 1, r.earliest_start);
      });
}

Status StoreWriter::add_counter_ranges(const std::vector<CounterRange>& ranges) {
  SqliteDatabase& db = s_->db;
  if (Status s = replace_derived_rows(db, kCounterRangesTable); !s.ok()) return s;
  auto insert = db.prepare("INSERT INTO counter_ranges(name, min, max) VALUES (?1, ?2, ?3)");
  if (!insert) return insert.error();
  for (const CounterRange& r : ranges) {
    insert.value().bind(1, std::string_view(r.name));
    insert.value().bind(2, r.min);
    insert.value().bind(3, r.max);
    if (Status s = insert.value().run(); !s.ok()) return s;
  }
  return {};
}

Status StoreWriter::add_model(const DerivedModel& m) {
  if (Status s = add_threads(m); !s.ok()) return s;
  return add_placement(m);
}

Status StoreWriter::add_row_spans(const std::vector<RowSpanChunk>& chunks, TimeNs span) {
  return write_row_spans(s_->db, chunks, span);
}

Status StoreWriter::add_row_extents(const std::vector<RowExtent>& extents) {
  return write_row_extents(s_->db, extents);
}

Status StoreWriter::add_activity_bins(const ActivityBinning& binning, const std::vector<std::int64_t>& run_ns) {
  return write_activity_bins(s_->db, binning, run_ns);
}

Status StoreWriter::add_subsecond_bins(const ActivityBinning& binning, const std::vector<std::int64_t>& run_ns) {
  return write_subsecond_bins(s_->db, binning, run_ns);
}

Status StoreWriter::add_edge_bins(const EdgeBins& bins) { return write_edge_bins(s_->db, bins); }

Status StoreWriter::add_placement(const DerivedModel& m) {
  if (Status s = write_rtree(s_->db, "thread_spans", m.thread_spans); !s.ok()) return s;
  return add_layout(s_->db, m);
}

Status StoreWriter::add_threads(const DerivedModel& m) {
  SqliteDatabase& db = s_->db;

  auto threads = RowidBulkInsert::prepare(
      db, "threads", "id",
      "(parent, kind, site, label, created, first_run, resolved, outcome, failure, "
      "merged_into, run_time, implicit, first_event, last_event, first_activation, last_activation)",
      16);
  if (!threads) return threads.error();
  const auto thread_id = [](const ThreadRow& t) { return t.id; };
  if (Status s = threads.value().insert(std::span<const ThreadRow>(m.threads), thread_id,
                                        [&m](SqliteStatement& q, int p, const ThreadRow& t) {
                                          if (t.has_parent) q.bind(p, t.parent);
                                          else q.bind_null(p);
                                          bind_text(q, p + 1, m, t.kind);
                                          if (t.has_site) q.bind(p + 2, t.site);
                                          else q.bind_null(p + 2);
                                          bind_text(q, p + 3, m, t.label);
                                          q.bind(p + 4, t.created);
                                          bind_time(q, p + 5, t.first_run);
                                          bind_time(q, p + 6, t.resolved);
                                          if (t.resolved != kNoTime) q.bind(p + 7, outcome_name(t.outcome));
                                          else q.bind_null(p + 7);
                                          bind_text(q, p + 8, m, t.failure);
                                          if (t.merged) q.bind(p + 9, t.merged_into);
                                          else q.bind_null(p + 9);
                                          q.bind(p + 10, t.run_time);
                                          q.bind(p + 11, static_cast<std::int64_t>(t.implicit));
                                          q.bind(p + 12, t.first_event);
                                          q.bind(p + 13, t.last_event);
                                          bind_id(q, p + 14, t.first_activation);
                                          bind_id(q, p + 15, t.last_activation);
                                        });
      !s.ok())
    return s;

  auto labels = BulkInsert::prepare(db, "thread_labels(thread, position, label)", 3);
  if (!labels) return labels.error();
  if (Status s = labels.value().insert(m.thread_labels, [&m](SqliteStatement& q, int p, const ThreadLabelRow& r) {
        q.bind(p, r.thread);
        q.bind(p + 1, r.position);
        q.bind(p + 2, m.text(r.label));
      });
      !s.ok())
    return s;

  if (Status s = add_activations(m.activations); !s.ok()) return s;
  if (Status s = finish_activations(); !s.ok()) return s;
  if (Status s = add_blocks(m.blocks); !s.ok()) return s;
  if (Status s = add_block_reach(); !s.ok()) return s;

  auto sites = BulkInsert::prepare(db, "sites(id, file, line, function)", 4);
  if (!sites) return sites.error();
  if (Status s = sites.value().insert(m.sites, [&m](SqliteStatement& q, int p, const SiteRow& r) {
        q.bind(p, r.id);
        q.bind(p + 1, m.text(r.file));
        q.bind(p + 2, r.line);
        q.bind(p + 3, m.text(r.function));
      });
      !s.ok())
    return s;

  auto heads = db.prepare("UPDATE heads SET records = ?2 WHERE id = ?1");
  if (!heads) return heads.error();
  for (std::size_t i = 0; i < m.records_per_head.size(); ++i) {
    heads.value().bind(1, static_cast<std::int64_t>(i));
    heads.value().bind(2, static_cast<std::int64_t>(m.records_per_head[i]));
    if (Status s = heads.value().run(); !s.ok()) return s;
  }
  return {};
}

Status StoreWriter::add_blocks(const std::vector<EventBlockRow>& blocks) {
  for (const EventBlockRow& b : blocks) {
    // The readers find a record by its id through its block's: the blocks
    // must come whole and in order.
    if (b.first_event != static_cast<std::int64_t>(s_->events_written) + 1 ||
        b.id != event_block_of(b.first_event))
      return file_error(s_->db.name(), "internal error: event block " + std::to_string(b.id) + " of events " +
                                           std::to_string(b.first_event) + " after " +
                                           std::to_string(s_->events_written) + " events");
    // Every record has a byte or more: a block without its blob was never
    // packed (the parser and the derivation disagree on the blocks).
    if (b.records.empty())
      return file_error(s_->db.name(), "internal error: event block " + std::to_string(b.id) +
                                           " reached the writer without its records");
    s_->events_written = static_cast<std::uint64_t>(b.last_event);
    s_->block_times.emplace_back(b.start, b.end);
  }
  return s_->blocks->insert(blocks, [](SqliteStatement& q, int p, const EventBlockRow& b) {
    q.bind(p, b.id);
    q.bind(p + 1, b.first_event);
    q.bind(p + 2, b.last_event);
    bind_time(q, p + 3, b.start);
    bind_time(q, p + 4, b.end);
    bind_id(q, p + 5, b.first_activation);
    bind_id(q, p + 6, b.last_activation);
    q.bind_blob(p + 7, b.records.data(), b.records.size());
  });
}

Status StoreWriter::add_warning(std::string_view kind, std::optional<EventId> event,
                                std::string_view message) {
  SqliteStatement& q = *s_->warning;
  q.bind(1, kind);
  q.bind(2, event);
  q.bind(3, message);
  return q.run();
}

Status StoreWriter::set_meta(std::string_view key, std::int64_t value) {
  s_->meta->bind(1, key);
  s_->meta->bind(2, value);
  return s_->meta->run();
}

Status StoreWriter::set_meta(std::string_view key, std::string_view value) {
  s_->meta->bind(1, key);
  s_->meta->bind(2, value);
  return s_->meta->run();
}

Status StoreWriter::finish() {
  State& s = *s_;
  if (s.finished) return {};
  s.finished = true;
  if (Status st = stamp_store_schema(s.db); !st.ok()) return st;
  if (Status st = s.db.exec("COMMIT"); !st.ok()) return st;
  // Statements are finalized before the connection closes.
  s.activations.reset();
  s.counters.reset();
  s.blocks.reset();
  s.meta.reset();
  s.warning.reset();
  return s.db.close();
}

std::uint64_t StoreWriter::events_written() const { return s_->events_written; }

bool StoreWriter::out_of_memory() const {
  return s_->db.handle() != nullptr && (sqlite3_errcode(s_->db.handle()) & 0xff) == SQLITE_NOMEM;
}

}  // namespace skein
