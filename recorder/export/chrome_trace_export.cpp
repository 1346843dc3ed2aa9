// chrome_trace_export.cpp — three passes over the database, in id order:
// activations (each thread's extent, so its slice encloses them); then the
// metadata, one slice per thread and one "run" slice per activation; then
// the timed events, written as edges, labels, counters, lost wake-ups and
// the scheduler's records. An idle slice closes at the next event (or end_time). Track names
// are JSON-escaped once; a thread id no threads row has gets a track when
// first met, and its metadata after the events.
#include "recorder/export/chrome_trace_export.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "recorder/export/json_stream.hpp"
#include "recorder/store/activations_table.hpp"
#include "recorder/store/events_table.hpp"

namespace skein {
namespace {

constexpr std::int64_t kMaxIdentityTid = kChromeGcTid - 1;
constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::min();

// The edge heads, as SCHEMA.md's edges view names them.
std::string_view edge_kind(std::int64_t head) {
  switch (static_cast<RecordHead>(head)) {
    case RecordHead::spawn: return "spawn";
    case RecordHead::wait: return "wait";
    case RecordHead::read: return "read";
    case RecordHead::notify: return "notify";
    case RecordHead::resolve: return "resolve";
    case RecordHead::merge: return "merge";
    default: return {};
  }
}

struct Track {
  std::int64_t tid = 0;
  std::string name;
  std::string json_name;  // name as JSON string contents, escaped once
  TimeNs first_start = kNoTime;  // of its activations
  TimeNs last_end = kNoTime;
};

// Thread ids to tracks (chrome_trace_export.hpp says how tids are chosen).
// Ids that no threads row has (possible only in a database made elsewhere)
// get a track when first met; `fresh()` lists those not yet announced.
class TrackTable {
 public:
  explicit TrackTable(const std::vector<StoredThread>& threads) {
    identity_ = std::all_of(threads.begin(), threads.end(),
                            [](const StoredThread& t) { return t.id >= 0 && t.id <= kMaxIdentityTid; });
    tracks_.reserve(threads.size() + 2);
    add(kScheduler, "scheduler", kChromeSchedulerTid);
    for (const StoredThread& t : threads) add(t.id, display_name(t), 0);
    announced_ = tracks_.size();
  }

  static std::string display_name(const StoredThread& t) {
    if (t.label) return *t.label;
    return (t.kind ? *t.kind : std::string("thread")) + " " + std::to_string(t.id);
  }

  Track& at(ThreadId id) {
    const auto it = index_.find(id);
    if (it != index_.end()) return tracks_[it->second];
    add(id, "thread " + std::to_string(id), 0);
    return tracks_.back();
  }
  [[nodiscard]] const std::vector<Track>& all() const { return tracks_; }
  // Tracks made since the last call (for their metadata events).
  std::vector<std::size_t> fresh() {
    std::vector<std::size_t> out;
    for (; announced_ < tracks_.size(); ++announced_) out.push_back(announced_);
    return out;
  }

 private:
  void add(ThreadId id, std::string name, std::int64_t fixed_tid) {
    std::int64_t tid = fixed_tid;
    if (id != kScheduler) tid = identity_ && id >= 0 && id <= kMaxIdentityTid ? id : ++next_dense_;
    index_.emplace(id, tracks_.size());
    std::string json_name;
    append_json_string_contents(json_name, name);
    tracks_.push_back(Track{tid, std::move(name), std::move(json_name)});
  }

  bool identity_ = true;
  std::int64_t next_dense_ = 0;
  std::vector<Track> tracks_;
  std::unordered_map<ThreadId, std::size_t> index_;
  std::size_t announced_ = 0;
};

class ChromeWriter {
 public:
  ChromeWriter(std::unique_ptr<ByteSink> sink, std::int64_t pid) : json_(std::move(sink)), pid_(pid) {}

