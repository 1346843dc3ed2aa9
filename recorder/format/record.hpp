// record.hpp — the Skein trace model: one struct per record head of the
// format (recorder/format/FORMAT.md), and the header that opens every trace.
//
// A Record is a std::variant over the heads, so code that handles records
// names what each field is (`spawn.parent`, `resolve.by`) rather than how it
// is stored. Text fields are std::string_view: a record handed out by
// TraceReader points into the reader's buffers and stays valid until the
// next call to TraceReader::next(); a record given to TraceWriter only needs
// to live for the call. Copy the strings to keep them longer.
//
// Invariants a well-formed record holds (the reader enforces them, the writer
// assumes them):
//   1. time >= 0 (nanoseconds since the header's origin);
//   2. symbols (spawn kind, notify and no-waiter reason) are non-empty and
//      use only the symbol characters listed in FORMAT.md;
//   3. strings are at most kMaxStringBytes long;
//   4. counts and durations (lost, gc) and site lines are >= 0, site ids lie
//      in [0, kMaxSiteId];
//   5. times and gc durations are at most kMaxTime, so that the sum or the
//      difference of any two fits in 64 bits (FORMAT.md, "Limits");
//   6. no thread id is kReservedThreadId;
//   7. an object (no-waiter, queued) is >= 1: a synchronisation primitive's
//      number, never a thread id.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace skein {

using ThreadId = std::int64_t;  // -1: the scheduler (nobody); 0: the main thread
using TimeNs = std::int64_t;    // nanoseconds since the trace's origin
using SiteId = std::int64_t;
using ObjectId = std::int64_t;  // a synchronisation primitive's number: 1 and up, not a thread

inline constexpr ThreadId kScheduler = -1;
inline constexpr ThreadId kMainThread = 0;
inline constexpr std::size_t kMaxStringBytes = 64 * 1024;
inline constexpr SiteId kMaxSiteId = (SiteId{1} << 31) - 1;
inline constexpr int kFormatVersion = 1;

// The limits of FORMAT.md ("Limits"), which the reader, the importers and
// the store's readers enforce. kMaxTime is 2^62 - 1 ns, about 146 years since
// the origin: any two times (or a time and a gc duration) add up, and
// subtract, without overflow. kReservedThreadId, -2^63, is the one id no
// thread may have: tools use it for "no thread", and -id fits for every
// other id.
inline constexpr TimeNs kMaxTime = (TimeNs{1} << 62) - 1;
inline constexpr ThreadId kReservedThreadId = INT64_MIN;

[[nodiscard]] constexpr bool is_valid_time(TimeNs t) { return t >= 0 && t <= kMaxTime; }
[[nodiscard]] constexpr bool is_valid_thread_id(ThreadId id) { return id != kReservedThreadId; }

enum class Outcome : std::uint8_t { ok, fail, cancel };

struct SiteRecord {
  SiteId site = 0;
  std::string_view file;
  std::int64_t line = 0;
  std::string_view function;
};
struct SpawnRecord {
  TimeNs time = 0;
  ThreadId child = 0;
  ThreadId parent = 0;
  std::string_view kind;
  std::optional<SiteId> site;
};
struct LabelRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
  std::string_view text;
};
struct SwitchRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
};
struct WaitRecord {
  TimeNs time = 0;
  ThreadId waiter = 0;
  ThreadId input = 0;
};
struct ReadRecord {
  TimeNs time = 0;
  ThreadId reader = 0;
  ThreadId input = 0;
};
struct NotifyRecord {
  TimeNs time = 0;
  ThreadId sender = 0;
  ThreadId receiver = 0;
  std::optional<std::string_view> reason;
};
struct ResolveRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
  ThreadId by = 0;
  Outcome outcome = Outcome::ok;
  std::optional<std::string_view> message;
};
struct MergeRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
  ThreadId into = 0;
};
struct CounterRecord {
  TimeNs time = 0;
  std::string_view name;
  std::int64_t value = 0;
};
struct IdleRecord {
  TimeNs time = 0;
};
struct GcRecord {
  TimeNs time = 0;
  std::int64_t duration = 0;
};
struct LostRecord {
  TimeNs time = 0;
  std::int64_t count = 0;
};
struct EndRecord {
  TimeNs time = 0;
};
// Control comes back to `thread` inside the turn that is running, with no
// scheduler in between (FORMAT.md: imported traces only).
struct ReturnRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
};
// The program expects `thread` to resolve: still pending when the trace
// ends, it is an error even in a snapshot.
struct ShouldResolveRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
};
// The trace was taken here from a program that still ran: nothing follows,
// and what is pending may yet settle.
struct SnapshotRecord {
  TimeNs time = 0;
};
// `by` let go of the last means to settle `thread`, still pending: its last
// Resolver, or the primitive it waited in. `thread` can never be settled.
struct DropRecord {
  TimeNs time = 0;
  ThreadId thread = 0;
  ThreadId by = 0;
};
// `sender` signalled primitive `object` and no thread was waiting; `reason`
// names the primitive's kind (condition, semaphore, mailbox, stream).
struct NoWaiterRecord {
  TimeNs time = 0;
  ThreadId sender = 0;
  ObjectId object = 1;
  std::string_view reason;
};
// `waiter`, a blocking call's thread, joined primitive `object`'s queue.
struct QueuedRecord {
  TimeNs time = 0;
  ThreadId waiter = 0;
  ObjectId object = 1;
};

