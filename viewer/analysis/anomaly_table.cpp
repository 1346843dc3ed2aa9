// anomaly_table.cpp — writes a lint's findings and transfers into an existing
// trace database, in one write of its owner (trace_database.hpp: BEGIN
// IMMEDIATE on the file the lint read, rolled back unless committed), so a
// store changes all or nothing. The `findings` and `finding_texts` tables
// are made empty (derived_tables.hpp: created when absent, refused when a
// table of that name has other columns) and the `anomalies` view defined,
// then the findings are rewritten through one prepared INSERT, numbered
// from 1 in report order as they are read (from memory or their spools:
// lint_run.hpp), and the texts they name and their blocks' index after
// them.
#include "viewer/analysis/anomaly_table.hpp"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "recorder/format/checked_arithmetic.hpp"
#include "recorder/store/derived_tables.hpp"
#include "recorder/store/sqlite_database.hpp"
#include "viewer/analysis/finding_message_template.hpp"
#include "viewer/analysis/transfer_table.hpp"

namespace skein {
namespace {

// Each distinct text once: its id in finding_texts, from 1 in order of
// first use.
class TextIds {
 public:
  std::int64_t id(std::string_view text) {
    auto [it, added] = ids_.try_emplace(std::string(text), static_cast<std::int64_t>(ids_.size()) + 1);
    if (added) order_.push_back(&it->first);
    return it->second;
  }
  [[nodiscard]] const std::vector<const std::string*>& in_order() const { return order_; }

 private:
  std::unordered_map<std::string, std::int64_t> ids_;
  std::vector<const std::string*> order_;
};

// The block range index over the findings as numbered
// (kFindingBlocksTable), gathered as they are written: each block's
// earliest and latest time.
class FindingBlocks {
 public:
  void add(std::int64_t number, TimeNs time) {
    if ((number - 1) % kFindingBlockSize == 0) blocks_.push_back(Block{number, number, time, time});
    Block& b = blocks_.back();
    b.last = number;
    b.start = std::min(b.start, time);
    b.end = std::max(b.end, time);
  }
  Status write(SqliteDatabase& db) const {
    auto insert = db.prepare(
        "INSERT INTO finding_blocks(id, first_finding, last_finding, start, \"end\") VALUES (?1, ?2, ?3, ?4, ?5)");
    if (!insert) return insert.error();
    std::int64_t id = 0;
    for (const Block& b : blocks_) {
      SqliteStatement& q = insert.value();
      q.bind(1, ++id);
      q.bind(2, b.first);
      q.bind(3, b.last);
      q.bind(4, static_cast<std::int64_t>(b.start));
      q.bind(5, static_cast<std::int64_t>(b.end));
      if (Status s = q.run(); !s.ok()) return s;
    }
    return {};
  }

