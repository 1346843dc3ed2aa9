// record.cpp — names of heads and outcomes, and the per-record accessors
// declared in record.hpp.
#include "recorder/format/record.hpp"

#include <charconv>

#include "recorder/format/sexp_syntax.hpp"

namespace skein {
namespace {

constexpr std::array<std::string_view, kRecordHeadCount> kHeadNames = {
    "site", "spawn", "label", "switch", "wait", "read", "notify",
    "resolve", "merge", "counter", "idle", "gc", "lost", "end", "return", "should-resolve", "snapshot",
    "drop", "no-waiter", "queued"};

constexpr std::array<std::string_view, 3> kOutcomeNames = {"ok", "fail", "cancel"};

}  // namespace

std::string_view head_name(RecordHead head) { return kHeadNames[static_cast<std::size_t>(head)]; }

std::optional<RecordHead> head_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kHeadNames.size(); ++i)
    if (kHeadNames[i] == name) return static_cast<RecordHead>(i);
  return std::nullopt;
}

std::string_view outcome_name(Outcome outcome) {
  return kOutcomeNames[static_cast<std::size_t>(outcome)];
}

std::optional<Outcome> outcome_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kOutcomeNames.size(); ++i)
    if (kOutcomeNames[i] == name) return static_cast<Outcome>(i);
  return std::nullopt;
}

std::optional<TimeNs> time_of(const Record& r) {
  return std::visit(
      [](const auto& rec) -> std::optional<TimeNs> {
        if constexpr (std::is_same_v<std::decay_t<decltype(rec)>, SiteRecord>) return std::nullopt;
        else return rec.time;
      },
      r);
}

std::optional<ThreadId> actor_of(const Record& r) {
  return std::visit(
      [](const auto& rec) -> std::optional<ThreadId> {
        using R = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<R, SpawnRecord>) return rec.parent;
        else if constexpr (std::is_same_v<R, LabelRecord>) return rec.thread;
        else if constexpr (std::is_same_v<R, SwitchRecord>) return rec.thread;
        else if constexpr (std::is_same_v<R, WaitRecord>) return rec.waiter;
        else if constexpr (std::is_same_v<R, ReadRecord>) return rec.reader;
        else if constexpr (std::is_same_v<R, NotifyRecord>) return rec.sender;
        else if constexpr (std::is_same_v<R, ResolveRecord>) return rec.by;
        else if constexpr (std::is_same_v<R, MergeRecord>) return rec.thread;
        else if constexpr (std::is_same_v<R, ReturnRecord>) return rec.thread;
        else if constexpr (std::is_same_v<R, DropRecord>) return rec.by;
        else if constexpr (std::is_same_v<R, NoWaiterRecord>) return rec.sender;
        else return std::nullopt;
      },
      r);
}

bool is_valid_symbol(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!sexp::is_symbol_char(c)) return false;
  // A leading digit, or a sign followed by a digit, reads as a number.
  const char first = s[0];
  if (first >= '0' && first <= '9') return false;
  if ((first == '-' || first == '+') && s.size() > 1 && s[1] >= '0' && s[1] <= '9') return false;
  return true;
}

const std::string* TraceHeader::option(std::string_view key) const {
  for (const auto& [k, v] : options)
    if (k == key) return &v;
  return nullptr;
}

std::optional<std::int64_t> TraceHeader::integer_option(std::string_view key) const {
  const std::string* text = option(key);
  if (text == nullptr) return std::nullopt;
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc{} || end != text->data() + text->size()) return std::nullopt;
  return value;
}

void TraceHeader::set(std::string key, std::string value) {
  for (auto& [k, v] : options)
    if (k == key) {
      v = std::move(value);
      return;
    }
  options.emplace_back(std::move(key), std::move(value));
}

}  // namespace skein
