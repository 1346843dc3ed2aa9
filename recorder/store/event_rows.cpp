// event_rows.cpp — flattens one Record into an EventRow by visiting its
// alternative and filling the columns of the header's table, setting a
// `present` bit for each so absent fields become NULL. The head is the
// variant's index, which relies on Record's alternatives being in
// RecordHead order. Text is appended to the batch's one string and the row
// keeps its offset and size, so a batch owns all its text in one string.
#include "recorder/store/event_rows.hpp"

namespace skein {

void EventBatch::add(const Record& record) {
  EventRow row;
  row.head = static_cast<std::uint8_t>(record.index());
  const auto text = [&](std::string_view s) {
    row.text_begin = static_cast<std::uint32_t>(texts_.size());
    row.text_size = static_cast<std::uint32_t>(s.size());
    row.present |= EventRow::kText;
    texts_.append(s);
  };
  const auto timed = [&](TimeNs t) {
    row.time = t;
    row.present |= EventRow::kTime;
  };
  const auto actor = [&](ThreadId id) {
    row.actor = id;
    row.present |= EventRow::kActor;
  };
  const auto target = [&](ThreadId id) {
    row.target = id;
    row.present |= EventRow::kTarget;
  };
  const auto value = [&](std::int64_t v) {
    row.value = v;
    row.present |= EventRow::kValue;
  };
  std::visit(
      [&](const auto& r) {
        using R = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<R, SiteRecord>) {
          value(r.site);
        } else if constexpr (std::is_same_v<R, SpawnRecord>) {
          timed(r.time); actor(r.parent); target(r.child); text(r.kind);
          if (r.site) value(*r.site);
        } else if constexpr (std::is_same_v<R, LabelRecord>) {
          timed(r.time); actor(r.thread); text(r.text);
        } else if constexpr (std::is_same_v<R, SwitchRecord>) {
          timed(r.time); actor(r.thread);
        } else if constexpr (std::is_same_v<R, WaitRecord>) {
          timed(r.time); actor(r.waiter); target(r.input);
        } else if constexpr (std::is_same_v<R, ReadRecord>) {
          timed(r.time); actor(r.reader); target(r.input);
        } else if constexpr (std::is_same_v<R, NotifyRecord>) {
          timed(r.time); actor(r.sender); target(r.receiver);
          if (r.reason) text(*r.reason);
        } else if constexpr (std::is_same_v<R, ResolveRecord>) {
          timed(r.time); actor(r.by); target(r.thread); value(static_cast<std::int64_t>(r.outcome));
          if (r.message) text(*r.message);
        } else if constexpr (std::is_same_v<R, MergeRecord>) {
          timed(r.time); actor(r.thread); target(r.into);
        } else if constexpr (std::is_same_v<R, CounterRecord>) {
          timed(r.time); value(r.value); text(r.name);
        } else if constexpr (std::is_same_v<R, GcRecord>) {
          timed(r.time); value(r.duration);
        } else if constexpr (std::is_same_v<R, LostRecord>) {
          timed(r.time); value(r.count);
        } else if constexpr (std::is_same_v<R, ReturnRecord>) {
          timed(r.time); actor(r.thread);
        } else if constexpr (std::is_same_v<R, ShouldResolveRecord>) {
          timed(r.time); target(r.thread);
        } else {
          static_assert(std::is_same_v<R, IdleRecord> || std::is_same_v<R, EndRecord> ||
                        std::is_same_v<R, SnapshotRecord>);
          timed(r.time);
        }
      },
      record);
  rows_.push_back(row);
}

}  // namespace skein
