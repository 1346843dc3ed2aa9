// ctf_packet_index.hpp — the packets of one mirage-profile CTF stream, found
// in a first pass over it, and the order to read their events in: by their
// stream_packet_count. CtfImporter (ctf_importer.hpp, which describes the
// packet layout) is the one user: it decodes the events of each packet in
// the order ctf_counter_order gives.
//
// Why a first pass. mirage-profile writes its trace into a ring of packets
// (mirage/mirage-profile, lib/trace_enabled.ml at 519cc95: Control.make cuts
// the buffer into 4 packets counted 0 to 3; Control.next_packet moves to the
// next one round the ring, clears it and stamps it with the next count, `land
// 0xffff` into the u16 stream_packet_count). Once the ring has wrapped, the
// file starts in the middle of the trace, and which packet is the earliest is
// known only from the counters of all of them. The input may be a pipe or a
// gzip stream (ByteSource cannot seek), so scan() reads it once, keeps a
// CtfPacket per packet and copies each packet's events (not its header or
// padding) to the spool, an unnamed temporary file; read_events() reads
// them back with pread, in whatever order the importer asks.
//
// The order (ctf_counter_order) is mirage-trace-viewer's (talex5/
// mirage-trace-viewer, lib/mtv_ctf_loader.ml, `order_packets`): walking the
// packets in file order, the first whose counter is a large jump from the
// previous packet's (`(count - previous) mod 2^16 > 0x8000`) is the
// earliest, or the first packet when none is; each counter is rebased on the
// earliest's (`(count - base) mod 2^16`, so the u16 counter wrapping from
// 0xffff to 0 orders right too) and the packets are sorted by it. The sort
// is stable: packets with the same counter stay in file order.
//
// Invariants:
//   1. Memory is bounded by the number of packets (a CtfPacket each) plus a
//      fixed chunk, whatever the bytes: the stream's events go to the spool.
//      A packet with no events costs the spool nothing.
//   2. Every packet in packets() has a header that passed every check. Only
//      partial_packet(), always the last, holds fewer bytes than its header
//      declares: the input ended, or failed, inside it.
//   3. scan() reads the input once, to its end or to the first error that
//      leaves no next packet to find; time is linear in the input, and
//      ctf_counter_order is O(n log n) in the packets.
//   4. Nothing is reordered silently: ctf_counter_order warns when its order
//      is not the file's, for each repeated counter and for each gap.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "recorder/format/byte_source.hpp"
#include "recorder/format/diagnostic.hpp"

namespace skein {

inline constexpr std::size_t kCtfPacketHeaderBytes = 30;  // header (20) and context (10)

struct CtfPacket {
  std::uint64_t offset = 0;         // of its magic, in the (decompressed) stream
  std::uint64_t spool_offset = 0;   // of its first event byte in the spool
  std::uint32_t packet_bytes = 0;   // packet_size / 8: the packet, padding included
  std::uint32_t content_bytes = 0;  // content_size / 8: header, context and events
  std::uint32_t stored_bytes = 0;  // event bytes in the spool: content_bytes - 30, fewer if partial
  std::uint16_t counter = 0;       // stream_packet_count

  [[nodiscard]] std::uint64_t events_offset() const { return offset + kCtfPacketHeaderBytes; }
  [[nodiscard]] std::uint64_t content_end() const { return offset + content_bytes; }
};

// Takes a warning's message, `byte N: ...` (or, about the whole stream, no
// offset).
using CtfWarn = std::function<void(std::string message)>;

class CtfPacketIndex {
 public:
  // `name` names the input in the diagnostics.
  explicit CtfPacketIndex(std::string name);
  ~CtfPacketIndex();  // closes (and so deletes) the spool
  CtfPacketIndex(const CtfPacketIndex&) = delete;
  CtfPacketIndex& operator=(const CtfPacketIndex&) = delete;

  // Reads `source` once, to its end or to the first error (stop_error()),
  // and warns of a packet whose uuid differs from the first's and of a gzip
  // stream cut short. Fails only when the spool cannot be made or written:
  // a fault of this machine, not of the input.
  [[nodiscard]] Status scan(ByteSource& source, const CtfWarn& warn);

  // In file order.
  [[nodiscard]] const std::vector<CtfPacket>& packets() const { return packets_; }
  // What stopped the scan before the end of the input: a malformed header,
  // an input that ends inside a packet, a read error. Errors are final, so
  // the importer gives it once it has read partial_packet()'s events (or
  // every packet's, when there is no partial packet) and stops there.
  [[nodiscard]] const std::optional<Diagnostic>& stop_error() const { return stop_error_; }
  // The index in packets() of the packet the input ended or failed inside.
  [[nodiscard]] std::optional<std::size_t> partial_packet() const { return partial_packet_; }
  // A gzip stream ended early (scan() warned): a truncation, not an error.
  [[nodiscard]] bool cut_short() const { return cut_short_; }
  // The first packet's uuid, as 8-4-4-4-12 hex digits; "" when no packet.
  [[nodiscard]] const std::string& first_uuid() const { return first_uuid_text_; }

  // Up to into.size() of `packet`'s stored event bytes, from its event byte
  // `from` on; 0 only at the end of its stored bytes.
  [[nodiscard]] Result<std::size_t> read_events(const CtfPacket& packet, std::uint32_t from,
                                                std::span<char> into) const;

 private:
  [[nodiscard]] Status spool_write(std::span<const char> bytes);
  [[nodiscard]] Status spool_flush();

  std::string name_;
  std::vector<CtfPacket> packets_;
  std::optional<Diagnostic> stop_error_;
  std::optional<std::size_t> partial_packet_;
  bool cut_short_ = false;
  std::string first_uuid_;  // the 16 bytes
  std::string first_uuid_text_;
  int spool_fd_ = -1;
  std::uint64_t spool_bytes_ = 0;  // written or buffered
  std::vector<char> spool_buffer_;
};

// The indices into `packets` (file order) in counter order, as described
// above; warns, naming packets by byte offset and raw counter:
//   - once, when that order is not the file's (the ring wrapped), with the
//     packet the trace starts at;
//   - for each packet whose rebased counter repeats the one before it;
//   - for each gap between consecutive counters: packets missing.
[[nodiscard]] std::vector<std::size_t> ctf_counter_order(const std::vector<CtfPacket>& packets,
                                                         const CtfWarn& warn);

}  // namespace skein
