// ctf_packet_index.cpp — the first pass over a CTF stream: packet headers
// checked and indexed, events spooled to an unnamed temporary file; and the
// packets' counter order. See ctf_packet_index.hpp.
#include "recorder/import/ctf/ctf_packet_index.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace skein {
namespace {

constexpr std::uint32_t kPacketMagic = 0xc1fc1fc1;
constexpr std::size_t kChunkBytes = 64 * 1024;  // read from the input, and buffered for the spool
// mtv_ctf_loader.ml's test for "the counter dropped: this packet is the
// earliest, not the next one".
constexpr std::uint32_t kCounterJump = 0x8000;

std::uint32_t load_u32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
std::uint16_t load_u16(const char* p) {
  return static_cast<std::uint16_t>(static_cast<unsigned char>(p[0]) |
                                    (static_cast<unsigned char>(p[1]) << 8));
}

std::string hex32(std::uint32_t v) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (int shift = 28; shift >= 0; shift -= 4) out += kHex[(v >> shift) & 0xF];
  return out;
}

std::string uuid_text(const char* p) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    const auto b = static_cast<unsigned char>(p[i]);
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

std::string at_byte(std::uint64_t offset) {
  return "byte " + std::to_string(offset) + ": ";
}

// The input in chunks: take() hands out the next bytes, then the end of
// the input (an empty span, with failed() telling a read error from the
// end).
class ChunkReader {
 public:
  explicit ChunkReader(ByteSource& source) : source_(source), buffer_(kChunkBytes) {}

  // Up to `max` next bytes (fewer at a chunk's end); empty at the end of the
  // input or on a read error.
  std::span<const char> take(std::uint64_t max) {
    if (pos_ == filled_ && !ended_) {
      auto got = source_.read(buffer_);
      if (!got) {
        error_ = got.error();
        failed_ = true;
        ended_ = true;
      } else {
        pos_ = 0;
        filled_ = got.value();
        ended_ = filled_ == 0;
      }
    }
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(max, filled_ - pos_));
    const std::span<const char> out(buffer_.data() + pos_, n);
    pos_ += n;
    offset_ += n;
    return out;
  }

  // Copies up to into.size() bytes; fewer only at the end of the input.
  std::size_t take_into(std::span<char> into) {
    std::size_t got = 0;
    while (got < into.size()) {
      const auto part = take(into.size() - got);
      if (part.empty()) break;
      std::memcpy(into.data() + got, part.data(), part.size());
      got += part.size();
    }
    return got;
  }

  [[nodiscard]] std::uint64_t offset() const { return offset_; }  // of the next byte
  [[nodiscard]] bool failed() const { return failed_; }
  [[nodiscard]] const Diagnostic& error() const { return error_; }

 private:
  ByteSource& source_;
  std::vector<char> buffer_;
  std::size_t pos_ = 0;
  std::size_t filled_ = 0;
  std::uint64_t offset_ = 0;
  bool ended_ = false;
  bool failed_ = false;
  Diagnostic error_;
};

// An unnamed file in $TMPDIR (or /tmp), deleted when closed: O_TMPFILE where
// the file system has it, else tmpfile().
int open_spool() {
  const char* dir = std::getenv("TMPDIR");
  if (dir == nullptr || *dir == '\0') dir = "/tmp";
#ifdef O_TMPFILE
  const int fd = ::open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
#endif
  std::FILE* file = std::tmpfile();
  if (file == nullptr) return -1;
  const int fd_copy = ::fcntl(::fileno(file), F_DUPFD_CLOEXEC, 0);
  const int fcntl_errno = errno;
  std::fclose(file);
  errno = fcntl_errno;
  return fd_copy;
}

}  // namespace

CtfPacketIndex::CtfPacketIndex(std::string name) : name_(std::move(name)) {}

CtfPacketIndex::~CtfPacketIndex() {
  if (spool_fd_ >= 0) ::close(spool_fd_);
}