 private:
  struct Block {
    std::int64_t first = 0;
    std::int64_t last = 0;
    TimeNs start = 0;
    TimeNs end = 0;
  };
  std::vector<Block> blocks_;
};

Status write_findings(SqliteDatabase& db, const LintReport& report) {
  if (Status s = replace_derived_rows(db, kFindingsTable); !s.ok()) return s;
  if (Status s = replace_derived_rows(db, kFindingTextsTable); !s.ok()) return s;
  if (Status s = replace_derived_rows(db, kFindingBlocksTable); !s.ok()) return s;
  if (Status s = define_anomalies_view(db); !s.ok()) return s;
  auto insert = db.prepare(
      "INSERT INTO findings(id, rule, severity, time, thread, from_thread, suspect, event, grouping, message, "
      "a1, a2, a3, a4) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)");
  if (!insert) return insert.error();
  SqliteStatement& q = insert.value();
  TextIds texts;
  FindingBlocks blocks;
  std::int64_t number = 0;
  Status written;
  const Status read = for_each_finding(report, [&](const LintFinding& f) {
    const MessageTemplate message = split_message(f.message);
    q.bind(1, ++number);
    q.bind(2, texts.id(lint_rule_name(f.rule)));
    q.bind(3, texts.id(lint_severity_name(f.severity)));
    q.bind(4, static_cast<std::int64_t>(f.time));
    q.bind(5, static_cast<std::int64_t>(f.thread));
    q.bind(6, f.from);
    q.bind(7, f.suspect);
    q.bind(8, f.event);
    if (f.group.empty()) q.bind_null(9);
    else q.bind(9, texts.id(f.group));
    q.bind(10, texts.id(message.text));
    for (std::size_t a = 0; a < kMessageArguments; ++a) q.bind(static_cast<int>(11 + a), message.arguments[a]);
    written = q.run();
    blocks.add(number, f.time);
    return written.ok();
  });
  if (!read.ok()) return read;
  if (!written.ok()) return written;
  if (Status s = blocks.write(db); !s.ok()) return s;
  auto text = db.prepare("INSERT INTO finding_texts(id, text) VALUES (?1, ?2)");
  if (!text) return text.error();
  std::int64_t id = 0;
  for (const std::string* t : texts.in_order()) {
    text.value().bind(1, ++id);
    text.value().bind(2, std::string_view(*t));
    if (Status s = text.value().run(); !s.ok()) return s;
  }
  return {};
}

}  // namespace

Status store_lint_report(TraceDatabase& database, const LintReport& report, WriteDurability durability) {
  auto write = database.begin_write(durability);
  if (!write) return write.error();
  SqliteDatabase& db = write.value().database();
  if (Status s = write_findings(db, report); !s.ok()) return s;
  if (!report.transfers.empty())
    if (Status s = write_transfers(db, report.transfers); !s.ok()) return s;
  if (!report.keyed_transfers.empty())
    if (Status s = write_transfers(db, report.keyed_transfers); !s.ok()) return s;
  return write.value().commit();
}

Status store_transfers(TraceDatabase& database, std::vector<ControlTransfer> transfers, WriteDurability durability) {
  auto write = database.begin_write(durability);
  if (!write) return write.error();
  if (Status s = write_transfers(write.value().database(), std::move(transfers)); !s.ok()) return s;
  return write.value().commit();
}

Status store_transfers(TraceDatabase& database, std::vector<StoredTransfer> transfers, WriteDurability durability) {
  auto write = database.begin_write(durability);
  if (!write) return write.error();
  if (Status s = write_transfers(write.value().database(), std::move(transfers)); !s.ok()) return s;
  return write.value().commit();
}

namespace {

// Both tables of the findings, with Skein's columns.
Result<bool> has_interned_findings(SqliteDatabase& db) {
  auto findings = has_derived_columns(db, kFindingsTable);
  if (!findings || !findings.value()) return findings;
  return has_derived_columns(db, kFindingTextsTable);
}

// The findings as the view's tables hold them. A row that names a text the
// table lacks, or whose template is not one split_message writes, or whose
// time is past the format's limits, is skipped: it cannot be shown true.
// The finding ids [first, last] whose blocks meet [from, to], adjacent
// ranges joined; nullopt when there is no block index of ours.
std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> finding_ranges(SqliteDatabase& db, TimeNs from,
                                                                                   TimeNs to) {
  auto ours = has_derived_columns(db, kFindingBlocksTable);
  if (!ours || !ours.value()) return std::nullopt;
  auto q = db.prepare("SELECT first_finding, last_finding FROM finding_blocks WHERE \"end\" >= ?1 AND start <= ?2 "
                      "ORDER BY id");
  if (!q) return std::nullopt;
  q.value().bind(1, static_cast<std::int64_t>(from));
  q.value().bind(2, static_cast<std::int64_t>(to));
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  const Status s = q.value().for_each_row([&](SqliteStatement& row) {
    const std::int64_t first = row.int64(0), last = row.int64(1);
    if (!ranges.empty() && ranges.back().second != INT64_MAX && first == ranges.back().second + 1)
      ranges.back().second = last;
    else
      ranges.emplace_back(first, last);
  });
  if (!s.ok()) return std::nullopt;
  return ranges;
}

// The findings, all of them or (window set) those with a time in it.
std::vector<StoredFinding> read_interned_findings(SqliteDatabase& db,
                                                  std::optional<std::pair<TimeNs, TimeNs>> window = std::nullopt) {
  std::unordered_map<std::int64_t, std::string> texts;
  if (!db.for_each_row("SELECT id, text FROM finding_texts",
                       [&](SqliteStatement& q) { texts.emplace(q.int64(0), q.optional_text(1).value_or("")); })
           .ok())
    return {};
  const auto text_of = [&](const std::optional<std::int64_t>& id) -> const std::string* {
    if (!id) return nullptr;
    const auto it = texts.find(*id);
    return it == texts.end() ? nullptr : &it->second;
  };
  // Each distinct (rule, severity, grouping, message) of text ids is
  // looked up and its template checked once: null when it cannot be shown.
  struct Key {
    std::int64_t rule, severity, grouping, message;
    bool grouped;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<std::int64_t>{}(k.rule);
      for (const std::int64_t v : {k.severity, k.grouping, k.message})
        h = h * 1000003u ^ std::hash<std::int64_t>{}(v);
      return h ^ static_cast<std::size_t>(k.grouped);
    }
  };
  std::unordered_map<Key, std::shared_ptr<const FindingWording>, KeyHash> wordings;
  FindingWordings interned;
  std::vector<StoredFinding> found;
  const auto on_row = [&](SqliteStatement& q) {
        if (q.is_null(3) || !is_valid_time(q.int64(3))) return;
        const auto rule_id = q.optional_int64(1), severity_id = q.optional_int64(2), message_id = q.optional_int64(9);
        const std::optional<std::int64_t> grouping_id = q.optional_int64(8);
        if (!rule_id || !severity_id || !message_id) return;
        const Key key{*rule_id, *severity_id, grouping_id.value_or(0), *message_id, grouping_id.has_value()};
        auto [at, added] = wordings.try_emplace(key);
        if (added) {
          const std::string* rule = text_of(rule_id);
          const std::string* severity = text_of(severity_id);
          const std::string* message = text_of(message_id);
          const std::string* grouping = text_of(grouping_id);
          if (rule && severity && message && (!grouping_id || grouping))
            at->second = interned.intern(*rule, *severity, grouping ? *grouping : std::string(), *message)
                             .value_or(nullptr);
        }
        if (!at->second) return;
        std::array<std::optional<std::int64_t>, kMessageArguments> arguments;
        for (std::size_t a = 0; a < kMessageArguments; ++a) arguments[a] = q.optional_int64(static_cast<int>(10 + a));
        const auto fitted = fitted_arguments(at->second->shape, arguments);
        if (!fitted) return;
        StoredFinding f;
        f.wording = at->second;
        f.arguments = *fitted;
        f.number = q.optional_int64(0).value_or(0);
        f.time = q.int64(3);
        f.thread = q.optional_int64(4);
        f.from = q.optional_int64(5);
        f.suspect = q.optional_int64(6);
        f.event = q.optional_int64(7).value_or(-1);
        found.push_back(std::move(f));
      };
  constexpr std::string_view kColumns =
      "SELECT id, rule, severity, time, thread, from_thread, suspect, event, grouping, message, a1, a2, a3, a4 "
      "FROM findings";
  // A window: the ranges of ids its blocks give, each row's time tested
  // too; without a block index, every row's time.
  std::optional<std::vector<std::pair<std::int64_t, std::int64_t>>> ranges;
  if (window) ranges = finding_ranges(db, window->first, window->second);
  if (window && !ranges) ranges.emplace(1, std::make_pair(std::int64_t{1}, INT64_MAX));
  if (!ranges) {
    if (!db.for_each_row(std::string(kColumns) + " ORDER BY id", on_row).ok()) return {};
  } else {
    auto q = db.prepare(std::string(kColumns) + " WHERE id BETWEEN ?1 AND ?2 AND time BETWEEN ?3 AND ?4 ORDER BY id");
    if (!q) return {};
    for (const auto& [first, last] : *ranges) {
      q.value().bind(1, first);
      q.value().bind(2, last);
      q.value().bind(3, static_cast<std::int64_t>(window->first));
      q.value().bind(4, static_cast<std::int64_t>(window->second));
      const Status walked = q.value().for_each_row(on_row);
      q.value().reset();
      if (!walked.ok()) return {};
    }
  }
  // By time, then number: the table's key order read above costs no sort
  // in SQL, and the numbers are distinct, so this order is total.
  std::sort(found.begin(), found.end(), [](const StoredFinding& a, const StoredFinding& b) {
    return a.time != b.time ? a.time < b.time : a.number < b.number;
  });
  return found;
}

}  // namespace

