// endless_source.hpp — a ByteSource that never ends: a prefix, then one
// byte repeated forever, as /dev/zero or `yes` behind a pipe give. It counts
// what it hands out, and past `bound` bytes it fails the read, so a reader
// that would read it forever makes the test fail on a byte count, not hang.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

#include "recorder/format/byte_source.hpp"

namespace skein::test {

inline constexpr std::uint64_t kEndlessBound = std::uint64_t{1} << 30;  // 1 GiB

class EndlessSource final : public ByteSource {
 public:
  // `given` is where the count of bytes handed out is kept, for the test to
  // read once the reader owns the source.
  EndlessSource(std::string prefix, char fill, std::shared_ptr<std::uint64_t> given,
                std::uint64_t bound = kEndlessBound)
      : prefix_(std::move(prefix)), fill_(fill), given_(std::move(given)), bound_(bound) {}

  [[nodiscard]] Result<std::size_t> read(std::span<char> into) override {
    if (*given_ >= bound_)
      return file_error("endless", "the test's bound of " + std::to_string(bound_) + " bytes was reached");
    std::size_t n = 0;
    if (*given_ < prefix_.size()) {
      n = std::min(into.size(), prefix_.size() - static_cast<std::size_t>(*given_));
      std::memcpy(into.data(), prefix_.data() + *given_, n);
    }
    std::memset(into.data() + n, fill_, into.size() - n);
    *given_ += into.size();
    return into.size();
  }
  [[nodiscard]] std::uint64_t raw_offset() const override { return *given_; }

 private:
  std::string prefix_;
  char fill_;
  std::shared_ptr<std::uint64_t> given_;
  std::uint64_t bound_;
};

}  // namespace skein::test