Status CtfPacketIndex::spool_write(std::span<const char> bytes) {
  if (spool_fd_ < 0) {
    spool_fd_ = open_spool();
    if (spool_fd_ < 0)
      return file_error(name_, std::string("cannot make a temporary file to read the packets in "
                                           "counter order: ") +
                                   std::strerror(errno));
    spool_buffer_.reserve(kChunkBytes);
  }
  spool_bytes_ += bytes.size();
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kChunkBytes - spool_buffer_.size());
    spool_buffer_.insert(spool_buffer_.end(), bytes.begin(),
                         bytes.begin() + static_cast<std::ptrdiff_t>(n));
    bytes = bytes.subspan(n);
    if (spool_buffer_.size() == kChunkBytes) {
      Status flushed = spool_flush();
      if (!flushed) return flushed;
    }
  }
  return {};
}

Status CtfPacketIndex::spool_flush() {
  std::size_t done = 0;
  while (done < spool_buffer_.size()) {
    const ssize_t n = ::write(spool_fd_, spool_buffer_.data() + done, spool_buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return file_error(name_, std::string("cannot write the temporary copy of the packets: ") +
                                   (n < 0 ? std::strerror(errno) : "no space written"));
    done += static_cast<std::size_t>(n);
  }
  spool_buffer_.clear();
  return {};
}

Status CtfPacketIndex::scan(ByteSource& source, const CtfWarn& warn) {
  ChunkReader in(source);
  const auto input_error = [&](std::uint64_t offset, const std::string& message) {
    stop_error_ = Diagnostic{Severity::error, name_, 0, 0, at_byte(offset) + message};
  };
  for (;;) {
    const std::uint64_t at = in.offset();
    std::array<char, kCtfPacketHeaderBytes> header{};
    const std::size_t got = in.take_into(header);
    if (in.failed()) {
      stop_error_ = in.error();
      break;
    }
    if (got < header.size()) {
      if (source.cut_short()) {
        cut_short_ = true;
        warn("the compressed stream ends early: the trace was cut short");
      } else if (got > 0) {
        input_error(at, "the input ends inside a packet header (after " + std::to_string(got) +
                            " of its " + std::to_string(kCtfPacketHeaderBytes) + " bytes)");
      }
      break;
    }

    const char* p = header.data();
    const std::uint32_t magic = load_u32(p);
    if (magic != kPacketMagic) {
      input_error(at, "bad packet magic " + hex32(magic) +
                          ": a mirage-profile CTF packet starts with c1 1f fc c1");
      break;
    }
    if (packets_.empty()) {
      first_uuid_.assign(p + 4, 16);
      first_uuid_text_ = uuid_text(p + 4);
    } else if (std::memcmp(first_uuid_.data(), p + 4, 16) != 0) {
      warn(at_byte(at + 4) + "the packet's uuid " + uuid_text(p + 4) +
           " differs from the first packet's");
    }
    const std::uint32_t packet_bits = load_u32(p + 20);
    const std::uint32_t content_bits = load_u32(p + 26);
    if (packet_bits % 8 != 0) {
      input_error(at + 20, "packet size " + std::to_string(packet_bits) +
                               " bits is not a whole number of bytes");
      break;
    }
    if (content_bits % 8 != 0) {
      input_error(at + 26, "content size " + std::to_string(content_bits) +
                               " bits is not a whole number of bytes");
      break;
    }
    if (content_bits / 8 < kCtfPacketHeaderBytes) {
      input_error(at + 26, "content size " + std::to_string(content_bits / 8) +
                               " bytes is smaller than the packet header and context (30 bytes)");
      break;
    }
    if (content_bits > packet_bits) {
      input_error(at + 26, "content size " + std::to_string(content_bits / 8) +
                               " bytes exceeds the packet size (" +
                               std::to_string(packet_bits / 8) + " bytes)");
      break;
    }

    CtfPacket packet;
    packet.offset = at;
    packet.spool_offset = spool_bytes_;
    packet.packet_bytes = packet_bits / 8;
    packet.content_bytes = content_bits / 8;
    packet.counter = load_u16(p + 24);
    packets_.push_back(packet);
    CtfPacket& stored = packets_.back();

    // The events go to the spool; the padding is dropped.
    std::uint64_t events_left = stored.content_bytes - kCtfPacketHeaderBytes;
    while (events_left > 0) {
      const auto part = in.take(events_left);
      if (part.empty()) break;
      Status written = spool_write(part);
      if (!written) return written;
      stored.stored_bytes += static_cast<std::uint32_t>(part.size());
      events_left -= part.size();
    }
    std::uint64_t padding_left = stored.packet_bytes - stored.content_bytes;
    while (events_left == 0 && padding_left > 0) {
      const auto part = in.take(padding_left);
      if (part.empty()) break;
      padding_left -= part.size();
    }
    if (events_left == 0 && padding_left == 0) continue;

    // The input ended, or failed, inside this packet.
    partial_packet_ = packets_.size() - 1;
    if (in.failed()) {
      stop_error_ = in.error();
    } else if (source.cut_short()) {
      cut_short_ = true;
      warn("the compressed stream ends early, inside the packet at byte " + std::to_string(at) +
           ": the trace was cut short");
    } else {
      input_error(at + 20, "packet size " + std::to_string(stored.packet_bytes) +
                               " bytes goes past the end of the input (at byte " +
                               std::to_string(in.offset()) + ")");
    }
    break;
  }
  if (spool_fd_ >= 0) return spool_flush();
  return {};
}

Result<std::size_t> CtfPacketIndex::read_events(const CtfPacket& packet, std::uint32_t from,
                                                std::span<char> into) const {
  if (from >= packet.stored_bytes) return std::size_t{0};
  const std::size_t want = std::min<std::size_t>(into.size(), packet.stored_bytes - from);
  const auto at = static_cast<off_t>(packet.spool_offset + from);
  for (;;) {
    const ssize_t n = ::pread(spool_fd_, into.data(), want, at);
    if (n > 0) return static_cast<std::size_t>(n);
    if (n < 0 && errno == EINTR) continue;
    return file_error(name_, std::string("cannot read the temporary copy of the packets back: ") +
                                 (n < 0 ? std::strerror(errno) : "it is shorter than written"));
  }
}

std::vector<std::size_t> ctf_counter_order(const std::vector<CtfPacket>& packets,
                                           const CtfWarn& warn) {
  std::vector<std::size_t> order(packets.size());
  if (packets.empty()) return order;

  // The earliest packet: the first after a large jump, else the first.
  std::size_t earliest = 0;
  for (std::size_t i = 1; i < packets.size(); ++i) {
    const auto step = static_cast<std::uint16_t>(packets[i].counter - packets[i - 1].counter);
    if (step > kCounterJump) {
      earliest = i;
      break;
    }
  }
  const std::uint16_t base = packets[earliest].counter;
  const auto rebased = [&](std::size_t i) {
    return static_cast<std::uint16_t>(packets[i].counter - base);
  };
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return rebased(a) < rebased(b); });

  bool reordered = false;
  for (std::size_t i = 0; i < order.size() && !reordered; ++i) reordered = order[i] != i;
  if (reordered) {
    const CtfPacket& first = packets[order.front()];
    warn(at_byte(first.offset) +
         "the ring of packets wrapped: the packets are read in counter order, "
         "starting at this one (counter " +
         std::to_string(first.counter) + ")");
  }
  for (std::size_t k = 1; k < order.size(); ++k) {
    const CtfPacket& before = packets[order[k - 1]];
    const CtfPacket& here = packets[order[k]];
    // Sorted: the step is never negative.
    const auto step = static_cast<std::uint32_t>(rebased(order[k]) - rebased(order[k - 1]));
    if (step == 0) {
      warn(at_byte(here.offset) + "this packet's counter " + std::to_string(here.counter) +
           " repeats the counter of the packet at byte " + std::to_string(before.offset) +
           ": both are read, in file order");
    } else if (step > 1) {
      const std::uint32_t missing = step - 1;
      warn(at_byte(here.offset) + "the counter goes from " + std::to_string(before.counter) +
           " (the packet at byte " + std::to_string(before.offset) + ") to " +
           std::to_string(here.counter) + " here: " + std::to_string(missing) +
           (missing == 1 ? " packet" : " packets") + " missing (overwritten or lost)");
    }
  }
  return order;
}

}  // namespace skein