Result<LintResultsPresent> lint_results_present(SqliteDatabase& db) {
  LintResultsPresent present;
  auto interned = has_interned_findings(db);
  if (!interned) return interned.error();
  present.findings = interned.value();
  if (!present.findings) {
    auto older = has_derived_columns(db, kOlderAnomaliesTable);
    if (!older) return older.error();
    present.findings = older.value() && db.has_table("anomalies");
  }
  auto causes = has_derived_columns(db, kTransferBlocksTable);
  if (!causes) return causes.error();
  present.causes = causes.value();
  return present;
}

std::vector<StoredFinding> read_stored_findings(SqliteDatabase& db, TimeNs from, TimeNs to) {
  if (auto interned = has_interned_findings(db); interned && interned.value())
    return read_interned_findings(db, std::make_pair(from, to));
  std::vector<StoredFinding> found = read_stored_findings(db);
  std::erase_if(found, [&](const StoredFinding& f) { return f.time < from || f.time > to; });
  return found;
}

std::vector<StoredFinding> read_stored_findings(SqliteDatabase& db) {
  if (auto interned = has_interned_findings(db); interned && interned.value()) return read_interned_findings(db);
  // An older Skein's table, with every text in each row.
  if (!db.has_table("anomalies")) return {};
  auto listed = db.column_names("anomalies");
  if (!listed) return {};
  std::vector<std::string> columns;
  for (std::size_t begin = 0; begin < listed.value().size();) {
    const std::size_t comma = std::min(listed.value().find(',', begin), listed.value().size());
    columns.push_back(listed.value().substr(begin, comma - begin));
    begin = comma + 1;
  }
  const auto has = [&](std::string_view c) { return std::find(columns.begin(), columns.end(), c) != columns.end(); };
  const char* time = has("time") ? "time" : has("time_ns") ? "time_ns" : nullptr;
  const char* from = has("from_thread") ? "from_thread" : has("from") ? "\"from\"" : "NULL";
  if (!time || !has("thread") || !has("rule") || !has("message")) return {};
  const char* suspect = has("suspect") ? "suspect" : "NULL";
  const char* severity = has("severity") ? "severity" : "NULL";
  const char* event = has("event") ? "event" : "NULL";
  const char* number = has("id") ? "id" : "NULL";
  const char* grouping = has("grouping") ? "grouping" : "NULL";
  const std::string sql = std::string("SELECT ") + time + ", thread, " + from + ", rule, message, " + suspect + ", " +
                          severity + ", " + event + ", " + number + ", " + grouping + " FROM anomalies ORDER BY " +
                          time;
  std::vector<StoredFinding> found;
  FindingWordings interned;
  const Status s = db.for_each_row(sql, [&](SqliteStatement& q) {
    // The table is not part of the store's checked schema: a time past the
    // format's limits is skipped here, where it is read.
    if (q.is_null(0) || !is_valid_time(q.int64(0))) return;
    StoredFinding f;
    f.time = q.int64(0);
    f.thread = q.optional_int64(1);
    f.from = q.optional_int64(2);
    f.suspect = q.optional_int64(5);
    f.event = q.optional_int64(7).value_or(-1);
    f.number = q.optional_int64(8).value_or(0);
    interned.word(f, q.optional_text(3).value_or(""), q.optional_text(6).value_or(""),
                  q.optional_text(4).value_or(""), q.optional_text(9).value_or(""));
    found.push_back(std::move(f));
  });
  if (!s.ok()) return {};
  return found;
}

}  // namespace skein
