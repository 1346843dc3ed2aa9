// sexp_export.cpp — the header is rebuilt from meta's header.* rows (all
// but header.version) and the sites table is loaded into a map; then a
// TraceEventCursor walks events in id order. Each row is checked against what its head
// needs (SCHEMA.md's column table: the fields present, ranges, strings
// within kMaxStringBytes, symbols valid) and turned back into the Record the
// import made it from, which TraceWriter formats. The first row that fails
// stops the export with its event id and what is wrong.
#include "recorder/export/sexp_export.hpp"

#include <string>
#include <string_view>
#include <unordered_map>

#include "recorder/format/trace_writer.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {
namespace {

constexpr std::string_view kHeaderPrefix = "header.";

// Turns a row into its record, or says what the row lacks. `sites` holds the
// sites table, for the file, line and function of site records.
class RecordRebuilder {
 public:
  explicit RecordRebuilder(const std::unordered_map<std::int64_t, StoredSite>& sites) : sites_(sites) {}

  // The record, or an empty optional with problem() set.
  std::optional<Record> rebuild(const TraceEvent& event) {
    problem_.clear();
    const Fields row = fields(event);
    const RecordHead head = event.head;
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
      case RecordHead::drop:
        if (!need(row.actor, "by") || !need(row.target, "thread")) break;
        return DropRecord{t, *row.target, *row.actor};
      case RecordHead::no_waiter:
        if (!need(row.actor, "sender") || !object(row.value) || !symbol(row.text, "reason")) break;
        return NoWaiterRecord{t, *row.actor, *row.value, *row.text};
      case RecordHead::queued:
        if (!need(row.target, "waiter") || !object(row.value)) break;
        return QueuedRecord{t, *row.target, *row.value};
    }
    return std::nullopt;
  }

  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  // A row's fields as optionals, absent where the table holds NULL, so
  // each check below reads "need this field".
  struct Fields {
    std::optional<TimeNs> time;
    std::optional<std::int64_t> actor;
    std::optional<std::int64_t> target;
    std::optional<std::int64_t> value;
    std::optional<std::string_view> text;
  };
  static Fields fields(const TraceEvent& e) {
    Fields f;
    if (e.has_time) f.time = e.time;
    if (e.actor != kNoThread) f.actor = e.actor;
    if (e.target != kNoThread) f.target = e.target;
    if (e.has_value) f.value = e.value;
    if (e.has_text) f.text = e.text;
    return f;
  }

  std::optional<Record> site(const Fields& row) {
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
  // A primitive's number: 1 and up (record.hpp, invariant 7).
  bool object(const std::optional<std::int64_t>& field) {
    if (!need(field, "object")) return false;
    if (*field >= 1) return true;
    fail("object " + std::to_string(*field) + " (objects are 1 and up)");
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

  auto cursor = TraceEventCursor::open(store.database());
  if (!cursor) return cursor.error();

  TraceWriter writer(std::move(sink));
  writer.write_header(header.value());
  RecordRebuilder rebuilder(site_by_id);
  std::uint64_t records = 0;
  const Status walked = cursor.value().for_each([&](const TraceEvent& event) -> Status {
    const std::optional<Record> record = rebuilder.rebuild(event);
    if (!record) return file_error(store.path(), "event " + std::to_string(event.id) + ": " + rebuilder.problem());
    writer.write(*record);
    ++records;
    return {};
  });
  if (!walked.ok()) return walked.error();
  if (Status s = writer.finish(); !s.ok()) return s.error();
  return records;
}

}  // namespace skein
