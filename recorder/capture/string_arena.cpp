// string_arena.cpp — an append-only block of length-prefixed strings. Each
// string is a 4-byte length (host byte order, little-endian on the targets)
// followed by its bytes, and its id is its offset; offsets 0 and 1 are
// reserved (kNoString, kOverflowId), so the first string starts at 8. get()
// bounds-checks id and length against the capacity. fit_string_limit backs
// off over UTF-8 continuation bytes, then grows the kept prefix while the
// shorter "[cut N bytes]" count still leaves room.
#include "recorder/capture/string_arena.hpp"

#include <cstring>

#include "recorder/format/record.hpp"

namespace skein::capture {
namespace {
constexpr std::size_t kFirstOffset = 8;
constexpr std::string_view kOverflowText = "<string table full>";

// "12,345".
std::string with_thousands(std::size_t n) {
  std::string digits = std::to_string(n);
  for (std::size_t i = digits.size(); i > 3; i -= 3) digits.insert(i - 3, 1, ',');
  return digits;
}

constexpr std::string_view kCutOpen = "\u2026 [cut ";
constexpr std::string_view kCutClose = " bytes]";
// A UTF-8 character is at most 4 bytes: a cut backs off at most 3.
constexpr std::size_t kMaxContinuationBytes = 3;

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

std::size_t marker_bytes(std::size_t cut) { return kCutOpen.size() + with_thousands(cut).size() + kCutClose.size(); }

// The character boundary at or before `at` (< text.size()): never split a
// character, backing off over continuation bytes (10xxxxxx) to the byte
// that starts the character at the cut.
std::size_t boundary_at_or_before(std::string_view text, std::size_t at) {
  for (std::size_t i = 0; i < kMaxContinuationBytes && at > 0 && continuation(text[at]); ++i) --at;
  return at;
}

// The next character boundary after `at` (at most text.size()).
std::size_t next_boundary(std::string_view text, std::size_t at) {
  ++at;
  for (std::size_t i = 0; i < kMaxContinuationBytes && at < text.size() && continuation(text[at]); ++i) ++at;
  return at;
}
}  // namespace

std::string fit_string_limit(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  // The marker is longest for the largest count, so room for the count of
  // the whole text is room for any count the cut leaves.
  const bool marked = limit >= 32 && marker_bytes(text.size()) <= limit;
  std::size_t keep = boundary_at_or_before(text, marked ? limit - marker_bytes(text.size()) : limit);
  // The marker of the smaller count the cut leaves may have fewer digits,
  // and so leave room for a character or two more. Each step keeps more,
  // and what is kept stays within the limit, so this ends.
  while (marked) {
    const std::size_t more = next_boundary(text, keep);
    if (more >= text.size() || more + marker_bytes(text.size() - more) > limit) break;
    keep = more;
  }
  std::string out(text.substr(0, keep));
  if (marked) {
    out += kCutOpen;
    out += with_thousands(text.size() - keep);
    out += kCutClose;
  }
  return out;
}

StringArena::StringArena(std::size_t capacity_bytes)
    : data_(new char[capacity_bytes < 64 ? 64 : capacity_bytes]),
      capacity_(capacity_bytes < 64 ? 64 : capacity_bytes),
      used_(kFirstOffset) {
  ids_.reserve(1024);
}

std::uint32_t StringArena::append(std::string_view text) {
  const std::size_t need = 4 + text.size();
  if (need > capacity_ - used_ || used_ > 0xffffffffu - need) {
    ++overflowed_;
    return kOverflowId;
  }
  const auto id = static_cast<std::uint32_t>(used_);
  const auto length = static_cast<std::uint32_t>(text.size());
  std::memcpy(data_.get() + used_, &length, 4);
  std::memcpy(data_.get() + used_ + 4, text.data(), text.size());
  used_ += need;
  return id;
}

std::uint32_t StringArena::intern(std::string_view text) {
  if (text.size() > kMaxStringBytes) [[unlikely]] return intern(fit_string_limit(text, kMaxStringBytes));
  if (auto found = ids_.find(text); found != ids_.end()) return found->second;
  const std::uint32_t id = append(text);
  if (id != kOverflowId) ids_.emplace(std::string(text), id);
  return id;
}

std::string_view StringArena::get(std::uint32_t id) const noexcept {
  if (id == kNoString) return {};
  if (id == kOverflowId || id + 4 > capacity_) return kOverflowText;
  std::uint32_t length = 0;
  std::memcpy(&length, data_.get() + id, 4);
  if (id + 4 + static_cast<std::size_t>(length) > capacity_) return kOverflowText;
  return std::string_view(data_.get() + id + 4, length);
}

}  // namespace skein::capture
