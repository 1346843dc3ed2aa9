// sexp_export.cpp — the header is rebuilt from meta's header.* rows (all
// but header.version) and the sites table is loaded into a map; then one
// query walks events in id order. Each row is checked against what its head
// needs (SCHEMA.md's column table: the fields present, ranges, strings
// within kMaxStringBytes, symbols valid) and turned back into the Record the
// import made it from, which TraceWriter formats. The first row that fails
// stops the export with its event id and what is wrong.
#include "recorder/export/sexp_export.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

#include "recorder/format/trace_writer.hpp"

namespace skein {
namespace {

constexpr std::string_view kHeaderPrefix = "header.";

// One events row, as read; text points into the statement (valid until its
// next step).
struct EventRowView {
  std::int64_t id = 0;
  std::optional<TimeNs> time;
  std::int64_t head = 0;
  std::optional<std::int64_t> actor;
  std::optional<std::int64_t> target;
  std::optional<std::int64_t> value;
  std::optional<std::string_view> text;
};

// Turns a row into its record, or says what the row lacks. `sites` holds the
// sites table, for the file, line and function of site records.
class RecordRebuilder {
 public:
  explicit RecordRebuilder(const std::unordered_map<std::int64_t, StoredSite>& sites) : sites_(sites) {}

  // The record, or an empty optional with problem() set.
  std::optional<Record> rebuild(const EventRowView& row) {
    problem_.clear();
    if (row.head < 0 || row.head >= static_cast<std::int64_t>(kRecordHeadCount))
      return fail("head " + std::to_string(row.head) + " is not a record head (0 to " +
                  std::to_string(kRecordHeadCount - 1) + ")");
    const auto head = static_cast<RecordHead>(row.head);
    if (head == RecordHead::site) return site(row);
    if (!row.time) return fail("a " + std::string(head_name(head)) + " record without a time");
    if (*row.time < 0) return fail("negative time " + std::to_string(*row.time));
    const TimeNs t = *row.time;
    switch (head) {
      case RecordHead::site: break;
      case RecordHead::spawn:
        if (!need(row.actor, "parent") || !need(row.target, "child") || !symbol(row.text, "kind")) break;
        if (row.value && (*row.value < 0 || *row.value > kMaxSiteId)) {
          fail("site " + std::to_string(*row.value) + " out of range");
          break;
        }
        return SpawnRecord{t, *row.target, *row.actor, *row.text, row.value};
      case RecordHead::label:
        if (!need(row.actor, "thread") || !string(row.text, "text")) break;
        return LabelRecord{t, *row.actor, *row.text};
      case RecordHead::switch_:
        if (!need(row.actor, "thread")) break;
        return SwitchRecord{t, *row.actor};
      case RecordHead::wait:
        if (!need(row.actor, "waiter") || !need(row.target, "input")) break;
        return WaitRecord{t, *row.actor, *row.target};
      case RecordHead::read:
        if (!need(row.actor, "reader") || !need(row.target, "input")) break;
        return ReadRecord{t, *row.actor, *row.target};
      case RecordHead::notify:
        if (!need(row.actor, "sender") || !need(row.target, "receiver")) break;
        if (row.text && !symbol(row.text, "reason")) break;
        return NotifyRecord{t, *row.actor, *row.target, row.text};
      case RecordHead::resolve:
        if (!need(row.actor, "resolver") || !need(row.target, "thread") || !need(row.value, "outcome")) break;
        if (*row.value < 0 || *row.value > 2) {
          fail("outcome " + std::to_string(*row.value) + " (0 ok, 1 fail, 2 cancel)");
          break;
        }
        if (row.text && !string(row.text, "message")) break;
        return ResolveRecord{t, *row.target, *row.actor, static_cast<Outcome>(*row.value), row.text};
      case RecordHead::merge:
        if (!need(row.actor, "thread") || !need(row.target, "into")) break;
        return MergeRecord{t, *row.actor, *row.target};
      case RecordHead::counter:
        if (!string(row.text, "name") || !need(row.value, "value")) break;
        return CounterRecord{t, *row.text, *row.value};
      case RecordHead::idle: return IdleRecord{t};
      case RecordHead::gc:
        if (!count(row.value, "duration")) break;
        return GcRecord{t, *row.value};
      case RecordHead::lost:
        if (!count(row.value, "count")) break;
        return LostRecord{t, *row.value};
      case RecordHead::end: return EndRecord{t};
      case RecordHead::return_:
        if (!need(row.actor, "thread")) break;
        return ReturnRecord{t, *row.actor};
      case RecordHead::should_resolve:
        if (!need(row.target, "thread")) break;
        return ShouldResolveRecord{t, *row.target};
      case RecordHead::snapshot: return SnapshotRecord{t};
    }
    return std::nullopt;
  }

  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  std::optional<Record> site(const EventRowView& row) {
    if (!row.value) return fail("a site record without its site id");
    const auto it = sites_.find(*row.value);
    if (it == sites_.end()) return fail("site " + std::to_string(*row.value) + " has no row in sites");
    const StoredSite& s = it->second;
    if (s.id < 0 || s.id > kMaxSiteId || s.line < 0)
      return fail("site " + std::to_string(s.id) + " has an id or line out of range");
    if (s.file.size() > kMaxStringBytes || s.function.size() > kMaxStringBytes)
      return fail("site " + std::to_string(s.id) + " has a file or function name over 64 KiB");
    return SiteRecord{s.id, s.file, s.line, s.function};
  }
  std::nullopt_t fail(std::string problem) {
    problem_ = std::move(problem);
    return std::nullopt;
  }
  bool complain(std::string problem) {
    problem_ = std::move(problem);
    return false;
  }
  bool need(const std::optional<std::int64_t>& field, std::string_view what) {
    if (field) return true;
    fail("no " + std::string(what));
    return false;
  }
  bool count(const std::optional<std::int64_t>& field, std::string_view what) {
    if (!need(field, what)) return false;
    if (*field >= 0) return true;
    fail("negative " + std::string(what) + " " + std::to_string(*field));
    return false;
  }
  bool string(const std::optional<std::string_view>& field, std::string_view what) {
    if (!field) return complain("no " + std::string(what));
    if (field->size() <= kMaxStringBytes) return true;
    fail(std::string(what) + " longer than 64 KiB");
    return false;
  }
  bool symbol(const std::optional<std::string_view>& field, std::string_view what) {
    if (!field) return complain("no " + std::string(what));
    if (is_valid_symbol(*field)) return true;
    fail(std::string(what) + " '" + std::string(field->substr(0, 80)) + "' is not a symbol");
    return false;
  }

