// string_arena.hpp — the capture's strings (labels, counter names, failure
// messages, site files and functions), each stored once and named by a
// 32-bit id that fits in a fixed-size record.
//
// One producer (the scheduler thread) appends; any thread may read a string
// whose id it received through the record stream, which publishes with
// release/acquire, so the bytes are visible before the id is. The arena is a
// single preallocated block, never moved or freed while the capture lives:
// the crash handler reads it without locks or allocation. When it is full,
// new strings get kOverflowId, which reads as "<string table full>", and are
// counted.
//
// Every string stored fits the trace format (FORMAT.md: at most
// kMaxStringBytes bytes): a longer one (a label, a counter name, a failure
// message of any length the program makes) is stored cut, by
// fit_string_limit, so the trace the capture writes is one its reader
// accepts.
//
// Interning (string -> id) is the producer's alone; the map is bounded by the
// arena's size (its keys are the strings as stored, cut ones included).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

namespace skein::capture {

// `text` if it is at most `limit` bytes long; otherwise its longest prefix
// that ends on a UTF-8 character boundary and leaves room for the marker
// "… [cut N bytes]" (N the bytes left out, written with thousands
// separators, as in "… [cut 12,345 bytes]"), followed by that marker: at
// most `limit` bytes in all. A limit too small for any marker (below 32
// bytes) gives the plain prefix.
[[nodiscard]] std::string fit_string_limit(std::string_view text, std::size_t limit);

class StringArena {
 public:
  static constexpr std::uint32_t kNoString = 0;
  static constexpr std::uint32_t kOverflowId = 1;

  explicit StringArena(std::size_t capacity_bytes);

  // Producer: the id of `text`, appending it the first time (cut to
  // kMaxStringBytes by fit_string_limit when longer).
  [[nodiscard]] std::uint32_t intern(std::string_view text);
  // Readers: the text of an id received through the record stream.
  [[nodiscard]] std::string_view get(std::uint32_t id) const noexcept;

  [[nodiscard]] std::uint64_t overflowed() const noexcept { return overflowed_; }
  [[nodiscard]] std::size_t used_bytes() const noexcept { return used_; }

 private:
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
  };
  std::uint32_t append(std::string_view text);

  std::unique_ptr<char[]> data_;
  std::size_t capacity_;
  std::size_t used_ = 0;
  std::uint64_t overflowed_ = 0;
  std::unordered_map<std::string, std::uint32_t, Hash, std::equal_to<>> ids_;
};

}  // namespace skein::capture
