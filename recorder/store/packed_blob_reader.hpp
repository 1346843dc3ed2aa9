// packed_blob_reader.hpp — reading one of the store's packed blobs
// (SCHEMA.md: event_blocks.records, transfer_blocks.verdicts), which are
// untrusted input: a position that never passes the blob's end, bytes,
// varints (varint.hpp) and length-prefixed texts, each refused with the
// row and the byte it starts at: "DB: damaged Skein database: ROW: byte
// N: WHY". `Place` says which row: its `database` (the file's name) and
// `describe()` ("event_blocks row 3"), asked only when a read fails.
// `items` names what the blob holds in messages ("records", "verdicts").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"
#include "recorder/store/varint.hpp"

namespace skein {

template <class Place>
class PackedBlobReader {
 public:
  PackedBlobReader(std::string_view blob, const Place& place, std::string_view items)
      : blob_(blob), place_(place), items_(items) {}

  [[nodiscard]] bool at_end() const { return at_ == blob_.size(); }
  [[nodiscard]] std::size_t at() const { return at_; }

  [[nodiscard]] Status fail(std::size_t byte, const std::string& why) const {
    return file_error(std::string(place_.database), "damaged Skein database: " + place_.describe() + ": byte " +
                                                        std::to_string(byte) + ": " + why);
  }

  [[nodiscard]] Status byte(std::uint8_t& out) {
    if (at_ >= blob_.size()) return fail(at_, "the " + std::string(items_) + " end in the middle of one");
    out = static_cast<std::uint8_t>(blob_[at_++]);
    return {};
  }

  [[nodiscard]] Status varint(std::uint64_t& out) {
    const std::size_t start = at_;
    switch (read_varint(blob_, at_, out)) {
      case VarintRead::ok: return {};
      case VarintRead::past_end:
        return fail(start, "the " + std::string(items_) + " end in the middle of a number");
      case VarintRead::over_64_bits: return fail(start, "a number longer than 64 bits");
      case VarintRead::over_ten_bytes: break;
    }
    return fail(start, "a number longer than ten bytes");
  }

  [[nodiscard]] Status text(std::string_view& out) {
    const std::size_t start = at_;
    std::uint64_t length = 0;
    if (Status s = varint(length); !s.ok()) return s;
    if (length > blob_.size() - at_)
      return fail(start, "a text of " + std::to_string(length) + " bytes where " +
                             std::to_string(blob_.size() - at_) + " are left");
    out = blob_.substr(at_, static_cast<std::size_t>(length));
    at_ += static_cast<std::size_t>(length);
    return {};
  }

 private:
  std::string_view blob_;
  const Place& place_;
  std::string_view items_;
  std::size_t at_ = 0;
};

}  // namespace skein