  const std::unordered_map<std::int64_t, StoredSite>& sites_;
  std::string problem_;
};

Result<TraceHeader> header_from_meta(TraceStore& store) {
  auto meta = store.meta();
  if (!meta) return meta.error();
  TraceHeader header;
  for (auto& [key, value] : meta.value()) {
    if (!key.starts_with(kHeaderPrefix) || key == "header.version") continue;
    std::string option = key.substr(kHeaderPrefix.size());
    if (!is_valid_symbol(option))
      return file_error(store.path(), "meta key '" + key + "' does not name a header option (not a symbol)");
    header.set(std::move(option), std::move(value));
  }
  return header;
}

}  // namespace

Result<std::uint64_t> export_sexp(TraceStore& store, std::unique_ptr<ByteSink> sink) {
  auto header = header_from_meta(store);
  if (!header) return header.error();
  auto sites = store.sites();
  if (!sites) return sites.error();
  std::unordered_map<std::int64_t, StoredSite> site_by_id;
  for (StoredSite& s : sites.value()) site_by_id.emplace(s.id, std::move(s));

  auto query = store.database().prepare(
      "SELECT id, time, head, actor, target, value, text FROM events ORDER BY id");
  if (!query) return query.error();
  SqliteStatement& q = query.value();

  TraceWriter writer(std::move(sink));
  writer.write_header(header.value());
  RecordRebuilder rebuilder(site_by_id);
  std::uint64_t records = 0;
  const Status walked = q.for_each_row([&](SqliteStatement&) -> Status {
    EventRowView row;
    row.id = q.int64(0);
    row.time = q.optional_int64(1);
    row.head = q.int64(2);
    row.actor = q.optional_int64(3);
    row.target = q.optional_int64(4);
    row.value = q.optional_int64(5);
    if (!q.is_null(6)) row.text = q.text(6);
    const std::optional<Record> record = rebuilder.rebuild(row);
    if (!record)
      return file_error(store.path(), "event " + std::to_string(row.id) + ": " + rebuilder.problem());
    writer.write(*record);
    ++records;
    return {};
  });
  if (!walked.ok()) return walked.error();
  if (Status s = writer.finish(); !s.ok()) return s.error();
  return records;
}

}  // namespace skein
