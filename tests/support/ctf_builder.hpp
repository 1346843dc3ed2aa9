// ctf_builder.hpp — a tiny encoder of mirage-profile CTF packets, for tests:
// the layout of recorder/import/ctf/ctf_importer.hpp written out byte by byte, so tests
// state their input as events rather than as hex.
//
//   CtfBuilder b;
//   b.packet().switch_(1000, 0).label(1100, 0, "main");
//   const std::string bytes = b.bytes();
//
// Each packet's sizes are filled in when the next packet starts or bytes()
// is called; `padding` bytes of zeros follow each packet's content.
// packet() numbers packets 0, 1, 2... in file order; numbered_packet() sets
// the counter, for rings that wrapped. event_ends() lists where each event
// ends, to tell which events a cut keeps; packet_starts() where each packet
// starts, to name it in expected messages.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace skein::test {

class CtfBuilder {
 public:
  static constexpr std::uint8_t kUuid[16] = {0x05, 0x88, 0x3b, 0x8d, 0x52, 0x1a, 0x48, 0x7b,
                                             0xb3, 0x97, 0x45, 0x6a, 0xb1, 0x50, 0x68, 0x0c};

  // Starts a packet whose stream_packet_count is its index (0, 1, 2...);
  // `padding` zero bytes will follow its content.
  CtfBuilder& packet(std::size_t padding = 6) {
    return numbered_packet(static_cast<std::uint16_t>(packets_), padding);
  }
  // The same with the stream_packet_count given: a ring that wrapped, a
  // repeated or a missing counter.
  CtfBuilder& numbered_packet(std::uint16_t stream_packet_count, std::size_t padding = 6) {
    close();
    packet_start_ = out_.size();
    packet_starts_.push_back(packet_start_);
    padding_ = padding;
    open_ = true;
    ++packets_;
    u32(0xc1fc1fc1);
    for (std::uint8_t b : kUuid) u8(b);
    u32(0);  // packet_size, patched by close()
    u16(stream_packet_count);
    u32(0);  // content_size, patched by close()
    return *this;
  }

  CtfBuilder& creates(std::uint64_t ts, std::uint64_t thread, std::uint64_t child, std::uint8_t type) {
    return head(ts, 0, thread).u64(child).u8(type).done();
  }
  CtfBuilder& read(std::uint64_t ts, std::uint64_t thread, std::uint64_t source) {
    return head(ts, 1, thread).u64(source).done();
  }
  CtfBuilder& fulfills(std::uint64_t ts, std::uint64_t thread, std::uint64_t resolvee) {
    return head(ts, 2, thread).u64(resolvee).done();
  }
  CtfBuilder& fails(std::uint64_t ts, std::uint64_t thread, std::uint64_t resolvee, std::string_view exn) {
    return head(ts, 3, thread).u64(resolvee).str(exn).done();
  }
  CtfBuilder& becomes(std::uint64_t ts, std::uint64_t thread, std::uint64_t sleeper) {
    return head(ts, 4, thread).u64(sleeper).done();
  }
  CtfBuilder& label(std::uint64_t ts, std::uint64_t thread, std::string_view text) {
    return head(ts, 5, thread).str(text).done();
  }
  CtfBuilder& increase(std::uint64_t ts, std::uint64_t thread, std::int64_t amount, std::string_view counter) {
    return head(ts, 6, thread).u64(static_cast<std::uint64_t>(amount)).str(counter).done();
  }
  CtfBuilder& switch_(std::uint64_t ts, std::uint64_t thread) { return head(ts, 7, thread).done(); }
  CtfBuilder& gc(std::uint64_t ts, std::uint64_t duration_ns) {
    u64(ts).u8(8).u64(duration_ns);
    return done();
  }
  // signal (9), try_read (10), read without switch (12), signal without switch (13)
  CtfBuilder& source_event(std::uint8_t id, std::uint64_t ts, std::uint64_t thread, std::uint64_t source) {
    return head(ts, id, thread).u64(source).done();
  }
  CtfBuilder& counter(std::uint64_t ts, std::uint64_t thread, std::int64_t value, std::string_view counter) {
    return head(ts, 11, thread).u64(static_cast<std::uint64_t>(value)).str(counter).done();
  }

  // Raw bytes, for malformed inputs.
  CtfBuilder& u8(std::uint8_t v) {
    out_ += static_cast<char>(v);
    return *this;
  }
  CtfBuilder& u16(std::uint16_t v) { return u8(v & 0xFF).u8(static_cast<std::uint8_t>(v >> 8)); }
  CtfBuilder& u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  CtfBuilder& u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) u8(static_cast<std::uint8_t>(v >> (8 * i)));
    return *this;
  }
  CtfBuilder& raw(std::string_view bytes) {
    out_ += bytes;
    return *this;
  }
  CtfBuilder& str(std::string_view s) { return raw(s).u8(0); }

  // The bytes so far, the last packet closed.
  std::string bytes() {
    close();
    return out_;
  }
  [[nodiscard]] std::size_t size() const { return out_.size(); }
  [[nodiscard]] const std::vector<std::size_t>& event_ends() const { return event_ends_; }
  [[nodiscard]] const std::vector<std::size_t>& packet_ends() const { return packet_ends_; }
  [[nodiscard]] const std::vector<std::size_t>& packet_starts() const { return packet_starts_; }

  // Overwrites 4 bytes at `offset` (a size field, the magic).
  void patch_u32(std::size_t offset, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_[offset + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * i));
  }

 private:
  CtfBuilder& head(std::uint64_t ts, std::uint8_t id, std::uint64_t thread) { return u64(ts).u8(id).u64(thread); }
  CtfBuilder& done() {
    event_ends_.push_back(out_.size());
    return *this;
  }
  void close() {
    if (!open_) return;
    open_ = false;
    const std::size_t content = out_.size() - packet_start_;
    out_.append(padding_, '\0');
    patch_u32(packet_start_ + 20, static_cast<std::uint32_t>((content + padding_) * 8));
    patch_u32(packet_start_ + 26, static_cast<std::uint32_t>(content * 8));
    packet_ends_.push_back(out_.size());
  }

  std::string out_;
  std::size_t packet_start_ = 0;
  std::size_t padding_ = 0;
  std::size_t packets_ = 0;
  bool open_ = false;
  std::vector<std::size_t> event_ends_;
  std::vector<std::size_t> packet_ends_;
  std::vector<std::size_t> packet_starts_;
};

}  // namespace skein::test