  // `{"ph":"X","pid":P,"tid":T,"ts":..,"dur":..,"cat":..,"name":..` — the
  // caller adds args (or not) and calls close().
  void begin(char phase, std::int64_t tid) {
    json_.raw(events_ == 0 ? "\n{\"ph\":\"" : ",\n{\"ph\":\"");
    json_.raw(std::string_view(&phase, 1));
    json_.raw("\",\"pid\":");
    json_.integer(pid_);
    json_.raw(",\"tid\":");
    json_.integer(tid);
    ++events_;
  }
  void ts(TimeNs t) {
    json_.raw(",\"ts\":");
    json_.microseconds(t);
  }
  void dur(TimeNs d) {
    json_.raw(",\"dur\":");
    json_.microseconds(d);
  }
  void field(std::string_view key, std::string_view text) {
    json_.raw(",\"");
    json_.raw(key);
    json_.raw("\":");
    json_.string(text);
  }
  void field(std::string_view key, std::int64_t value) {
    json_.raw(",\"");
    json_.raw(key);
    json_.raw("\":");
    json_.integer(value);
  }
  // Args: open_args(), then fields (the first without its comma: arg()).
  void open_args() {
    json_.raw(",\"args\":{");
    first_arg_ = true;
  }
  template <class V>
  void arg(std::string_view key, const V& value) {
    if (first_arg_) {
      json_.raw("\"");
      first_arg_ = false;
    } else {
      json_.raw(",\"");
    }
    json_.raw(key);
    json_.raw("\":");
    if constexpr (std::is_integral_v<V>) json_.integer(value);
    else json_.string(value);
  }
  void close_args() { json_.raw("}"); }
  void close() { json_.raw("}"); }

  JsonStream& json() { return json_; }
  [[nodiscard]] std::uint64_t events() const { return events_; }

 private:
  JsonStream json_;
  std::int64_t pid_;
  std::uint64_t events_ = 0;
  bool first_arg_ = false;
};

void write_track_metadata(ChromeWriter& w, const Track& track, std::int64_t sort_index) {
  w.begin('M', track.tid);
  w.field("name", "thread_name");
  w.open_args();
  w.arg("name", track.name);
  w.close_args();
  w.close();
  w.begin('M', track.tid);
  w.field("name", "thread_sort_index");
  w.open_args();
  w.arg("sort_index", sort_index);
  w.close_args();
  w.close();
}

std::int64_t header_pid(TraceStore& store) {
  const auto text = store.meta_text("header.pid");
  std::int64_t pid = 0;
  if (text) {
    const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), pid);
    if (ec == std::errc{} && end == text->data() + text->size() && pid >= 1 && pid <= kChromeSchedulerTid)
      return pid;
  }
  return 1;
}

// Every thread's activation extent, in one pass over activations.
Status read_activation_extents(TraceStore& store, TrackTable& tracks) {
  return for_each_activation(store.database(), [&](const StoredActivation& a) {
    Track& t = tracks.at(a.thread);
    const TimeNs start = a.start;
    const TimeNs end = a.end;
    if (t.first_start == kNoTime || start < t.first_start) t.first_start = start;
    if (t.last_end == kNoTime || end > t.last_end) t.last_end = end;
  });
}

void write_thread_slice(ChromeWriter& w, const StoredThread& t, const Track& track, TimeNs end_time,
                        const std::unordered_map<std::int64_t, StoredSite>& sites) {
  TimeNs start = t.created;
  TimeNs end = t.resolved ? *t.resolved : (end_time == kNoTime ? t.created : std::max(end_time, t.created));
  if (track.first_start != kNoTime) start = std::min(start, track.first_start);
  if (track.last_end != kNoTime) end = std::max(end, track.last_end);
  end = std::max(end, start);
  w.begin('X', track.tid);
  w.ts(start);
  w.dur(end - start);
  w.field("cat", "thread");
  w.field("name", track.name);
  w.open_args();
  w.arg("thread", t.id);
  if (t.label) w.arg("label", *t.label);
  if (t.kind) w.arg("kind", *t.kind);
  if (t.parent) w.arg("parent", *t.parent);
  if (t.site) {
    const auto it = sites.find(*t.site);
    if (it != sites.end())
      w.arg("site", it->second.file + ":" + std::to_string(it->second.line) + " (" + it->second.function + ")");
    else
      w.arg("site", *t.site);
  }
  w.arg("created_ns", t.created);
  if (t.resolved) w.arg("resolved_ns", *t.resolved);
  w.arg("outcome", t.outcome ? *t.outcome : std::string("pending"));
  if (t.failure) w.arg("failure", *t.failure);
  if (t.merged_into) w.arg("merged_into", *t.merged_into);
  w.arg("run_time_ns", t.run_time);
  w.close_args();
  w.close();
}

Status write_activations(TraceStore& store, ChromeWriter& w, TrackTable& tracks) {
  return for_each_activation(store.database(), [&](const StoredActivation& a) {
    w.begin('X', tracks.at(a.thread).tid);
    w.ts(a.start);
    w.dur(std::max<TimeNs>(a.end - a.start, 0));
    w.json().raw(",\"cat\":\"run\",\"name\":\"run\"}");
  });
}

