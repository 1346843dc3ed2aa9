// string_arena.cpp — see string_arena.hpp.
//
// Layout: each string is a 4-byte little-endian length followed by its
// bytes; its id is its offset. Offsets 0 and 1 are reserved (kNoString,
// kOverflowId), so the first string starts at 8.
#include "recorder/string_arena.hpp"

#include <cstring>

namespace skein::capture {
namespace {
constexpr std::size_t kFirstOffset = 8;
constexpr std::string_view kOverflowText = "<string table full>";
}  // namespace

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