// The order of alternatives is the order of RecordHead below.
using Record = std::variant<SiteRecord, SpawnRecord, LabelRecord, SwitchRecord, WaitRecord,
                            ReadRecord, NotifyRecord, ResolveRecord, MergeRecord, CounterRecord,
                            IdleRecord, GcRecord, LostRecord, EndRecord, ReturnRecord,
                            ShouldResolveRecord, SnapshotRecord, DropRecord, NoWaiterRecord, QueuedRecord>;

// Codes are stable: a new head is added at the end (the store keeps them).
enum class RecordHead : std::uint8_t {
  site, spawn, label, switch_, wait, read, notify, resolve, merge, counter, idle, gc, lost, end,
  return_, should_resolve, snapshot, drop, no_waiter, queued
};
inline constexpr std::size_t kRecordHeadCount = std::variant_size_v<Record>;

[[nodiscard]] inline RecordHead head_of(const Record& r) {
  return static_cast<RecordHead>(r.index());
}
// The head's name as written in the format: "spawn", "switch", ...
[[nodiscard]] std::string_view head_name(RecordHead head);
[[nodiscard]] std::optional<RecordHead> head_from_name(std::string_view name);
[[nodiscard]] std::string_view outcome_name(Outcome outcome);
[[nodiscard]] std::optional<Outcome> outcome_from_name(std::string_view name);

// The time of a record; a site record has none and gives nullopt.
[[nodiscard]] std::optional<TimeNs> time_of(const Record& r);

// The thread doing the record (FORMAT.md, "actor"), or nullopt for records
// that have no actor (site, counter, idle, gc, lost, end, should-resolve,
// snapshot, queued).
[[nodiscard]] std::optional<ThreadId> actor_of(const Record& r);

// Calls f(id) for every thread id a record names, the scheduler included
// (an object is not a thread: no-waiter and queued name one thread each).
template <class F>
void for_each_thread(const Record& r, F&& f) {
  std::visit(
      [&](const auto& rec) {
        using R = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<R, SpawnRecord>) { f(rec.child); f(rec.parent); }
        else if constexpr (std::is_same_v<R, LabelRecord> || std::is_same_v<R, SwitchRecord> ||
                           std::is_same_v<R, ReturnRecord> || std::is_same_v<R, ShouldResolveRecord>) { f(rec.thread); }
        else if constexpr (std::is_same_v<R, WaitRecord>) { f(rec.waiter); f(rec.input); }
        else if constexpr (std::is_same_v<R, ReadRecord>) { f(rec.reader); f(rec.input); }
        else if constexpr (std::is_same_v<R, NotifyRecord>) { f(rec.sender); f(rec.receiver); }
        else if constexpr (std::is_same_v<R, ResolveRecord>) { f(rec.thread); f(rec.by); }
        else if constexpr (std::is_same_v<R, MergeRecord>) { f(rec.thread); f(rec.into); }
        else if constexpr (std::is_same_v<R, DropRecord>) { f(rec.thread); f(rec.by); }
        else if constexpr (std::is_same_v<R, NoWaiterRecord>) { f(rec.sender); }
        else if constexpr (std::is_same_v<R, QueuedRecord>) { f(rec.waiter); }
      },
      r);
}

// True when every character of `s` may appear in a symbol and s is a symbol
// the reader reads back as a symbol (not empty, not a number).
[[nodiscard]] bool is_valid_symbol(std::string_view s);

// The first line of a trace: `(skein-trace 1 (KEY VALUE)...)`. Values are kept
// as their text; string values unescaped. Unknown keys are kept, not lost.
struct TraceHeader {
  int version = kFormatVersion;
  std::vector<std::pair<std::string, std::string>> options;

  [[nodiscard]] const std::string* option(std::string_view key) const;
  [[nodiscard]] std::optional<std::int64_t> integer_option(std::string_view key) const;
  void set(std::string key, std::string value);
};

}  // namespace skein