// One pass over the events: edges, labels, counters, lost wake-ups, idle,
// gc, lost.
class EventPass {
 public:
  EventPass(ChromeWriter& w, TrackTable& tracks, TimeNs end_time)
      : w_(w), tracks_(tracks), end_time_(end_time) {}

  Status run(TraceStore& store) {
    const EventSelection timed{.timed_only = true};
    const Status walked = for_each_trace_event(store.database(), timed, [&](const TraceEvent& e) {
      const std::int64_t id = e.id;
      const TimeNs time = e.time;
      const auto head = static_cast<std::int64_t>(e.head);
      close_idle(time);
      if (const std::string_view kind = edge_kind(head); !kind.empty()) {
        if (e.actor == kNoThread || e.target == kNoThread) return;
        edge(id, time, head, kind, e.actor, e.target, e.has_value ? std::optional(e.value) : std::nullopt,
             e.has_text ? std::optional(e.text) : std::nullopt);
        return;
      }
      switch (e.head) {
        case RecordHead::label:
          if (e.actor == kNoThread) break;
          w_.begin('i', tid(e.actor));
          w_.ts(time);
          w_.json().raw(",\"s\":\"t\",\"cat\":\"label\",\"name\":\"label\"");
          w_.open_args();
          w_.arg("text", e.text);
          w_.close_args();
          w_.close();
          break;
        case RecordHead::counter:
          w_.begin('C', kChromeSchedulerTid);
          w_.ts(time);
          w_.field("cat", "counter");
          w_.field("name", e.text);
          w_.open_args();
          w_.arg("value", e.value);
          w_.close_args();
          w_.close();
          break;
        case RecordHead::drop:
          if (e.target == kNoThread) break;
          lost_wakeup(id, time, e.target, "drop");
          if (e.actor != kNoThread) w_.arg("by", e.actor);
          w_.close_args();
          w_.close();
          break;
        case RecordHead::no_waiter:
          if (e.actor == kNoThread) break;
          lost_wakeup(id, time, e.actor, "no-waiter");
          if (e.has_value) w_.arg("object", e.value);
          if (e.has_text) w_.arg("reason", e.text);
          w_.close_args();
          w_.close();
          break;
        case RecordHead::idle: idle_since_ = time; break;
        case RecordHead::gc:
          w_.begin('X', kChromeGcTid);
          w_.ts(time);
          w_.dur(std::max<std::int64_t>(e.value, 0));
          w_.json().raw(",\"cat\":\"runtime\",\"name\":\"gc\"}");
          break;
        case RecordHead::lost:
          w_.begin('i', kChromeSchedulerTid);
          w_.ts(time);
          w_.json().raw(",\"s\":\"p\",\"cat\":\"runtime\",\"name\":\"lost\"");
          w_.open_args();
          w_.arg("records", e.value);
          w_.close_args();
          w_.close();
          break;
        default: break;
      }
    });
    if (!walked.ok()) return walked;
    if (end_time_ != kNoTime) close_idle(end_time_);
    announce_new_tracks();
    return {};
  }

 private:
  std::int64_t tid(ThreadId id) { return tracks_.at(id).tid; }

  // A lost wake-up's instant on `thread`'s track, args opened with its
  // event id; the caller adds its own args and closes.
  void lost_wakeup(std::int64_t id, TimeNs time, ThreadId thread, std::string_view name) {
    w_.begin('i', tid(thread));
    w_.ts(time);
    w_.json().raw(",\"s\":\"t\",\"cat\":\"lost-wakeup\"");
    w_.field("name", name);
    w_.open_args();
    w_.arg("event", id);
  }

  void close_idle(TimeNs now) {
    if (idle_since_ == kNoTime) return;
    w_.begin('X', kChromeSchedulerTid);
    w_.ts(idle_since_);
    w_.dur(std::max<TimeNs>(now - idle_since_, 0));
    w_.json().raw(",\"cat\":\"scheduler\",\"name\":\"idle\"}");
    idle_since_ = kNoTime;
  }

