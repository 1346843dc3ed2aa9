// ctf_packet_window.hpp — a window on one CTF packet's events, read back
// from the packet index's spool (ctf_packet_index.hpp). CtfImporter opens it
// on each packet in counter order; CtfEventDecoder (ctf_event_decoder.hpp)
// reads the events through it.
//
// Invariants:
//   1. Bytes [pos_, filled_) of buffer_ are the stream's bytes from offset()
//      on, all of them the open packet's stored event bytes.
//   2. Only ensure() reads, and it may move the bytes: hold offsets across
//      it, never pointers.
//   3. The buffer is a chunk of kCtfWindowBytes at most (less for a smaller
//      packet), or one event when that is larger: never a whole packet.
//   4. short_input means the packet's stored bytes are exhausted, which
//      happens only in the packet the input ended inside.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "recorder/format/diagnostic.hpp"
#include "recorder/import/ctf/ctf_packet_index.hpp"

namespace skein {

// The window reads a chunk of kCtfWindowBytes at a time (less for a smaller
// packet); it grows to hold one event with the longest string (fixed fields
// + kMaxStringBytes + NUL) if need be.
inline constexpr std::size_t kCtfWindowBytes = 256 * 1024;

class CtfPacketWindow {
 public:
  enum class Have : std::uint8_t { ok, short_input, error };

  explicit CtfPacketWindow(const CtfPacketIndex& index) : index_(index) {}

  void open(const CtfPacket& packet) {
    packet_ = &packet;
    base_ = packet.events_offset();
    pos_ = 0;
    filled_ = 0;
    read_ = 0;
  }

  // At least n bytes from offset() (n is at most one event: well under
  // kCtfWindowBytes).
  Have ensure(std::size_t n) {
    if (filled_ - pos_ >= n) return Have::ok;
    if (pos_ > 0) {
      std::memmove(buffer_.data(), buffer_.data() + pos_, filled_ - pos_);
      base_ += pos_;
      filled_ -= pos_;
      pos_ = 0;
    }
    const std::size_t left = packet_->stored_bytes - read_;
    if (filled_ + left < n) return Have::short_input;
    // A window as large as the packet's events, up to a chunk, or one event.
    const std::size_t size = std::max(n, std::min(filled_ + left, kCtfWindowBytes));
    if (buffer_.size() < size) buffer_.resize(size);
    while (filled_ < n) {
      const std::size_t room =
          std::min<std::size_t>(buffer_.size() - filled_, packet_->stored_bytes - read_);
      auto got =
          index_.read_events(*packet_, read_, std::span<char>(buffer_.data() + filled_, room));
      if (!got) {
        error_ = got.error();
        return Have::error;
      }
      filled_ += got.value();
      read_ += static_cast<std::uint32_t>(got.value());
    }
    return Have::ok;
  }

  [[nodiscard]] const char* data() const { return buffer_.data() + pos_; }
  [[nodiscard]] std::size_t available() const { return filled_ - pos_; }
  void consume(std::size_t n) { pos_ += n; }
  [[nodiscard]] std::uint64_t offset() const { return base_ + pos_; }
  [[nodiscard]] const Diagnostic& read_error() const { return error_; }

 private:
  const CtfPacketIndex& index_;
  const CtfPacket* packet_ = nullptr;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t filled_ = 0;
  std::uint32_t read_ = 0;  // the packet's event bytes read into buffer_ so far
  std::uint64_t base_ = 0;
  Diagnostic error_;
};

}  // namespace skein