  void edge(std::int64_t id, TimeNs time, std::int64_t head, std::string_view kind, ThreadId src, ThreadId dst,
            const std::optional<std::int64_t>& value, const std::optional<std::string_view>& text) {
    const std::int64_t src_tid = tid(src);
    const std::int64_t dst_tid = tid(dst);
    if (src == dst) {
      edge_slice(id, time, head, src_tid, kind, " (self)", {}, value, text);
      return;
    }
    edge_slice(id, time, head, src_tid, kind, " \u2192 ", tracks_.at(dst).json_name, value, text);
    flow('s', id, time, kind, src_tid);
    edge_slice(id, time, head, dst_tid, kind, " \u2190 ", tracks_.at(src).json_name, value, text);
    flow('f', id, time, kind, dst_tid);
  }

  // Named "KIND → OTHER": the parts are written as they are (kind is one
  // of the six edge names, other_json already escaped), with no string
  // built per edge.
  void edge_slice(std::int64_t id, TimeNs time, std::int64_t head, std::int64_t on_tid, std::string_view kind,
                  std::string_view arrow, std::string_view other_json, const std::optional<std::int64_t>& value,
                  const std::optional<std::string_view>& text) {
    w_.begin('X', on_tid);
    w_.ts(time);
    w_.json().raw(",\"dur\":0,\"cat\":\"edge\",\"name\":\"");
    w_.json().raw(kind);
    w_.json().raw(arrow);
    w_.json().raw(other_json);
    w_.json().raw("\"");
    w_.open_args();
    w_.arg("event", id);
    switch (static_cast<RecordHead>(head)) {
      case RecordHead::spawn:
        if (text) w_.arg("kind", *text);
        if (value) w_.arg("site", *value);
        break;
      case RecordHead::notify:
        if (text) w_.arg("reason", *text);
        break;
      case RecordHead::resolve:
        if (value) w_.arg("outcome", outcome_label(*value));
        if (text) w_.arg("message", *text);
        break;
      default: break;
    }
    w_.close_args();
    w_.close();
  }

  static std::string_view outcome_label(std::int64_t value) {
    if (value >= 0 && value <= 2) return outcome_name(static_cast<Outcome>(value));
    return "unknown";
  }

  void flow(char phase, std::int64_t id, TimeNs time, std::string_view kind, std::int64_t on_tid) {
    w_.begin(phase, on_tid);
    w_.ts(time);
    if (phase == 'f') w_.json().raw(",\"bp\":\"e\"");
    w_.field("id", id);
    w_.json().raw(",\"cat\":\"causality\"");
    w_.field("name", kind);
    w_.close();
  }

  // Tracks for ids no threads row had, met in edges or labels.
  void announce_new_tracks() {
    for (const std::size_t i : tracks_.fresh())
      write_track_metadata(w_, tracks_.all()[i], static_cast<std::int64_t>(i) + 1);
  }

  ChromeWriter& w_;
  TrackTable& tracks_;
  TimeNs end_time_;
  TimeNs idle_since_ = kNoTime;
};

}  // namespace

Result<std::uint64_t> export_chrome_trace(TraceStore& store, std::unique_ptr<ByteSink> sink) {
  auto threads = store.threads();
  if (!threads) return threads.error();
  auto site_rows = store.sites();
  if (!site_rows) return site_rows.error();
  std::unordered_map<std::int64_t, StoredSite> sites;
  for (StoredSite& s : site_rows.value()) sites.emplace(s.id, std::move(s));
  const TimeNs end_time = store.meta_int("end_time").value_or(kNoTime);

  TrackTable tracks(threads.value());
  if (Status s = read_activation_extents(store, tracks); !s.ok()) return s.error();

  ChromeWriter w(std::move(sink), header_pid(store));
  w.json().raw("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
  w.begin('M', kChromeSchedulerTid);
  w.field("name", "process_name");
  w.open_args();
  w.arg("name", store.meta_text("header.process").value_or("skein trace"));
  w.close_args();
  w.close();
  const Track gc_track{kChromeGcTid, "gc", "gc"};
  write_track_metadata(w, gc_track, 0);
  for (std::size_t i = 0; i < tracks.all().size(); ++i)
    write_track_metadata(w, tracks.all()[i], static_cast<std::int64_t>(i) + 1);
  (void)tracks.fresh();  // all announced
  for (const StoredThread& t : threads.value()) write_thread_slice(w, t, tracks.at(t.id), end_time, sites);
  if (Status s = write_activations(store, w, tracks); !s.ok()) return s.error();
  EventPass events(w, tracks, end_time);
  if (Status s = events.run(store); !s.ok()) return s.error();
  w.json().raw("\n]}\n");
  if (Status s = w.json().finish(); !s.ok()) return s.error();
  return w.events();
}

}  // namespace skein
